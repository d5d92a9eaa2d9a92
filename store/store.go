// Package store keeps what a booking depends on beyond one process's memory:
// the forward direction's journal of exchanges under way and its replies to
// resent messages, the reverse direction's offers, bookings, idempotency
// keys and intents, and the login service's spent identity-token ids.
//
// Store is one small interface with two real engines: an embedded bbolt
// file (the default; a single instance needs nothing else) and Redis (for
// several instances sharing the work). Both run the same test suite.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned by Get for a key that is absent or expired.
var ErrNotFound = errors.New("store: key not found")

// Store is a key-value store with expiry and atomic conditional writes.
// Keys are opaque strings; values are opaque bytes that the caller owns
// after a call returns (implementations copy them). A ttl of 0 means the
// value never expires; an expired value behaves as absent everywhere.
type Store interface {
	// Get returns the live value under key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Put writes value under key, whatever was there.
	Put(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// PutIfAbsent writes value under key only if no live value is there,
	// atomically, and reports whether it wrote.
	PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error)
	// CompareAndSet replaces the live value under key by value only if it
	// equals old, atomically, and reports whether it wrote.
	CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// CompareAndDelete removes key only if its live value equals old,
	// atomically, and reports whether it removed it: a value written
	// over old meanwhile stays. A missing or expired key is not removed
	// (false) and is not an error.
	CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error)
	// Scan calls fn for every live key that starts with prefix, in no
	// guaranteed order, and stops at the first error fn returns.
	Scan(ctx context.Context, prefix string, fn func(key string, value []byte) error) error
	// Close releases what the store holds open.
	Close() error
}

// Check is the input check every engine makes before a call: it refuses
// a done context and an empty key (bbolt cannot hold one, so no engine
// accepts it).
func Check(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if key == "" {
		return errors.New("store: empty key")
	}
	return nil
}

// CheckWrite is Check plus a ttl that is not negative, before a write.
func CheckWrite(ctx context.Context, key string, ttl time.Duration) error {
	if ttl < 0 {
		return fmt.Errorf("store: negative ttl %v for key %q", ttl, key)
	}
	return Check(ctx, key)
}
