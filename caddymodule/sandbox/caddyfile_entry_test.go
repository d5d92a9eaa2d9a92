package sandbox

import (
	"errors"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// checked is an entry whose Validate returns err.
type checked struct{ err error }

func (c checked) Validate() error { return c.err }

// An entry is refused at its line when it fails its check or repeats a
// key; a good one is remembered.
func TestCheckEntry(t *testing.T) {
	d := caddyfile.NewTestDispenser("train 1\ntrain 1\ntrain 2")
	seen := map[string]bool{}
	check := func(e entry) error {
		d.Next() // the subdirective's name
		return checkEntry(d, e, seen, "train", d.RemainingArgs()[0])
	}
	if err := check(checked{}); err != nil {
		t.Fatalf("a first entry: %v", err)
	}
	if err := check(checked{}); err == nil || !strings.Contains(err.Error(), "train 1 already specified, at Testfile:2") {
		t.Errorf("a repeated key: %v", err)
	}
	if err := check(checked{errors.New("bad train")}); err == nil || !strings.Contains(err.Error(), "bad train, at Testfile:3") {
		t.Errorf("an entry that fails its check: %v", err)
	}
	if !seen["1"] || seen["2"] {
		t.Errorf("seen %v, want train 1 only", seen)
	}
}
