package sandbox

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

// teapot is a sandbox that answers 418 to everything.
type teapot struct{}

func (*teapot) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusTeapot)
}

// A hold shares the sandbox of its key, gives its hold back once on
// Cleanup, and serves with the sandbox it holds.
func TestSandboxHoldTakesAndReleases(t *testing.T) {
	pool := modulekit.NewPool[*teapot](nil)
	built := 0
	build := func() (*teapot, error) { built++; return new(teapot), nil }
	var first, second, never sandboxHold[*teapot]
	if err := never.Cleanup(); err != nil {
		t.Fatalf("cleanup without a hold: %v", err)
	}
	if err := first.take(pool, "k", build); err != nil {
		t.Fatal(err)
	}
	if err := second.take(pool, "k", build); err != nil {
		t.Fatal(err)
	}
	if built != 1 || first.handler != second.handler {
		t.Fatalf("two holds of one key built %d sandboxes", built)
	}
	if n, ok := pool.References("k"); !ok || n != 2 {
		t.Fatalf("references %d %v, want 2", n, ok)
	}
	if err := first.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if n, ok := pool.References("k"); !ok || n != 1 {
		t.Fatalf("after one cleanup: references %d %v, want 1", n, ok)
	}
	if err := second.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, ok := pool.References("k"); ok {
		t.Fatal("the sandbox is held after both cleanups")
	}

	rec := httptest.NewRecorder()
	if err := first.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil), nil); err != nil || rec.Code != http.StatusTeapot {
		t.Errorf("served %d %v, want the sandbox's 418", rec.Code, err)
	}
}

// A sandbox that cannot be built leaves no hold to release.
func TestSandboxHoldBuildFails(t *testing.T) {
	pool := modulekit.NewPool[*teapot](nil)
	var h sandboxHold[*teapot]
	boom := errors.New("boom")
	if err := h.take(pool, "k", func() (*teapot, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("take: %v, want the build's error", err)
	}
	if h.pool != nil || h.poolKey != "" || h.handler != nil {
		t.Errorf("a failed take holds %+v", h)
	}
	if err := h.Cleanup(); err != nil {
		t.Errorf("cleanup after a failed take: %v", err)
	}
}
