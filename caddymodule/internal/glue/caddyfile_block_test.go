package glue

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestDirective: each subdirective reaches fn once in order, a repeatable
// one as often as written; the directive's own place is returned.
func TestDirective(t *testing.T) {
	d := caddyfile.NewTestDispenser("x {\n\ta 1\n\tb\n\ta 2\n}")
	var got []string
	at, err := Directive(d, []string{"a"}, func(name string) error {
		got = append(got, name+strings.Join(d.RemainingArgs(), ""))
		return nil
	})
	if err != nil || strings.Join(got, ",") != "a1,b,a2" {
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

// TestDirectiveRefuses: an argument on the directive line, a name given
// twice (at its own line, naming the owner in a nested block), and fn's
// error, which stops the walk.
func TestDirectiveRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x y {\n}", "wrong argument count"},
		{"x {\n\tb\n\tc\n\tb\n}", "b already specified, at Testfile:4"},
		{"x {\n\tfail\n\tb\n}", "failed"},
	} {
		var after []string
		_, err := Directive(caddyfile.NewTestDispenser(c.in), nil, func(name string) error {
			after = append(after, name)
			if name == "fail" {
				return errors.New("failed")
			}
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
		if slices.Contains(after, "b") && c.want == "failed" {
			t.Errorf("%q: the walk went on after an error: %v", c.in, after)
		}
	}
	d := caddyfile.NewTestDispenser("x {\n\tclient s {\n\t\tk\n\t\tk\n\t}\n}")
	_, err := Directive(d, nil, func(string) error {
		return BlockOf(d, `client "s"`, nil, func(string) error { return nil })
	})
	if err == nil || !strings.Contains(err.Error(), `client "s": k already specified, at Testfile:4`) {
		t.Errorf("nested: %v", err)
	}
}
