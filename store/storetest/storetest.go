// Package storetest is the one test suite every store.Store implementation
// passes: each method, expiry, atomic conditional writes under races, scan
// by prefix (glob characters included) and values that are never aliased.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// Clock says how the suite moves the time a store's expiry is measured on.
type Clock struct {
	// TTL is the expiry the suite gives values it wants to see expire:
	// an hour for a store on a test clock, some milliseconds for Redis.
	TTL time.Duration
	// Advance moves the store's time by d (a test clock is moved; Redis's
	// clock cannot be, so it sleeps).
	Advance func(d time.Duration)
}

// RunOnTestClock runs the suite on a store that measures expiry on a test
// clock the suite moves: newStore returns an empty store whose time is
// now.
func RunOnTestClock(t *testing.T, newStore func(t *testing.T, now func() time.Time) store.Store) {
	t.Helper()
	clock := testclock.New(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	Run(t, func(t *testing.T) store.Store { return newStore(t, clock.Now) },
		Clock{TTL: time.Hour, Advance: clock.Advance})
}

// Run runs the suite. newStore returns an empty store (the suite closes
// it); every store it returns measures expiry on clock.
func Run(t *testing.T, newStore func(t *testing.T) store.Store, clock Clock) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store, c Clock)
	}{
		{"GetMissing", testGetMissing},
		{"PutGet", testPutGet},
		{"PutOverwrites", testPutOverwrites},
		{"PutIfAbsent", testPutIfAbsent},
		{"CompareAndSet", testCompareAndSet},
		{"Delete", testDelete},
		{"CompareAndDelete", testCompareAndDelete},
		{"Expiry", testExpiry},
		{"ExpiryKeepsLongerLives", testExpiryMixed},
		{"PutIfAbsentRace", testPutIfAbsentRace},
		{"CompareAndSetRace", testCASRace},
		{"CompareAndSetCounter", testCASCounter},
		{"CompareAndDeleteRace", testCADRace},
		{"CompareAndDeleteKeepsARewrite", testCADRewrite},
		{"Scan", testScan},
		{"ScanGlobPrefix", testScanGlob},
		{"ScanStopsAtError", testScanStops},
		{"ScanCallbackMayWrite", testScanWrites},
		{"ScanManyKeys", testScanMany},
		{"NotAliased", testNotAliased},
		{"EmptyValue", testEmptyValue},
		{"BadInput", testBadInput},
		{"PrefixedView", testPrefixed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, s, clock)
		})
	}
}

var ctx = context.Background()

func mustGet(t *testing.T, s store.Store, key, want string) {
	t.Helper()
	got, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get(%q): %v, want %q", key, err, want)
	}
	if string(got) != want {
		t.Fatalf("Get(%q) = %q, want %q", key, got, want)
	}
}

func mustMiss(t *testing.T, s store.Store, key string) {
	t.Helper()
	got, err := s.Get(ctx, key)
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get(%q) = %q, %v; want ErrNotFound", key, got, err)
	}
}

func mustPut(t *testing.T, s store.Store, key, value string, ttl time.Duration) {
	t.Helper()
	if err := s.Put(ctx, key, []byte(value), ttl); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func scanAll(t *testing.T, s store.Store, prefix string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := s.Scan(ctx, prefix, func(k string, v []byte) error {
		if _, dup := got[k]; dup {
			return fmt.Errorf("key %q reported twice", k)
		}
		got[k] = string(v)
		return nil
	})
	if err != nil {
		t.Fatalf("Scan(%q): %v", prefix, err)
	}
	return got
}

func testGetMissing(t *testing.T, s store.Store, _ Clock) {
	mustMiss(t, s, "nothing/here")
}

func testPutGet(t *testing.T, s store.Store, _ Clock) {
	mustPut(t, s, "a", "one", 0)
	mustPut(t, s, "b", "two", time.Hour)
	mustGet(t, s, "a", "one")
	mustGet(t, s, "b", "two")
	bin := []byte{0, 1, 2, 0xff, 0, '\n'}
	if err := s.Put(ctx, "bin", bin, 0); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, "bin")
	if err != nil || !bytes.Equal(got, bin) {
		t.Fatalf("binary value: %x, %v", got, err)
	}
}

func testPutOverwrites(t *testing.T, s store.Store, _ Clock) {
	mustPut(t, s, "k", "first", 0)
	mustPut(t, s, "k", "second", 0)
	mustGet(t, s, "k", "second")
}

func testPutIfAbsent(t *testing.T, s store.Store, _ Clock) {
	ok, err := s.PutIfAbsent(ctx, "k", []byte("first"), 0)
	if err != nil || !ok {
		t.Fatalf("first PutIfAbsent = %v, %v; want true", ok, err)
	}
	ok, err = s.PutIfAbsent(ctx, "k", []byte("second"), 0)
	if err != nil || ok {
		t.Fatalf("second PutIfAbsent = %v, %v; want false", ok, err)
	}
	mustGet(t, s, "k", "first")
	if err := s.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	ok, err = s.PutIfAbsent(ctx, "k", []byte("third"), 0)
	if err != nil || !ok {
		t.Fatalf("PutIfAbsent after Delete = %v, %v; want true", ok, err)
	}
	mustGet(t, s, "k", "third")
}

func testCompareAndSet(t *testing.T, s store.Store, _ Clock) {
	ok, err := s.CompareAndSet(ctx, "k", []byte("x"), []byte("y"), 0)
	if err != nil || ok {
		t.Fatalf("CAS on a missing key = %v, %v; want false", ok, err)
	}
	mustMiss(t, s, "k")
	mustPut(t, s, "k", "v1", 0)
	ok, err = s.CompareAndSet(ctx, "k", []byte("wrong"), []byte("v2"), 0)
	if err != nil || ok {
		t.Fatalf("CAS with a wrong old = %v, %v; want false", ok, err)
	}
	mustGet(t, s, "k", "v1")
	ok, err = s.CompareAndSet(ctx, "k", []byte("v1"), []byte("v2"), 0)
	if err != nil || !ok {
		t.Fatalf("CAS with the right old = %v, %v; want true", ok, err)
	}
	mustGet(t, s, "k", "v2")
	// A prefix of the value is not the value.
	ok, err = s.CompareAndSet(ctx, "k", []byte("v"), []byte("v3"), 0)
	if err != nil || ok {
		t.Fatalf("CAS with a prefix of the value = %v, %v; want false", ok, err)
	}
	mustGet(t, s, "k", "v2")
}

func testDelete(t *testing.T, s store.Store, _ Clock) {
	mustPut(t, s, "k", "v", 0)
	mustPut(t, s, "k2", "v", 0)
	if err := s.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, s, "k")
	mustGet(t, s, "k2", "v")
	if err := s.Delete(ctx, "k"); err != nil {
		t.Fatalf("Delete of a missing key: %v", err)
	}
}

func testCompareAndDelete(t *testing.T, s store.Store, _ Clock) {
	ok, err := s.CompareAndDelete(ctx, "k", []byte("v"))
	if err != nil || ok {
		t.Fatalf("CompareAndDelete of a missing key = %v, %v; want false", ok, err)
	}
	mustPut(t, s, "k", "v1", 0)
	mustPut(t, s, "k2", "v1", 0)
	for _, old := range []string{"wrong", "v", "v1x", ""} {
		ok, err = s.CompareAndDelete(ctx, "k", []byte(old))
		if err != nil || ok {
			t.Fatalf("CompareAndDelete with old %q = %v, %v; want false", old, ok, err)
		}
		mustGet(t, s, "k", "v1")
	}
	ok, err = s.CompareAndDelete(ctx, "k", []byte("v1"))
	if err != nil || !ok {
		t.Fatalf("CompareAndDelete with the right old = %v, %v; want true", ok, err)
	}
	mustMiss(t, s, "k")
	mustGet(t, s, "k2", "v1")
	ok, err = s.CompareAndDelete(ctx, "k", []byte("v1"))
	if err != nil || ok {
		t.Fatalf("CompareAndDelete again = %v, %v; want false", ok, err)
	}
	// The key is free again, as after Delete.
	if ok, err := s.PutIfAbsent(ctx, "k", []byte("v2"), 0); err != nil || !ok {
		t.Fatalf("PutIfAbsent after CompareAndDelete = %v, %v", ok, err)
	}
	mustGet(t, s, "k", "v2")
}

func testExpiry(t *testing.T, s store.Store, c Clock) {
	mustPut(t, s, "e/put", "v", c.TTL)
	if ok, err := s.PutIfAbsent(ctx, "e/pia", []byte("v"), c.TTL); !ok || err != nil {
		t.Fatalf("PutIfAbsent: %v %v", ok, err)
	}
	mustPut(t, s, "e/cas", "v0", 0)
	if ok, err := s.CompareAndSet(ctx, "e/cas", []byte("v0"), []byte("v1"), c.TTL); !ok || err != nil {
		t.Fatalf("CAS: %v %v", ok, err)
	}
	mustGet(t, s, "e/put", "v")
	mustGet(t, s, "e/cas", "v1")
	c.Advance(c.TTL + c.TTL/2)
	for _, k := range []string{"e/put", "e/pia", "e/cas"} {
		mustMiss(t, s, k)
	}
	if got := scanAll(t, s, "e/"); len(got) != 0 {
		t.Fatalf("Scan after expiry = %v, want nothing", got)
	}
	// Expired counts as absent for the conditional writes too.
	ok, err := s.CompareAndSet(ctx, "e/put", []byte("v"), []byte("again"), 0)
	if err != nil || ok {
		t.Fatalf("CAS on an expired value = %v, %v; want false", ok, err)
	}
	ok, err = s.CompareAndDelete(ctx, "e/cas", []byte("v1"))
	if err != nil || ok {
		t.Fatalf("CompareAndDelete of an expired value = %v, %v; want false", ok, err)
	}
	ok, err = s.PutIfAbsent(ctx, "e/pia", []byte("again"), 0)
	if err != nil || !ok {
		t.Fatalf("PutIfAbsent over an expired value = %v, %v; want true", ok, err)
	}
	mustGet(t, s, "e/pia", "again")
	// A value with a ttl, still live, is deleted by its bytes alone.
	mustPut(t, s, "e/cad", "v", c.TTL)
	if ok, err := s.CompareAndDelete(ctx, "e/cad", []byte("v")); err != nil || !ok {
		t.Fatalf("CompareAndDelete of a live value with a ttl = %v, %v; want true", ok, err)
	}
	mustMiss(t, s, "e/cad")
}

func testExpiryMixed(t *testing.T, s store.Store, c Clock) {
	mustPut(t, s, "short", "v", c.TTL)
	mustPut(t, s, "long", "v", 100*c.TTL)
	mustPut(t, s, "never", "v", 0)
	// Put without ttl over a value with one makes it permanent.
	mustPut(t, s, "renewed", "v", c.TTL)
	mustPut(t, s, "renewed", "w", 0)
	c.Advance(2 * c.TTL)
	mustMiss(t, s, "short")
	mustGet(t, s, "long", "v")
	mustGet(t, s, "never", "v")
	mustGet(t, s, "renewed", "w")
}

func testPutIfAbsentRace(t *testing.T, s store.Store, _ Clock) {
	winner := oneWinner(t, "PutIfAbsent", func(i int) (bool, error) {
		return s.PutIfAbsent(ctx, "race", fmt.Appendf(nil, "g%d", i), 0)
	})
	mustGet(t, s, "race", fmt.Sprintf("g%d", winner))
}

func testCASRace(t *testing.T, s store.Store, _ Clock) {
	mustPut(t, s, "race", "start", 0)
	winner := oneWinner(t, "CompareAndSet", func(i int) (bool, error) {
		return s.CompareAndSet(ctx, "race", []byte("start"), fmt.Appendf(nil, "g%d", i), 0)
	})
	mustGet(t, s, "race", fmt.Sprintf("g%d", winner))
}

func testCADRace(t *testing.T, s store.Store, _ Clock) {
	mustPut(t, s, "race", "start", 0)
	oneWinner(t, "CompareAndDelete", func(int) (bool, error) {
		return s.CompareAndDelete(ctx, "race", []byte("start"))
	})
	mustMiss(t, s, "race")
}

// testCADRewrite races deleters of the value they read against writers
// of new values: a value written after a deleter read is never deleted
// by it, so the last value written survives unless a deleter read that
// very value.
func testCADRewrite(t *testing.T, s store.Store, _ Clock) {
	const rounds = 40
	for i := range rounds {
		mustPut(t, s, "mark", fmt.Sprintf("old%d", i), 0)
		read, err := s.Get(ctx, "mark")
		if err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		var deleted bool
		var derr error
		fresh := fmt.Sprintf("new%d", i)
		wg.Go(func() {
			<-start
			deleted, derr = s.CompareAndDelete(ctx, "mark", read)
		})
		wg.Go(func() {
			<-start
			if err := s.Put(ctx, "mark", []byte(fresh), 0); err != nil {
				t.Error(err)
			}
		})
		close(start)
		wg.Wait()
		if derr != nil {
			t.Fatal(derr)
		}
		got, err := s.Get(ctx, "mark")
		switch {
		case errors.Is(err, store.ErrNotFound):
			t.Fatalf("round %d: the value written over the one read was deleted (deleted=%v)", i, deleted)
		case err != nil:
			t.Fatal(err)
		case string(got) != fresh:
			t.Fatalf("round %d: %q left, want %q", i, got, fresh)
		}
	}
}

// oneWinner starts 32 goroutines at once, each calling write with its
// number, fails unless exactly one write reports success, and returns the
// winner's number.
func oneWinner(t *testing.T, what string, write func(i int) (bool, error)) int32 {
	t.Helper()
	const n = 32
	var wins atomic.Int32
	var winner atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			ok, err := write(i)
			if err != nil {
				errs <- err
				return
			}
			if ok {
				wins.Add(1)
				winner.Store(int32(i))
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if wins.Load() != 1 {
		t.Fatalf("%d %s winners, want exactly 1", wins.Load(), what)
	}
	return winner.Load()
}

// testCASCounter increments a counter by read-then-CAS loops from many
// goroutines: a lost update would leave it short.
func testCASCounter(t *testing.T, s store.Store, _ Clock) {
	mustPut(t, s, "counter", "0", 0)
	const workers, each = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range each {
				for {
					cur, err := s.Get(ctx, "counter")
					if err != nil {
						errs <- err
						return
					}
					var n int
					fmt.Sscan(string(cur), &n)
					ok, err := s.CompareAndSet(ctx, "counter", cur, fmt.Append(nil, n+1), 0)
					if err != nil {
						errs <- err
						return
					}
					if ok {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustGet(t, s, "counter", fmt.Sprint(workers*each))
}

func testScan(t *testing.T, s store.Store, c Clock) {
	want := map[string]string{"p/a": "1", "p/b": "2", "p/c/d": "3"}
	for k, v := range want {
		mustPut(t, s, k, v, 0)
	}
	mustPut(t, s, "q/a", "x", 0)
	mustPut(t, s, "p", "bare", 0)
	mustPut(t, s, "p/expired", "x", c.TTL)
	mustPut(t, s, "o/zzz", "x", 0)
	c.Advance(2 * c.TTL)
	got := scanAll(t, s, "p/")
	if !maps.Equal(got, want) {
		t.Fatalf("Scan(p/) = %v, want %v", got, want)
	}
	all := scanAll(t, s, "")
	if len(all) != 6 || all["p"] != "bare" || all["q/a"] != "x" {
		t.Fatalf("Scan(\"\") = %v, want the 6 live keys", all)
	}
	if got := scanAll(t, s, "none/"); len(got) != 0 {
		t.Fatalf("Scan(none/) = %v", got)
	}
}

// testScanGlob: a prefix holding Redis glob characters matches only the
// keys that start with it literally.
func testScanGlob(t *testing.T, s store.Store, _ Clock) {
	keys := []string{
		"a*b/1", "a*b/2", "axb/1", "ab/1",
		"a?c/1", "abc/1",
		"a[1]/x", "a1/x", "a]/x",
		`a\d/1`, "ad/1", `a\\d/1`,
		"a^-/1", "a-/1",
	}
	for _, k := range keys {
		mustPut(t, s, k, k, 0)
	}
	cases := map[string][]string{
		"a*b/":  {"a*b/1", "a*b/2"},
		"a?c/":  {"a?c/1"},
		"a[1]/": {"a[1]/x"},
		"a]":    {"a]/x"},
		`a\d`:   {`a\d/1`},
		`a\\`:   {`a\\d/1`},
		"a^-":   {"a^-/1"},
		"a-":    {"a-/1"},
	}
	for prefix, want := range cases {
		got := scanAll(t, s, prefix)
		var gotKeys []string
		for k, v := range got {
			if v != k {
				t.Errorf("Scan(%q): %q holds %q", prefix, k, v)
			}
			gotKeys = append(gotKeys, k)
		}
		sort.Strings(gotKeys)
		if !slices.Equal(gotKeys, want) {
			t.Errorf("Scan(%q) = %q, want %q", prefix, gotKeys, want)
		}
	}
}

func testScanStops(t *testing.T, s store.Store, _ Clock) {
	for i := range 10 {
		mustPut(t, s, fmt.Sprintf("s/%d", i), "v", 0)
	}
	stop := errors.New("enough")
	calls := 0
	err := s.Scan(ctx, "s/", func(string, []byte) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Scan = %v, want fn's error", err)
	}
	if calls != 3 {
		t.Fatalf("fn called %d times after it failed at 3", calls)
	}
}

// testScanWrites: fn may write to the store (no deadlock, no lost key).
func testScanWrites(t *testing.T, s store.Store, _ Clock) {
	for i := range 20 {
		mustPut(t, s, fmt.Sprintf("w/%02d", i), "old", 0)
	}
	err := s.Scan(ctx, "w/", func(k string, v []byte) error {
		ok, err := s.CompareAndSet(ctx, k, v, []byte("new"), 0)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("CAS of %q during Scan refused", k)
		}
		return s.Put(ctx, "done/"+k, nil, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, s, "w/")
	if len(got) != 20 {
		t.Fatalf("%d keys after Scan, want 20", len(got))
	}
	for k, v := range got {
		if v != "new" {
			t.Fatalf("%q = %q after Scan", k, v)
		}
	}
	if n := len(scanAll(t, s, "done/")); n != 20 {
		t.Fatalf("%d done keys", n)
	}
}

// testScanMany crosses page and batch sizes.
func testScanMany(t *testing.T, s store.Store, _ Clock) {
	const n = 1100
	for i := range n {
		mustPut(t, s, fmt.Sprintf("m/%05d", i), fmt.Sprint(i), 0)
	}
	mustPut(t, s, "m0", "outside", 0)
	got := scanAll(t, s, "m/")
	if len(got) != n {
		t.Fatalf("Scan found %d keys, want %d", len(got), n)
	}
	for i := range n {
		if got[fmt.Sprintf("m/%05d", i)] != fmt.Sprint(i) {
			t.Fatalf("key %d missing or wrong", i)
		}
	}
}

func testNotAliased(t *testing.T, s store.Store, _ Clock) {
	in := []byte("original")
	if err := s.Put(ctx, "k", in, 0); err != nil {
		t.Fatal(err)
	}
	copy(in, "XXXXXXXX")
	mustGet(t, s, "k", "original")
	got, _ := s.Get(ctx, "k")
	copy(got, "YYYYYYYY")
	mustGet(t, s, "k", "original")

	pin := []byte("pia")
	if _, err := s.PutIfAbsent(ctx, "p", pin, 0); err != nil {
		t.Fatal(err)
	}
	copy(pin, "ZZZ")
	mustGet(t, s, "p", "pia")

	cin := []byte("cas")
	if _, err := s.CompareAndSet(ctx, "p", []byte("pia"), cin, 0); err != nil {
		t.Fatal(err)
	}
	copy(cin, "ZZZ")
	mustGet(t, s, "p", "cas")

	var kept [][]byte
	if err := s.Scan(ctx, "", func(_ string, v []byte) error {
		kept = append(kept, v)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, v := range kept {
		for i := range v {
			v[i] = '!'
		}
	}
	mustGet(t, s, "k", "original")
	mustGet(t, s, "p", "cas")
}

func testEmptyValue(t *testing.T, s store.Store, _ Clock) {
	mustPut(t, s, "empty", "", 0)
	got, err := s.Get(ctx, "empty")
	if err != nil || len(got) != 0 {
		t.Fatalf("Get of an empty value = %q, %v", got, err)
	}
	ok, err := s.PutIfAbsent(ctx, "empty", []byte("x"), 0)
	if err != nil || ok {
		t.Fatalf("PutIfAbsent over an empty value = %v, %v; an empty value is present", ok, err)
	}
	ok, err = s.CompareAndSet(ctx, "empty", nil, []byte("x"), 0)
	if err != nil || !ok {
		t.Fatalf("CAS from an empty value = %v, %v", ok, err)
	}
	mustGet(t, s, "empty", "x")
	// An empty old matches an empty value only, not a missing one.
	if ok, err := s.CompareAndDelete(ctx, "missing", nil); ok || err != nil {
		t.Fatalf("CompareAndDelete of a missing key with an empty old = %v, %v", ok, err)
	}
	mustPut(t, s, "empty2", "", 0)
	if ok, err := s.CompareAndDelete(ctx, "empty2", nil); !ok || err != nil {
		t.Fatalf("CompareAndDelete of an empty value = %v, %v", ok, err)
	}
	mustMiss(t, s, "empty2")
}

func testBadInput(t *testing.T, s store.Store, _ Clock) {
	if err := s.Put(ctx, "", []byte("v"), 0); err == nil {
		t.Error("Put with an empty key: no error")
	}
	if err := s.Put(ctx, "k", []byte("v"), -time.Second); err == nil {
		t.Error("Put with a negative ttl: no error")
	}
	mustMiss(t, s, "k")
	done, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Put(done, "k", []byte("v"), 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context = %v", err)
	}
	if _, err := s.Get(done, "k"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context = %v", err)
	}
	if _, err := s.CompareAndDelete(ctx, "", []byte("v")); err == nil {
		t.Error("CompareAndDelete with an empty key: no error")
	}
	mustPut(t, s, "k", "v", 0)
	if ok, err := s.CompareAndDelete(done, "k", []byte("v")); ok || !errors.Is(err, context.Canceled) {
		t.Errorf("CompareAndDelete with a cancelled context = %v, %v", ok, err)
	}
	mustGet(t, s, "k", "v")
}

func testPrefixed(t *testing.T, s store.Store, c Clock) {
	a := store.WithPrefix(s, "mod-a/")
	b := store.WithPrefix(s, "mod-b/")
	mustPut(t, a, "k", "from a", 0)
	mustPut(t, b, "k", "from b", 0)
	mustGet(t, a, "k", "from a")
	mustGet(t, b, "k", "from b")
	mustGet(t, s, "mod-a/k", "from a")
	if ok, _ := a.PutIfAbsent(ctx, "k", []byte("again"), 0); ok {
		t.Fatal("PutIfAbsent through the view wrote over its own key")
	}
	if ok, err := b.CompareAndSet(ctx, "k", []byte("from b"), []byte("b2"), c.TTL); !ok || err != nil {
		t.Fatalf("CAS through the view: %v %v", ok, err)
	}
	if ok, err := a.CompareAndDelete(ctx, "k", []byte("from b")); ok || err != nil {
		t.Fatalf("CompareAndDelete through view a with view b's value: %v %v", ok, err)
	}
	mustPut(t, a, "gone", "v", 0)
	if ok, err := a.CompareAndDelete(ctx, "gone", []byte("v")); !ok || err != nil {
		t.Fatalf("CompareAndDelete through the view: %v %v", ok, err)
	}
	mustMiss(t, s, "mod-a/gone")
	if got := scanAll(t, a, ""); !maps.Equal(got, map[string]string{"k": "from a"}) {
		t.Fatalf("Scan of view a = %v", got)
	}
	nested := store.WithPrefix(a, "n/")
	mustPut(t, nested, "x", "deep", 0)
	mustGet(t, s, "mod-a/n/x", "deep")
	if got := scanAll(t, a, "n/"); !maps.Equal(got, map[string]string{"n/x": "deep"}) {
		t.Fatalf("Scan of view a under n/ = %v", got)
	}
	if err := a.Delete(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	mustMiss(t, a, "k")
	mustGet(t, b, "k", "b2")
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// The view's Close left the store open.
	mustPut(t, s, "after-close", "v", 0)
	mustGet(t, b, "k", "b2")
	c.Advance(2 * c.TTL)
	mustMiss(t, b, "k")
}
