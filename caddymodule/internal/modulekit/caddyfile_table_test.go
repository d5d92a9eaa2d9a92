package modulekit

import (
	"errors"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// testTable records each line it reads: a takes one argument and may
// repeat, b none, many one or more, raw reads its line itself, fail
// always fails.
func testTable(got *[]string) Table {
	record := func(name string) func(*caddyfile.Dispenser, []string) error {
		return func(_ *caddyfile.Dispenser, args []string) error {
			*got = append(*got, name+strings.Join(args, ""))
			return nil
		}
	}
	return Table{Subs: []Sub{
		Entry("a", 1, 1, record("a")),
		Func("b", 0, 0, record("b")),
		Func("many", 1, Many, record("many")),
		{Name: "raw", Raw: true, Parse: func(d *caddyfile.Dispenser, _ []string) error {
			*got = append(*got, "raw@"+d.Val())
			d.RemainingArgs()
			return nil
		}},
		Func("fail", 0, 0, func(d *caddyfile.Dispenser, _ []string) error { return d.Err("failed") }),
	}, Renamed: map[string]string{"old": "b"}}
}

// TestTableDirective: each subdirective reaches its parser once in
// order with its arguments, a repeatable one as often as written; the
// directive's own place is returned.
func TestTableDirective(t *testing.T) {
	var got []string
	d := caddyfile.NewTestDispenser("x {\n\ta 1\n\tb\n\ta 2\n\tmany 1 2 3\n\traw 9\n}")
	at, err := testTable(&got).Directive(d)
	if err != nil || strings.Join(got, ",") != "a1,b,a2,many123,raw@raw" {
		t.Fatalf("%v, %v", got, err)
	}
	if want := (Place{Directive: "x", File: "Testfile", Line: 1}); at != want {
		t.Errorf("place %+v, want %+v", at, want)
	}
	if err := at.Err(errors.New("y is required")); err == nil || err.Error() != "x: y is required, at Testfile:1" {
		t.Errorf("block error %v", err)
	}
	if at.Err(nil) != nil {
		t.Error("no error made one")
	}
}

// TestTableRefuses: an argument on the directive line, a name given
// twice, a wrong argument count, an unknown or renamed name (each at its
// own line), and a parser's error, which stops the walk.
func TestTableRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x y {\n}", "wrong argument count"},
		{"x {\n\tb\n\ta 1\n\tb\n}", "b already specified, at Testfile:4"},
		{"x {\n\ta\n}", "a: wrong number of arguments (0), want 1: wrong argument count or unexpected line ending after 'a', at Testfile:2"},
		{"x {\n\tb 1\n}", "b: wrong number of arguments (1), want 0"},
		{"x {\n\tmany\n}", "many: wrong number of arguments (0), want 1 or more"},
		{"x {\n\tmanny\n}", `unrecognized subdirective "manny"; did you mean "many"?, at Testfile:2`},
		{"x {\n\tzzzzzzzz\n}", `unrecognized subdirective "zzzzzzzz" (known: a, b, many, raw, fail), at Testfile:2`},
		{"x {\n\told 1\n}", `subdirective "old" is no longer read: it is now b, at Testfile:2`},
		{"x {\n\tfail\n\tb\n}", "failed, at Testfile:2"},
	} {
		var got []string
		_, err := testTable(&got).Directive(caddyfile.NewTestDispenser(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
		if c.want == "failed, at Testfile:2" && len(got) > 0 {
			t.Errorf("%q: the walk went on after an error: %v", c.in, got)
		}
	}
	// In a nested block, errors name the block's owner.
	d := caddyfile.NewTestDispenser("x {\n\tclient s {\n\t\tk\n\t\tk\n\t}\n}")
	inner := Table{What: "client subdirective", Subs: []Sub{Func("k", 0, 0, func(*caddyfile.Dispenser, []string) error { return nil })}}
	outer := Table{Subs: []Sub{Func("client", 1, 1, func(d *caddyfile.Dispenser, _ []string) error { return inner.Block(d, `client "s"`) })}}
	if _, err := outer.Directive(d); err == nil || !strings.Contains(err.Error(), `client "s": k already specified, at Testfile:4`) {
		t.Errorf("nested: %v", err)
	}
	d = caddyfile.NewTestDispenser("x {\n\tclient s {\n\t\tkk\n\t}\n}")
	if _, err := outer.Directive(d); err == nil || !strings.Contains(err.Error(), `client "s": unrecognized client subdirective "kk"`) {
		t.Errorf("nested unknown: %v", err)
	}
}
