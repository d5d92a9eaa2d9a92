package sandbox

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

// entry is an entry of a repeatable subdirective that checks itself as
// the sandbox does: a foreign or external_inventory train, a timetable
// train.
type entry interface{ Validate() error }

// checkEntry refuses, at d's line, an entry that fails its Validate or
// whose key seen (not nil) holds already ("<what> <key> already
// specified", modulekit.PutOnce), and adds key to seen.
func checkEntry(d *caddyfile.Dispenser, e entry, seen map[string]bool, what, key string) error {
	if err := e.Validate(); err != nil {
		return d.Errf("%v", err)
	}
	if err := modulekit.PutOnce(&seen, what, key, true); err != nil {
		return d.Errf("%v", err)
	}
	return nil
}
