package sandbox

import "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

// entry is an entry of a repeatable subdirective that checks itself as
// the sandbox does: a foreign or external_inventory train, a timetable
// train.
type entry interface{ Validate() error }

// checkEntry refuses, at d's line, an entry that fails its Validate or
// whose key seen holds already ("<what> <key> already specified"), and
// adds key to seen.
func checkEntry(d *caddyfile.Dispenser, e entry, seen map[string]bool, what, key string) error {
	if err := e.Validate(); err != nil {
		return d.Errf("%v", err)
	}
	if seen[key] {
		return d.Errf("%s %s already specified", what, key)
	}
	seen[key] = true
	return nil
}
