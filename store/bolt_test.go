package store_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

func TestBoltSuite(t *testing.T) {
	storetest.RunOnTestClock(t, func(t *testing.T, now func() time.Time) store.Store {
		return openBolt(t, store.WithClock(now))
	})
}

func TestBoltSurvivesReopen(t *testing.T) {
	clock := testclock.New(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "sub", "dir", "s.db")
	s, err := store.OpenBolt(path, store.WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Put(ctx, "forever", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "hour", []byte("h"), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, filepath.Dir(path)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		want := os.FileMode(0o600)
		if fi.IsDir() {
			want = 0o700 | os.ModeDir
		}
		if fi.Mode() != want {
			t.Errorf("%s mode %v, want %v", p, fi.Mode(), want)
		}
	}
	clock.Advance(30 * time.Minute)
	s, err = store.OpenBolt(path, store.WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for k, want := range map[string]string{"forever": "v", "hour": "h"} {
		got, err := s.Get(ctx, k)
		if err != nil || string(got) != want {
			t.Fatalf("after reopen Get(%q) = %q, %v", k, got, err)
		}
	}
	// The expiry was stored with the value: it still holds after reopen.
	clock.Advance(31 * time.Minute)
	if _, err := s.Get(ctx, "hour"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired after reopen: %v", err)
	}
}

func TestBoltSweep(t *testing.T) {
	clock := testclock.New(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	s := openBolt(t, store.WithClock(clock.Now))
	ctx := context.Background()
	const expiring = 600 // more than one sweep batch
	for i := range expiring {
		if err := s.Put(ctx, "e/"+strconv.Itoa(i), []byte("v"), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 10 {
		if err := s.Put(ctx, "keep/"+strconv.Itoa(i), []byte("v"), 0); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Sweep(ctx); err != nil || n != 0 {
		t.Fatalf("Sweep before expiry = %d, %v", n, err)
	}
	clock.Advance(2 * time.Minute)
	n, err := s.Sweep(ctx)
	if err != nil || n != expiring {
		t.Fatalf("Sweep = %d, %v; want %d", n, err, expiring)
	}
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	// The expired keys are gone from the file, not only hidden: a backup
	// reopened on a clock before their expiry does not hold them.
	b := openEarly(t, buf.Bytes())
	count := 0
	if err := b.Scan(ctx, "", func(string, []byte) error { count++; return nil }); err != nil {
		t.Fatal(err)
	}
	if count != 10 {
		t.Fatalf("backup holds %d keys, want the 10 kept", count)
	}
}

func TestBoltSweepEvery(t *testing.T) {
	clock := testclock.New(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := store.OpenBolt(path, store.WithClock(clock.Now), store.WithSweepEvery(5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Put(ctx, "e", []byte("v"), time.Minute); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	// Seen from a clock that never moves, the key is there until the
	// background sweep deletes it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var buf bytes.Buffer
		if _, err := s.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if !containsKey(t, buf.Bytes(), "e") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("background sweep never deleted the expired key")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// containsKey opens a bolt backup on a clock before any expiry and says
// whether it holds key.
func containsKey(t *testing.T, file []byte, key string) bool {
	t.Helper()
	b := openEarly(t, file)
	defer b.Close() // polled in a loop: not left open until the test ends
	_, err := b.Get(context.Background(), key)
	return err == nil
}

// openEarly opens a copy of a bolt backup on a clock before any expiry,
// so that every key still in the file is live; it is closed when the test
// ends, if not before (Close may be called twice).
func openEarly(t *testing.T, file []byte) *store.Bolt {
	t.Helper()
	p := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(p, file, 0o600); err != nil {
		t.Fatal(err)
	}
	early := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	b, err := store.OpenBolt(p, store.WithClock(func() time.Time { return early }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func TestBoltLockedFileFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	holder := startHolder(t, path)
	defer holder()
	start := time.Now()
	_, err := store.OpenBolt(path, store.WithTimeout(200*time.Millisecond))
	if err == nil {
		t.Fatal("opened a file another process holds")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("error %q does not name the locked file", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("gave up after %v, want about the 200ms timeout", d)
	}
}

// openBolt opens a bolt store in a file of the test's own, closed when
// the test ends (a test may close it sooner).
func openBolt(t *testing.T, opts ...store.BoltOption) *store.Bolt {
	t.Helper()
	s, err := store.OpenBolt(filepath.Join(t.TempDir(), "s.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
