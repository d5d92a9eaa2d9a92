package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// A call made before the store is open waits for it, and goes on once it
// is.
func TestHandleWaitsForOpen(t *testing.T) {
	h := store.NewHandle("bolt test", time.Hour)
	if h.Ready() {
		t.Fatal("a new handle is ready")
	}
	got := make(chan error, 1)
	go func() {
		_, err := h.PutIfAbsent(context.Background(), "k", []byte("v"), 0)
		got <- err
	}()
	b, err := store.OpenBolt(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	h.Open(b)
	if err := <-got; err != nil {
		t.Fatalf("PutIfAbsent waiting for Open = %v", err)
	}
	if v, err := b.Get(context.Background(), "k"); err != nil || string(v) != "v" {
		t.Fatalf("the store has %q, %v after the waiting write", v, err)
	}
	if !h.Ready() {
		t.Fatal("an opened handle is not ready")
	}
}

// A store never opened fails each call after the handle's wait, or at
// its context's end, with ErrNotReady naming the store; never a nil store.
func TestHandleNotReady(t *testing.T) {
	h := store.NewHandle("redis 10.0.0.9:6379", time.Millisecond)
	_, err := h.Get(context.Background(), "k")
	if !errors.Is(err, store.ErrNotReady) || !strings.Contains(err.Error(), "redis 10.0.0.9:6379") {
		t.Fatalf("Get on a handle never opened = %v, want ErrNotReady naming the store", err)
	}
	h = store.NewHandle("bolt x", time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.Put(ctx, "k", nil, 0); !errors.Is(err, store.ErrNotReady) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with a done context = %v, want ErrNotReady and context.Canceled", err)
	}
}

// A store that failed to open fails every call with why, at once.
func TestHandleFail(t *testing.T) {
	h := store.NewHandle("bolt /x.db", time.Hour)
	h.Fail(errors.New("locked by another process"))
	h.Open(nil) // too late: the first outcome counts
	err := h.Scan(context.Background(), "", func(string, []byte) error { return nil })
	if !errors.Is(err, store.ErrNotReady) || !strings.Contains(err.Error(), "locked by another process") || !strings.Contains(err.Error(), "/x.db") {
		t.Fatalf("Scan on a failed handle = %v", err)
	}
	if h.Ready() {
		t.Fatal("a failed handle is ready")
	}
}

// A store whose opener is still trying to reach it says why on a call
// that times out, not that its configuration has not started.
func TestHandleWaitingSaysWhy(t *testing.T) {
	h := store.NewHandle("redis 127.0.0.1:1", time.Millisecond)
	h.Waiting(errors.New("dial tcp 127.0.0.1:1: connection refused"))
	_, err := h.Get(context.Background(), "k")
	if !errors.Is(err, store.ErrNotReady) {
		t.Fatalf("Get = %v, want ErrNotReady", err)
	}
	for _, want := range []string{"redis 127.0.0.1:1", "not reachable", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Get = %q, does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "has not started") {
		t.Errorf("Get = %q, says the configuration has not started", err)
	}
}
