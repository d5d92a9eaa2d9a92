package converter

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// memStore is a store.Store in a map, for the journal's unit tests (the
// real engines run the same journal in caddymodule's tests). fail, when
// set, makes every call fail.
type memStore struct {
	mu   sync.Mutex
	m    map[string]memValue
	fail error
	// failPut makes Put fail (the other calls work).
	failPut error
	writes  int
}

type memValue struct {
	v   []byte
	exp time.Time
}

func newMemStore() *memStore { return &memStore{m: map[string]memValue{}} }

func (s *memStore) live(key string) ([]byte, bool) {
	v, ok := s.m[key]
	if !ok || (!v.exp.IsZero() && !time.Now().Before(v.exp)) {
		return nil, false
	}
	return v.v, true
}

func (s *memStore) set(key string, value []byte, ttl time.Duration) {
	var exp time.Time
	if ttl > 0 {
		exp = time.Now().Add(ttl)
	}
	s.writes++
	s.m[key] = memValue{v: bytes.Clone(value), exp: exp}
}

func (s *memStore) Get(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return nil, s.fail
	}
	v, ok := s.live(key)
	if !ok {
		return nil, store.ErrNotFound
	}
	return bytes.Clone(v), nil
}

func (s *memStore) Put(_ context.Context, key string, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	if s.failPut != nil {
		return s.failPut
	}
	s.set(key, value, ttl)
	return nil
}

func (s *memStore) PutIfAbsent(_ context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return false, s.fail
	}
	if _, ok := s.live(key); ok {
		return false, nil
	}
	s.set(key, value, ttl)
	return true, nil
}

func (s *memStore) CompareAndSet(_ context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return false, s.fail
	}
	if v, ok := s.live(key); !ok || !bytes.Equal(v, old) {
		return false, nil
	}
	s.set(key, value, ttl)
	return true, nil
}

func (s *memStore) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	delete(s.m, key)
	return nil
}

func (s *memStore) Scan(_ context.Context, prefix string, fn func(string, []byte) error) error {
	s.mu.Lock()
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

func (s *memStore) Close() error { return nil }

var _ store.Store = (*memStore)(nil)
