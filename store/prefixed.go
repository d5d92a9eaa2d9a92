package store

import (
	"context"
	"strings"
	"time"
)

// Prefixed is a view of a Store under a key prefix, so that modules
// sharing one bolt file or one Redis keep their keys apart (for example
// "convert/<partner>/", "legacy/<partner>/", "login/replay/"). Its keys are
// the underlying keys without the prefix.
type Prefixed struct {
	s      Store
	prefix string
}

// WithPrefix returns the view of s under prefix. Closing the view does not
// close s: whoever opened s closes it.
func WithPrefix(s Store, prefix string) *Prefixed {
	if p, ok := s.(*Prefixed); ok {
		return &Prefixed{s: p.s, prefix: p.prefix + prefix}
	}
	return &Prefixed{s: s, prefix: prefix}
}

// Get implements Store.
func (p *Prefixed) Get(ctx context.Context, key string) ([]byte, error) {
	if err := Check(ctx, key); err != nil {
		return nil, err
	}
	return p.s.Get(ctx, p.prefix+key)
}

// Put implements Store.
func (p *Prefixed) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := Check(ctx, key); err != nil {
		return err
	}
	return p.s.Put(ctx, p.prefix+key, value, ttl)
}

// PutIfAbsent implements Store.
func (p *Prefixed) PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	if err := Check(ctx, key); err != nil {
		return false, err
	}
	return p.s.PutIfAbsent(ctx, p.prefix+key, value, ttl)
}

// CompareAndSet implements Store.
func (p *Prefixed) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	if err := Check(ctx, key); err != nil {
		return false, err
	}
	return p.s.CompareAndSet(ctx, p.prefix+key, old, value, ttl)
}

// Delete implements Store.
func (p *Prefixed) Delete(ctx context.Context, key string) error {
	if err := Check(ctx, key); err != nil {
		return err
	}
	return p.s.Delete(ctx, p.prefix+key)
}

// CompareAndDelete implements Store.
func (p *Prefixed) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	if err := Check(ctx, key); err != nil {
		return false, err
	}
	return p.s.CompareAndDelete(ctx, p.prefix+key, old)
}

// Scan implements Store, with the view's prefix taken off each key.
func (p *Prefixed) Scan(ctx context.Context, prefix string, fn func(key string, value []byte) error) error {
	return p.s.Scan(ctx, p.prefix+prefix, func(key string, value []byte) error {
		return fn(strings.TrimPrefix(key, p.prefix), value)
	})
}

// Close does nothing: the underlying store stays open for its owner.
func (p *Prefixed) Close() error { return nil }

// Interface guard.
var _ Store = (*Prefixed)(nil)
