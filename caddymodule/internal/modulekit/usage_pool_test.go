package modulekit

import (
	"errors"
	"testing"
)

// TestPoolHolds: a second Take finds the first value; the last hold
// given back frees it, once; no key is no hold.
func TestPoolHolds(t *testing.T) {
	freed := 0
	pool := NewPool(func(v *int) error { freed += *v; return nil })
	made := 0
	build := func() (*int, error) { made++; v := 7; return &v, nil }
	a, loaded, err := pool.Take("k", build)
	if err != nil || loaded {
		t.Fatalf("first Take: loaded %v, %v", loaded, err)
	}
	b, loaded, err := pool.Take("k", build)
	if err != nil || !loaded || a != b || made != 1 {
		t.Fatalf("second Take: loaded %v, same %v, made %d, %v", loaded, a == b, made, err)
	}
	if n, ok := pool.References("k"); !ok || n != 2 {
		t.Fatalf("references %d %v, want 2", n, ok)
	}
	if err := pool.Release(""); err != nil {
		t.Fatal(err)
	}
	if err := pool.Release("k"); err != nil || freed != 0 {
		t.Fatalf("first of two holds given back: %v, freed %d", err, freed)
	}
	if err := pool.Release("k"); err != nil || freed != 7 {
		t.Fatalf("last hold given back: %v, freed %d", err, freed)
	}
	if _, ok := pool.References("k"); ok {
		t.Fatal("value still pooled")
	}
}

// TestPoolMakeFails: a value that cannot be made is not pooled, and the
// next Take makes it again.
func TestPoolMakeFails(t *testing.T) {
	pool := NewPool[string](nil)
	boom := errors.New("boom")
	if _, _, err := pool.Take("k", func() (string, error) { return "", boom }); !errors.Is(err, boom) {
		t.Fatalf("Take: %v, want boom", err)
	}
	if _, ok := pool.References("k"); ok {
		t.Fatal("failed value pooled")
	}
	v, loaded, err := pool.Take("k", func() (string, error) { return "made", nil })
	if err != nil || loaded || v != "made" {
		t.Fatalf("Take after failure: %q loaded %v, %v", v, loaded, err)
	}
	seen := []string{}
	pool.Range(func(s string) bool { seen = append(seen, s); return true })
	if len(seen) != 1 || seen[0] != "made" {
		t.Fatalf("Range saw %v", seen)
	}
}
