package store_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
	"github.com/caddy-osdm/caddy-osdm/store"
	bolterrors "go.etcd.io/bbolt/errors"
)

// TestBoltGroupCommit holds the first write's commit until 20 more writes
// have queued behind it, one after another (so their order in the group
// is known), then lets it go: the 20 share one commit, each with its own
// result, and the one of them that bbolt refuses (a key too long) fails
// alone, without failing or re-applying the others.
func TestBoltGroupCommit(t *testing.T) {
	clock := testclock.New(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	s := openBolt(t, store.WithClock(clock.Now))
	ctx := context.Background()
	if err := s.Put(ctx, "gone", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "pia/expired", []byte("old"), time.Minute); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	commitsBefore := s.Commits()

	release := make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	first := true
	store.SetBoltBeforeCommit(s, func(n int) {
		mu.Lock()
		sizes = append(sizes, n)
		wait := first
		first = false
		mu.Unlock()
		if wait {
			<-release
		}
	})

	type result struct {
		wrote bool
		err   error
	}
	var wg sync.WaitGroup
	results := make([]result, 0, 32) // never reallocated while writers run
	queued := 0
	// start runs op in a goroutine; once the lead write holds the
	// commit, it waits until op has queued, so the group's order is the
	// order of the calls.
	start := func(op func() (bool, error)) {
		i := len(results)
		results = append(results, result{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := op()
			results[i] = result{w, err}
		}()
		if i == 0 {
			for {
				mu.Lock()
				n := len(sizes)
				mu.Unlock()
				if n == 1 {
					return
				}
				time.Sleep(time.Millisecond)
			}
		}
		queued++
		for store.BoltQueued(s) != queued {
			time.Sleep(time.Millisecond)
		}
	}
	put := func(k, v string, ttl time.Duration) func() (bool, error) {
		return func() (bool, error) { return true, s.Put(ctx, k, []byte(v), ttl) }
	}
	pia := func(k, v string) func() (bool, error) {
		return func() (bool, error) { return s.PutIfAbsent(ctx, k, []byte(v), 0) }
	}
	cas := func(k, old, v string) func() (bool, error) {
		return func() (bool, error) { return s.CompareAndSet(ctx, k, []byte(old), []byte(v), 0) }
	}
	start(put("cas", "v0", 0)) // the lead write, held in its commit
	for i := range 5 {
		start(pia("pia", "p"+strconv.Itoa(i)))
	}
	start(pia("pia/expired", "new"))
	start(put("too-long/"+strings.Repeat("k", 40000), "v", 0))
	for i := range 5 {
		start(cas("cas", "v0", "c"+strconv.Itoa(i)))
	}
	start(cas("cas", "c0", "c0-then"))
	start(func() (bool, error) { return true, s.Delete(ctx, "gone") })
	start(put("ttl", "t", time.Hour))
	start(pia("gone", "again")) // after the Delete in the same group
	for i := range 4 {
		start(put("own/"+strconv.Itoa(i), "o"+strconv.Itoa(i), 0))
	}
	close(release)
	wg.Wait()

	want := []bool{true, true, false, false, false, false, true, false, true, false, false, false, false, true, true, true, true, true, true, true, true}
	for i, r := range results {
		if i == 7 {
			if !errors.Is(r.err, bolterrors.ErrKeyTooLarge) {
				t.Errorf("write %d (key too long): %v, want ErrKeyTooLarge", i, r.err)
			}
			continue
		}
		if r.err != nil || r.wrote != want[i] {
			t.Errorf("write %d: wrote %v, %v; want %v", i, r.wrote, r.err, want[i])
		}
	}
	// The lead alone; the 20 queued together, rolled back by the key
	// bbolt refuses; that one alone (failing); the other 19 together.
	if fmt.Sprint(sizes) != "[1 20 1 19]" {
		t.Errorf("transactions of %v writes, want [1 20 1 19]", sizes)
	}
	if got := s.Commits() - commitsBefore; got != 2 {
		t.Errorf("%d commits for 21 writes, want 2", got)
	}
	for k, v := range map[string]string{"pia": "p0", "pia/expired": "new", "cas": "c0-then", "ttl": "t", "gone": "again",
		"own/0": "o0", "own/3": "o3"} {
		if got, err := s.Get(ctx, k); err != nil || string(got) != v {
			t.Errorf("Get(%q) = %q, %v; want %q", k, got, err, v)
		}
	}
	clock.Advance(time.Hour)
	if _, err := s.Get(ctx, "ttl"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the grouped write's ttl: %v, want expired", err)
	}
}

// TestBoltGroupCommitConcurrent runs 16 writers at once on a file on disk,
// each counting up a shared counter with CompareAndSet and writing keys of
// its own: no increment is lost or doubled, every write is there, and the
// writes took fewer commits (syncs) than there were writes.
func TestBoltGroupCommitConcurrent(t *testing.T) {
	s := openBolt(t)
	ctx := context.Background()
	if err := s.Put(ctx, "counter", []byte("0"), 0); err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 25
	before := s.Commits()
	var wg sync.WaitGroup
	var mu sync.Mutex
	writes := 0
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for i := range each {
				if err := s.Put(ctx, fmt.Sprintf("own/%d/%d", g, i), []byte(strconv.Itoa(i)), 0); err != nil {
					t.Error(err)
					return
				}
				n++
				for {
					cur, err := s.Get(ctx, "counter")
					if err != nil {
						t.Error(err)
						return
					}
					v, _ := strconv.Atoi(string(cur))
					ok, err := s.CompareAndSet(ctx, "counter", cur, []byte(strconv.Itoa(v+1)), 0)
					n++
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						break
					}
				}
			}
			mu.Lock()
			writes += n
			mu.Unlock()
		}()
	}
	wg.Wait()
	if got, err := s.Get(ctx, "counter"); err != nil || string(got) != strconv.Itoa(writers*each) {
		t.Fatalf("counter %q, %v; want %d", got, err, writers*each)
	}
	for g := range writers {
		for i := range each {
			if got, err := s.Get(ctx, fmt.Sprintf("own/%d/%d", g, i)); err != nil || string(got) != strconv.Itoa(i) {
				t.Fatalf("own/%d/%d = %q, %v", g, i, got, err)
			}
		}
	}
	commits := s.Commits() - before
	t.Logf("%d writes in %d commits", writes, commits)
	if commits >= uint64(writes) {
		t.Errorf("%d writes took %d commits: none shared one", writes, commits)
	}
}

// TestBoltGroupCommitClose closes the store while 16 writers write: every
// write returns (written, or an error once the file is closed), none is
// left waiting in the queue.
func TestBoltGroupCommitClose(t *testing.T) {
	s := openBolt(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	started := make(chan struct{}, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				err := s.Put(ctx, fmt.Sprintf("k/%d/%d", g, i), []byte("v"), 0)
				if i == 0 {
					started <- struct{}{}
				}
				if err != nil {
					return
				}
			}
		}()
	}
	for range 16 {
		<-started
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	testrig.ReturnsWithin(t, 10*time.Second, "writers still waiting 10 s after Close", wg.Wait)
}

// TestBoltGroupCompareAndDelete queues compare-and-deletes behind a held
// commit, one after another: in their group each sees the writes before
// it, as in a transaction of its own (a deletion frees the key for the
// PutIfAbsent after it; a value written over the one expected stays).
func TestBoltGroupCompareAndDelete(t *testing.T) {
	s := openBolt(t)
	ctx := context.Background()
	if err := s.Put(ctx, "k", []byte("v0"), 0); err != nil {
		t.Fatal(err)
	}
	release, held := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	store.SetBoltBeforeCommit(s, func(n int) {
		mu.Lock()
		sizes = append(sizes, n)
		first := len(sizes) == 1
		mu.Unlock()
		if first {
			close(held)
			<-release
		}
	})
	ops := []func() (bool, error){
		func() (bool, error) { return true, s.Put(ctx, "lead", []byte("x"), 0) },
		func() (bool, error) { return s.CompareAndDelete(ctx, "k", []byte("v0")) },
		func() (bool, error) { return s.PutIfAbsent(ctx, "k", []byte("v1"), 0) },
		func() (bool, error) { return s.CompareAndDelete(ctx, "k", []byte("v0")) },
		func() (bool, error) { return s.CompareAndDelete(ctx, "k", []byte("v1")) },
		func() (bool, error) { return s.CompareAndDelete(ctx, "k", []byte("v1")) },
		func() (bool, error) { return true, s.Put(ctx, "k", []byte("v2"), 0) },
		func() (bool, error) { return s.CompareAndDelete(ctx, "k", []byte("v1")) },
	}
	want := []bool{true, true, true, false, true, false, true, false}
	got := make([]bool, len(ops))
	errs := make([]error, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = op()
		}()
		if i == 0 {
			<-held
			continue
		}
		for store.BoltQueued(s) != i {
			time.Sleep(time.Millisecond)
		}
	}
	close(release)
	wg.Wait()
	for i := range ops {
		if errs[i] != nil || got[i] != want[i] {
			t.Errorf("write %d: %v, %v; want %v", i, got[i], errs[i], want[i])
		}
	}
	if fmt.Sprint(sizes) != "[1 7]" {
		t.Errorf("transactions of %v writes, want [1 7]", sizes)
	}
	if v, err := s.Get(ctx, "k"); err != nil || string(v) != "v2" {
		t.Errorf("Get(k) = %q, %v; want v2", v, err)
	}
}
