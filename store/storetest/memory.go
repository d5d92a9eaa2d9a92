package storetest

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// Memory is a store.Store in a map, for the unit tests of the packages
// that keep state in a store (the real engines run the same suite, Run,
// and the integration tests use them). Its fields are set by a test
// before or between calls, never during one.
type Memory struct {
	// Now is the store's clock; time.Now when nil.
	Now func() time.Time
	// Fail, when set, makes every call fail with it.
	Fail error
	// FailPut, when set, makes Put fail with it (the other calls work).
	FailPut error

	mu     sync.Mutex
	m      map[string]memoryEntry
	writes int
	reads  int
}

type memoryEntry struct {
	v   []byte
	exp time.Time
}

// NewMemory returns an empty Memory on the real clock.
func NewMemory() *Memory { return &Memory{m: map[string]memoryEntry{}} }

// Writes counts the writes that changed a value.
func (s *Memory) Writes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writes
}

// Reads counts the calls of Get.
func (s *Memory) Reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reads
}

func (s *Memory) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Memory) live(key string) ([]byte, bool) {
	e, ok := s.m[key]
	if ok && !e.exp.IsZero() && !s.now().Before(e.exp) {
		delete(s.m, key)
		return nil, false
	}
	return e.v, ok
}

func (s *Memory) set(key string, v []byte, ttl time.Duration) {
	e := memoryEntry{v: bytes.Clone(v)}
	if ttl > 0 {
		e.exp = s.now().Add(ttl)
	}
	s.writes++
	s.m[key] = e
}

// Get implements store.Store.
func (s *Memory) Get(ctx context.Context, key string) ([]byte, error) {
	if err := store.Check(ctx, key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reads++
	if s.Fail != nil {
		return nil, s.Fail
	}
	v, ok := s.live(key)
	if !ok {
		return nil, store.ErrNotFound
	}
	return bytes.Clone(v), nil
}

// Put implements store.Store.
func (s *Memory) Put(ctx context.Context, key string, v []byte, ttl time.Duration) error {
	if err := store.CheckWrite(ctx, key, ttl); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	if s.FailPut != nil {
		return s.FailPut
	}
	s.set(key, v, ttl)
	return nil
}

// PutIfAbsent implements store.Store.
func (s *Memory) PutIfAbsent(ctx context.Context, key string, v []byte, ttl time.Duration) (bool, error) {
	if err := store.CheckWrite(ctx, key, ttl); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return false, s.Fail
	}
	if _, ok := s.live(key); ok {
		return false, nil
	}
	s.set(key, v, ttl)
	return true, nil
}

// CompareAndSet implements store.Store.
func (s *Memory) CompareAndSet(ctx context.Context, key string, old, v []byte, ttl time.Duration) (bool, error) {
	if err := store.CheckWrite(ctx, key, ttl); err != nil {
		return false, err
	}
	return s.ifLive(key, old, func() { s.set(key, v, ttl) })
}

// Delete implements store.Store.
func (s *Memory) Delete(ctx context.Context, key string) error {
	if err := store.Check(ctx, key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	delete(s.m, key)
	return nil
}

// CompareAndDelete implements store.Store.
func (s *Memory) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	if err := store.Check(ctx, key); err != nil {
		return false, err
	}
	return s.ifLive(key, old, func() {
		s.writes++
		delete(s.m, key)
	})
}

// ifLive runs change under the lock when key's live value is old, and
// reports whether it ran.
func (s *Memory) ifLive(key string, old []byte, change func()) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return false, s.Fail
	}
	if cur, ok := s.live(key); !ok || !bytes.Equal(cur, old) {
		return false, nil
	}
	change()
	return true, nil
}

// Scan implements store.Store; fn runs outside the lock, so it may write.
func (s *Memory) Scan(ctx context.Context, prefix string, fn func(string, []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.Fail != nil {
		s.mu.Unlock()
		return s.Fail
	}
	var keys []string
	var vals [][]byte
	for k := range s.m {
		if v, ok := s.live(k); ok && strings.HasPrefix(k, prefix) {
			keys, vals = append(keys, k), append(vals, bytes.Clone(v))
		}
	}
	s.mu.Unlock()
	for i := range keys {
		if err := fn(keys[i], vals[i]); err != nil {
			return err
		}
	}
	return nil
}

// Close implements store.Store.
func (s *Memory) Close() error { return nil }

var _ store.Store = (*Memory)(nil)
