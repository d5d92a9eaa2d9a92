package modulekit

import (
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"
)

// The subdirectives most modules share, each a Sub of one shape: the
// value is checked where it is read and its error names the line.

// Func is a subdirective of min..max arguments read by parse.
func Func(name string, min, max int, parse func(d *caddyfile.Dispenser, args []string) error) Sub {
	return Sub{Name: name, Min: min, Max: max, Parse: parse}
}

// Entry is a repeatable Func: a subdirective that adds one entry a line.
func Entry(name string, min, max int, parse func(d *caddyfile.Dispenser, args []string) error) Sub {
	return Sub{Name: name, Min: min, Max: max, Repeatable: true, Parse: parse}
}

// String is a subdirective of one argument, set into dst.
func String(name string, dst *string) Sub {
	return Func(name, 1, 1, func(_ *caddyfile.Dispenser, args []string) error {
		*dst = args[0]
		return nil
	})
}

// OneOf is String for a value among allowed.
func OneOf(name string, dst *string, allowed ...string) Sub {
	return Func(name, 1, 1, func(d *caddyfile.Dispenser, args []string) error {
		for _, a := range allowed {
			if args[0] == a {
				*dst = a
				return nil
			}
		}
		return d.Errf("%s %q: want %s", name, args[0], orList(allowed))
	})
}

// Strings is a subdirective of one or more arguments, set into dst.
func Strings(name string, dst *[]string) Sub {
	return Func(name, 1, Many, func(_ *caddyfile.Dispenser, args []string) error {
		*dst = args
		return nil
	})
}

// Values is Strings for a list whose every value names something (an
// audience, a scope, a file): an empty one ("") is refused at its line.
func Values(name string, dst *[]string) Sub {
	return Func(name, 1, Many, func(d *caddyfile.Dispenser, args []string) error {
		for i, a := range args {
			if a == "" {
				return d.Errf("%s: value %d is empty (\"\")", name, i+1)
			}
		}
		*dst = args
		return nil
	})
}

// Flag is a subdirective without arguments that sets dst.
func Flag(name string, dst *bool) Sub {
	return Func(name, 0, 0, func(*caddyfile.Dispenser, []string) error {
		*dst = true
		return nil
	})
}

// Duration is a subdirective of one positive duration.
func Duration(name string, dst *caddy.Duration) Sub {
	return Func(name, 1, 1, func(d *caddyfile.Dispenser, args []string) error {
		dur, err := ParseDuration(d, name, args[0])
		*dst = dur
		return err
	})
}

// ParseDuration reads s, the positive duration of subdirective name.
func ParseDuration(d *caddyfile.Dispenser, name, s string) (caddy.Duration, error) {
	dur, err := caddy.ParseDuration(s)
	if err != nil {
		return 0, d.Errf("%s %q: not a positive duration: %v", name, s, err)
	}
	if dur <= 0 {
		return 0, d.Errf("%s %q: not a positive duration (it must be positive, e.g. 30s)", name, s)
	}
	return caddy.Duration(dur), nil
}

// Int is a subdirective of one integer min..max.
func Int(name string, dst *int, min, max int) Sub {
	return Func(name, 1, 1, func(d *caddyfile.Dispenser, args []string) error {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < min || n > max {
			return d.Errf("%s %q must be a number %d..%d", name, args[0], min, max)
		}
		*dst = n
		return nil
	})
}

// Positive is a subdirective of one positive integer.
func Positive(name string, dst *int) Sub {
	return Func(name, 1, 1, func(d *caddyfile.Dispenser, args []string) error {
		n, err := strconv.Atoi(args[0])
		if err != nil || n <= 0 {
			return d.Errf("%s %q: not a positive number", name, args[0])
		}
		*dst = n
		return nil
	})
}

// Size is a subdirective of one size (64KiB, 1MB) from 1 byte to max,
// which maxText writes (e.g. 1MiB).
func Size(name string, dst *int64, max uint64, maxText string) Sub {
	return Func(name, 1, 1, func(d *caddyfile.Dispenser, args []string) error {
		size, err := humanize.ParseBytes(args[0])
		if err != nil || size == 0 || size > max {
			return d.Errf("%s %q: not a size from 1B to %s", name, args[0], maxText)
		}
		*dst = int64(size)
		return nil
	})
}

// MaxChanges is the max_changes subdirective every module that plans
// journeys on a timetable takes: the changes of train a journey may
// have, 0 (direct trains only) to max, set into *dst (nil: the module's
// default).
func MaxChanges(dst **int, max int) Sub {
	return Func("max_changes", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 || n > max {
			return d.Errf("max_changes %q: want 0 (direct trains only) to %d", args[0], max)
		}
		*dst = &n
		return nil
	})
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

// orList is "a, b or c".
func orList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, v := range s[1 : len(s)-1] {
		out += ", " + v
	}
	return out + " or " + s[len(s)-1]
}

// Timetable is the timetable subdirective every module that reads a GTFS
// feed takes: <gtfs.zip|folder> [stop_code|stop_id], the second argument
// the stops.txt column that holds the UIC codes.
func Timetable(file, column *string) Sub {
	return Func("timetable", 1, 2, func(d *caddyfile.Dispenser, args []string) error {
		*file = args[0]
		if len(args) == 2 {
			if args[1] != "stop_code" && args[1] != "stop_id" {
				return d.Errf("timetable: station code %q: want stop_code or stop_id (the stops.txt column holding UIC codes must be stop_code or stop_id)", args[1])
			}
			*column = args[1]
		}
		return nil
	})
}
