package tokenauth

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/periodic"
)

// DefaultReplayMaxEntries is the default entry limit of a memory replay
// store: at most about 56 MB (see MemoryReplayStore).
const DefaultReplayMaxEntries = 1_000_000

// DefaultReplaySweepInterval is how often expired entries are removed.
const DefaultReplaySweepInterval = time.Minute

const replayShards = 64

// MemoryReplayOptions configures a MemoryReplayStore.
type MemoryReplayOptions struct {
	// MaxEntries bounds the live entries; at the limit new tokens are
	// refused with ErrReplayStoreFull. Zero means DefaultReplayMaxEntries.
	MaxEntries int
	// SweepInterval is how often a background goroutine removes expired
	// entries. Zero means DefaultReplaySweepInterval; negative means no
	// background sweep (call Sweep).
	SweepInterval time.Duration
	// Now is the clock; nil means time.Now.
	Now Clock
}

// MemoryReplayStore is a ReplayStore for one process: a map split in
// shards, each behind its own mutex, so that concurrent token requests
// rarely wait on each other. An entry is a 16-byte digest of (subject,
// jti) and an expiry: 28 to 56 bytes with the map's own overhead,
// depending on how full the map's table is (TestMemoryReplayStoreEntryCost,
// BenchmarkMemoryReplayClaim). Live entries are never
// evicted; at MaxEntries the store refuses instead (fail closed).
type MemoryReplayStore struct {
	shards [replayShards]memoryReplayShard
	count  atomic.Int64
	max    atomic.Int64
	now    Clock

	// lastFullSweep is when a Claim last swept a full store (Unix ns).
	lastFullSweep atomic.Int64

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// memoryReplayShard maps a digest to an expiry in Unix nanoseconds. The
// padding keeps neighbouring shards' mutexes on separate cache lines.
type memoryReplayShard struct {
	mu      sync.Mutex
	entries map[[16]byte]int64
	_       [48]byte
}

// NewMemoryReplayStore makes a store and starts its sweeper; call Stop to
// end it.
func NewMemoryReplayStore(opts MemoryReplayOptions) *MemoryReplayStore {
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultReplayMaxEntries
	}
	if opts.SweepInterval == 0 {
		opts.SweepInterval = DefaultReplaySweepInterval
	}
	opts.Now = opts.Now.orNow()
	s := &MemoryReplayStore{
		now:  opts.Now,
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	s.max.Store(int64(opts.MaxEntries))
	for i := range s.shards {
		s.shards[i].entries = make(map[[16]byte]int64)
	}
	if opts.SweepInterval > 0 {
		go s.sweepLoop(opts.SweepInterval)
	} else {
		close(s.done)
	}
	return s
}

// Claim implements ReplayStore.
func (s *MemoryReplayStore) Claim(_ context.Context, subject, jti string, until time.Time) error {
	digest := replayDigest(subject, jti)
	var key [16]byte
	copy(key[:], digest[:])
	sh := &s.shards[digest[16]%replayShards]
	now := s.now().UnixNano()
	err := sh.claim(&s.count, s.max.Load(), key, now, until.UnixNano())
	if errors.Is(err, ErrReplayStoreFull) && s.mayFullSweep(now) {
		// Expired entries may still wait for the sweeper: make room, once.
		s.Sweep()
		err = sh.claim(&s.count, s.max.Load(), key, now, until.UnixNano())
	}
	return err
}

func (sh *memoryReplayShard) claim(count *atomic.Int64, limit int64, key [16]byte, now, until int64) error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if exp, ok := sh.entries[key]; ok {
		if exp > now {
			return ErrReplay
		}
		sh.entries[key] = until // reuse the expired slot
		return nil
	}
	if count.Add(1) > limit {
		count.Add(-1)
		return ErrReplayStoreFull
	}
	sh.entries[key] = until
	return nil
}

// mayFullSweep lets one sweep of a full store run per second: sweeping is
// O(entries), and a store full of live entries must not turn every refused
// request into a full scan.
func (s *MemoryReplayStore) mayFullSweep(now int64) bool {
	last := s.lastFullSweep.Load()
	return now-last >= int64(time.Second) && s.lastFullSweep.CompareAndSwap(last, now)
}

// SetMaxEntries changes the entry limit (zero or less: the default), for
// a store kept across configuration reloads. Lowering it below Len evicts
// nothing: new tokens are refused until entries expire.
func (s *MemoryReplayStore) SetMaxEntries(n int) {
	if n <= 0 {
		n = DefaultReplayMaxEntries
	}
	s.max.Store(int64(n))
}

// Len is the number of entries, expired ones not yet swept included.
func (s *MemoryReplayStore) Len() int {
	return int(s.count.Load())
}

// Sweep removes the expired entries and returns how many it removed.
func (s *MemoryReplayStore) Sweep() int {
	now := s.now().UnixNano()
	removed := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n := sh.sweepLocked(now)
		sh.mu.Unlock()
		s.count.Add(-int64(n))
		removed += n
	}
	return removed
}

// Stop ends the background sweeper and waits for it. It is safe to call
// more than once.
func (s *MemoryReplayStore) Stop() {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
}

func (s *MemoryReplayStore) sweepLoop(every time.Duration) {
	defer close(s.done)
	periodic.Run(s.stop, every, func() { s.Sweep() })
}

func (sh *memoryReplayShard) sweepLocked(now int64) int {
	n := 0
	for k, exp := range sh.entries {
		if exp <= now {
			delete(sh.entries, k)
			n++
		}
	}
	return n
}

// Interface guard.
var _ ReplayStore = (*MemoryReplayStore)(nil)
