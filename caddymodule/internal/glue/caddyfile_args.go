package glue

import (
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// The argument readers every module's UnmarshalCaddyfile shares. Each
// reads the remaining arguments of the current subdirective line.

// OneArg reads exactly one argument into dst.
func OneArg(d *caddyfile.Dispenser, dst *string) error {
	args := d.RemainingArgs()
	if len(args) != 1 {
		return d.ArgErr()
	}
	*dst = args[0]
	return nil
}

// PositiveDurationArg reads one positive duration for subdirective name
// into dst.
func PositiveDurationArg(d *caddyfile.Dispenser, name string, dst *caddy.Duration) error {
	var s string
	if err := OneArg(d, &s); err != nil {
		return err
	}
	dur, err := caddy.ParseDuration(s)
	if err != nil {
		return d.Errf("%s: %v", name, err)
	}
	if dur <= 0 {
		return d.Errf("%s %s must be positive", name, s)
	}
	*dst = caddy.Duration(dur)
	return nil
}

// IntArgInRange reads one integer min..max for subdirective name into dst.
func IntArgInRange(d *caddyfile.Dispenser, name string, dst *int, min, max int) error {
	var v string
	if err := OneArg(d, &v); err != nil {
		return err
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		return d.Errf("%s %q must be a number %d..%d", name, v, min, max)
	}
	*dst = n
	return nil
}

// PutOnce sets (*m)[key] to value, making the map when it is nil, for a
// subdirective that adds one entry a line: a key given before is
// "<what> <key> already specified".
func PutOnce[V any](m *map[string]V, what, key string, value V) error {
	if _, dup := (*m)[key]; dup {
		return fmt.Errorf("%s %s already specified", what, key)
	}
	if *m == nil {
		*m = map[string]V{}
	}
	(*m)[key] = value
	return nil
}
