package harness

import (
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// BoltClosed says whether path's lock is free: this process can open the
// file at once (bbolt's lock is per open file, so a handle this process
// still held would make the open wait and fail).
func BoltClosed(t testing.TB, path string) bool {
	t.Helper()
	b, err := store.OpenBolt(path, store.WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Logf("reopening %s: %v", path, err)
		return false
	}
	b.Close()
	return true
}
