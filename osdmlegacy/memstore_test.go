package osdmlegacy

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// memStore is a store.Store in memory for the package's unit tests (the
// real engines are tested on their own; the integration tests use bolt).
type memStore struct {
	mu   sync.Mutex
	m    map[string]memEntry
	now  func() time.Time
	fail error // every call fails with it when set
}

type memEntry struct {
	v   []byte
	exp time.Time
}

func newMemStore() *memStore { return &memStore{m: map[string]memEntry{}, now: time.Now} }

func (s *memStore) live(key string) (memEntry, bool) {
	e, ok := s.m[key]
	if ok && !e.exp.IsZero() && !s.now().Before(e.exp) {
		delete(s.m, key)
		return memEntry{}, false
	}
	return e, ok
}

func (s *memStore) entry(v []byte, ttl time.Duration) memEntry {
	e := memEntry{v: bytes.Clone(v)}
	if ttl > 0 {
		e.exp = s.now().Add(ttl)
	}
	return e
}

func (s *memStore) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	e, ok := s.live(key)
	if !ok {
		return nil, store.ErrNotFound
	}
	return bytes.Clone(e.v), nil
}

func (s *memStore) Put(_ context.Context, key string, v []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.m[key] = s.entry(v, ttl)
	return nil
}

func (s *memStore) PutIfAbsent(_ context.Context, key string, v []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return false, s.fail
	}
	if _, ok := s.live(key); ok {
		return false, nil
	}
	s.m[key] = s.entry(v, ttl)
	return true, nil
}

func (s *memStore) CompareAndSet(_ context.Context, key string, old, v []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return false, s.fail
	}
	e, ok := s.live(key)
	if !ok || !bytes.Equal(e.v, old) {
		return false, nil
	}
	s.m[key] = s.entry(v, ttl)
	return true, nil
}

func (s *memStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return s.fail
}

func (s *memStore) Scan(_ context.Context, prefix string, fn func(string, []byte) error) error {
	s.mu.Lock()
	var keys []string
	var vals [][]byte
	for k := range s.m {
		if e, ok := s.live(k); ok && strings.HasPrefix(k, prefix) {
			keys, vals = append(keys, k), append(vals, bytes.Clone(e.v))
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

func (s *memStore) Close() error { return nil }

var _ store.Store = (*memStore)(nil)
