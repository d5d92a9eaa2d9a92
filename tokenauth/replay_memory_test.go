package tokenauth

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
)

func TestMemoryReplayStoreClaims(t *testing.T) {
	clock := testclock.New(time.Unix(1_800_000_000, 0))
	s := NewMemoryReplayStore(MemoryReplayOptions{SweepInterval: -1, Now: clock.Now})
	ctx := context.Background()
	until := clock.Now().Add(time.Minute)

	if err := s.Claim(ctx, "alpine", "j1", until); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(ctx, "alpine", "j1", until); !errors.Is(err, ErrReplay) {
		t.Fatalf("second claim: %v", err)
	}
	// The key is (subject, jti), unambiguously.
	for _, k := range [][2]string{{"eastern", "j1"}, {"alpinej", "1"}, {"alpin", "ej1"}} {
		if err := s.Claim(ctx, k[0], k[1], until); err != nil {
			t.Fatalf("%v: %v", k, err)
		}
	}
	if s.Len() != 4 {
		t.Fatalf("len %d", s.Len())
	}
	// Remembered until `until`, not a moment less.
	clock.Advance(time.Minute - time.Nanosecond)
	if err := s.Claim(ctx, "alpine", "j1", until); !errors.Is(err, ErrReplay) {
		t.Fatalf("claim before until: %v", err)
	}
	clock.Advance(time.Nanosecond)
	if n := s.Sweep(); n != 4 || s.Len() != 0 {
		t.Fatalf("sweep removed %d, len %d", n, s.Len())
	}
}

func TestMemoryReplayStoreFailsClosedWhenFull(t *testing.T) {
	clock := testclock.New(time.Unix(1_800_000_000, 0))
	s := NewMemoryReplayStore(MemoryReplayOptions{MaxEntries: 100, SweepInterval: -1, Now: clock.Now})
	ctx := context.Background()
	for i := range 100 {
		if err := s.Claim(ctx, "c", fmt.Sprint("short-", i), clock.Now().Add(time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	long := clock.Now().Add(time.Hour)
	if err := s.Claim(ctx, "c", "one-more", long); !errors.Is(err, ErrReplayStoreFull) {
		t.Fatalf("claim at the limit: %v", err)
	}
	// The live entries were not evicted to make room.
	if err := s.Claim(ctx, "c", "short-7", long); !errors.Is(err, ErrReplay) {
		t.Fatalf("live entry forgotten: %v", err)
	}
	if s.Len() != 100 {
		t.Fatalf("len %d", s.Len())
	}
	// Once entries expire, room is made without waiting for the sweeper.
	clock.Advance(2 * time.Second)
	admitted := 0
	for i := range 100 {
		if err := s.Claim(ctx, "c", fmt.Sprint("new-", i), long); err == nil {
			admitted++
		}
	}
	if admitted != 100 || s.Len() > 100 {
		t.Fatalf("admitted %d after expiry, len %d", admitted, s.Len())
	}
}

func TestMemoryReplayStoreConcurrentClaims(t *testing.T) {
	s := NewMemoryReplayStore(MemoryReplayOptions{SweepInterval: -1})
	until := time.Now().Add(time.Minute)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.Claim(context.Background(), "alpine", "same", until) == nil {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d claims won", wins.Load())
	}
}

func TestMemoryReplayStoreSweeperStops(t *testing.T) {
	s := NewMemoryReplayStore(MemoryReplayOptions{SweepInterval: time.Millisecond})
	testrig.ReturnsWithin(t, 10*time.Second, "Stop did not return", func() {
		s.Stop()
		s.Stop()
	})
	select {
	case <-s.done:
	default:
		t.Fatal("sweeper still running")
	}
}

// memoryReplayBytesPerEntry fills a store with n live entries, leaving
// room for spare more, and returns the heap it grew by, per entry.
func memoryReplayBytesPerEntry(n, spare int) (*MemoryReplayStore, float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := NewMemoryReplayStore(MemoryReplayOptions{MaxEntries: n + spare, SweepInterval: -1})
	until := time.Now().Add(time.Hour)
	for i := range n {
		_ = s.Claim(context.Background(), "client", fmt.Sprint("jti-", i), until)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return s, float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// TestMemoryReplayStoreEntryCost keeps the documented per-entry cost
// (README: at most 56 bytes, 64 with the race detector's slack) true.
func TestMemoryReplayStoreEntryCost(t *testing.T) {
	s, perEntry := memoryReplayBytesPerEntry(200_000, 0)
	if s.Len() != 200_000 {
		t.Fatalf("len %d", s.Len())
	}
	t.Logf("%.1f bytes per entry", perEntry)
	if perEntry > 64 {
		t.Fatalf("%.1f bytes per entry; the README promises at most 56", perEntry)
	}
}

// BenchmarkMemoryReplayClaim inserts new entries into a store already
// holding 1,000,000 live ones.
func BenchmarkMemoryReplayClaim(b *testing.B) {
	s, perEntry := memoryReplayBytesPerEntry(1_000_000, b.N)
	until := time.Now().Add(time.Hour)
	jtis := make([]string, b.N)
	for i := range jtis {
		jtis[i] = fmt.Sprint("bench-", i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Claim(context.Background(), "client", jtis[i], until); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(perEntry, "bytes/entry")
}
