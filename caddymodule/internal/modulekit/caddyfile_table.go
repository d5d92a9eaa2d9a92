package modulekit

import (
	"fmt"
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Every module's UnmarshalCaddyfile reads its block from a Table: each
// subdirective's name is written once, with how many arguments it takes
// and how it reads them, so that the arity check, the "already
// specified" of a repeated line and the "did you mean" of a typo are the
// same everywhere and the names offered are the names taken.

// Many is Sub.Max for a subdirective that takes any number of arguments.
const Many = -1

// Sub is one subdirective of a block.
type Sub struct {
	// Name is the subdirective's name.
	Name string
	// Min and Max bound its arguments on its line (Max Many: no bound).
	Min, Max int
	// Repeatable lets it be given more than once (an entry a line: a
	// tariff, a train).
	Repeatable bool
	// Raw leaves the line to Parse: it gets d at the name and no
	// arguments, Min and Max are not checked (a subdirective read by
	// another module's parser).
	Raw bool
	// Parse reads the arguments. d is at the line's last token, so
	// that d.Errf names the line; a nested block follows, if any.
	Parse func(d *caddyfile.Dispenser, args []string) error
}

// Table is the subdirectives of a block, in the order the syntax lists
// them (the order the "known:" list of an unknown name gives).
type Table struct {
	// What a name of this block is called in the error about an unknown
	// one: subdirective when empty.
	What string
	// Subs are the block's subdirectives.
	Subs []Sub
	// Renamed maps a name no longer read to the one that replaced it,
	// for an error that says what to write instead.
	Renamed map[string]string
}

// Names are the subdirectives' names, in order.
func (t Table) Names() []string {
	names := make([]string, len(t.Subs))
	for i, s := range t.Subs {
		names[i] = s.Name
	}
	return names
}

// Directive reads a directive that takes no arguments, then its block
// as Block does. It returns where the directive is written.
func (t Table) Directive(d *caddyfile.Dispenser) (Place, error) {
	d.Next() // the directive name
	at := Place{Directive: d.Val(), File: d.File(), Line: d.Line()}
	if d.NextArg() {
		return at, d.ArgErr()
	}
	return at, t.Block(d, "")
}

// Unmarshal reads the directive d is at with t (Directive), then checks
// the whole block with validate, so that an error no one line states
// still names the Caddyfile and the directive's line.
func (t Table) Unmarshal(d *caddyfile.Dispenser, validate func() error) error {
	at, err := t.Directive(d)
	if err != nil {
		return err
	}
	return at.Err(validate())
}

// Block reads the block that opens after d's current token, one
// subdirective a line, and stops at the first error. Errors about a
// line name the line; those of a block inside another start with owner
// (e.g. `client "a"`): "<owner>: <name> already specified".
func (t Table) Block(d *caddyfile.Dispenser, owner string) error {
	prefix := ""
	if owner != "" {
		prefix = owner + ": "
	}
	what := t.What
	if what == "" {
		what = "subdirective"
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		sub, ok := t.find(name)
		if newName, renamed := t.Renamed[name]; !ok && renamed {
			return d.Errf("%s%s %q is no longer read: it is now %s", prefix, what, name, newName)
		}
		if !ok {
			return d.Err(prefix + UnknownSubdirective(what, name, t.Names()))
		}
		if seen[name] && !sub.Repeatable {
			return d.Errf("%s%s already specified", prefix, name)
		}
		seen[name] = true
		if err := sub.read(d, prefix); err != nil {
			return err
		}
	}
	return nil
}

// find is the subdirective named name.
func (t Table) find(name string) (Sub, bool) {
	for _, s := range t.Subs {
		if s.Name == name {
			return s, true
		}
	}
	return Sub{}, false
}

// read reads s's line at d.
func (s Sub) read(d *caddyfile.Dispenser, prefix string) error {
	if s.Raw {
		return s.Parse(d, nil)
	}
	args := d.RemainingArgs()
	if len(args) < s.Min || s.Max != Many && len(args) > s.Max {
		return fmt.Errorf("%s%s: wrong number of arguments (%d), want %s: %w", prefix, s.Name, len(args), s.arity(), d.ArgErr())
	}
	return s.Parse(d, args)
}

// arity says how many arguments s takes.
func (s Sub) arity() string {
	switch {
	case s.Max == Many:
		return strconv.Itoa(s.Min) + " or more"
	case s.Min == s.Max:
		return strconv.Itoa(s.Min)
	}
	return strconv.Itoa(s.Min) + " to " + strconv.Itoa(s.Max)
}

// Place is where a directive is written, for the errors about its block
// as a whole (a required subdirective missing) that no one line is to
// blame for.
type Place struct {
	// Directive is the directive's name, e.g. osdm_access.
	Directive string
	// File and Line are where the directive's name is written.
	File string
	// Line is the line of File.
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
