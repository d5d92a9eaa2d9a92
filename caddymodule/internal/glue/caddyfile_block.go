package glue

import (
	"slices"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Every module's UnmarshalCaddyfile reads its block the same way: one
// subdirective a line, each at most once unless it is one of the few
// that add an entry (a tariff, a train), and a repeated one is an error
// at its line.

// Directive reads a directive that takes no arguments, then its block
// as Block does. file and line are where the directive is written, for
// the errors about the block as a whole (a required subdirective
// missing) that no one line is to blame for.
func Directive(d *caddyfile.Dispenser, repeatable []string, fn func(name string) error) (file string, line int, err error) {
	d.Next() // the directive name
	file, line = d.File(), d.Line()
	if d.NextArg() {
		return file, line, d.ArgErr()
	}
	return file, line, Block(d, repeatable, fn)
}

// Block calls fn for each subdirective of the block that opens after
// d's current token, with d at the subdirective's name, and stops at the
// first error. A name given twice is "<name> already specified" unless it
// is in repeatable.
func Block(d *caddyfile.Dispenser, repeatable []string, fn func(name string) error) error {
	return BlockOf(d, "", repeatable, fn)
}

// BlockOf is Block for a block inside another, whose errors name the
// entry they are about: a name given twice is
// "<owner>: <name> already specified".
func BlockOf(d *caddyfile.Dispenser, owner string, repeatable []string, fn func(name string) error) error {
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		if seen[name] && !slices.Contains(repeatable, name) {
			if owner != "" {
				return d.Errf("%s: %s already specified", owner, name)
			}
			return d.Errf("%s already specified", name)
		}
		seen[name] = true
		if err := fn(name); err != nil {
			return err
		}
	}
	return nil
}
