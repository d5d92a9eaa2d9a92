package harness

import (
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// BoltClosed says whether no pool holds path (pooled gives its
// references) and its lock is free: this process can open the file at
// once.
func BoltClosed(t testing.TB, path string, pooled func(path string) (int, bool)) bool {
	t.Helper()
	if n, ok := pooled(path); ok {
		t.Logf("%s still pooled (%d references)", path, n)
		return false
	}
	b, err := store.OpenBolt(path, store.WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Logf("reopening %s: %v", path, err)
		return false
	}
	b.Close()
	return true
}
