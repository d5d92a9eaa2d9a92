package glue

import (
	"testing"

	"github.com/caddyserver/caddy/v2"
)

type destructed struct{ done *bool }

func (d destructed) Destruct() error { *d.done = true; return nil }

// TestRelease: the last hold given back destroys the value; no key is
// no hold.
func TestRelease(t *testing.T) {
	pool := caddy.NewUsagePool()
	done := false
	for range 2 {
		if _, _, err := pool.LoadOrNew("k", func() (caddy.Destructor, error) { return destructed{&done}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := Release(pool, ""); err != nil {
		t.Fatal(err)
	}
	if err := Release(pool, "k"); err != nil || done {
		t.Fatalf("first of two holds given back: %v, destroyed %v", err, done)
	}
	if err := Release(pool, "k"); err != nil || !done {
		t.Fatalf("last hold given back: %v, destroyed %v", err, done)
	}
}
