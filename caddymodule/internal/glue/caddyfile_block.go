package glue

import (
	"fmt"
	"slices"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Every module's UnmarshalCaddyfile reads its block the same way: one
// subdirective a line, each at most once unless it is one of the few
// that add an entry (a tariff, a train), and a repeated one is an error
// at its line.

// Directive reads a directive that takes no arguments, then its block
// as Block does. It returns where the directive is written.
func Directive(d *caddyfile.Dispenser, repeatable []string, fn func(name string) error) (Place, error) {
	d.Next() // the directive name
	at := Place{Directive: d.Val(), File: d.File(), Line: d.Line()}
	if d.NextArg() {
		return at, d.ArgErr()
	}
	return at, Block(d, repeatable, fn)
}

// Place is where a directive is written, for the errors about its block
// as a whole (a required subdirective missing) that no one line is to
// blame for.
type Place struct {
	// Directive is the directive's name, e.g. osdm_access.
	Directive string
	// File and Line are where the directive's name is written.
	File string
	Line int
}

// Err is err about the directive's block, naming the directive and its
// place: "<directive>: <err>, at <file>:<line>"; nil when err is nil.
func (p Place) Err(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %v, at %s:%d", p.Directive, err, p.File, p.Line)
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
