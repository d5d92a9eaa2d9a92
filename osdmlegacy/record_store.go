package osdmlegacy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// getRecord reads the record of id (a booking or a journey: what names
// which) stored at key, with its stored bytes for a compare-and-set, or
// missing when there is none.
func getRecord[T any](ctx context.Context, st store.Store, key, what, id string, missing error) (*T, []byte, error) {
	b, err := st.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, missing
	}
	if err != nil {
		return nil, nil, err
	}
	var rec T
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, nil, fmt.Errorf("%s %s: stored record unreadable: %w", what, id, err)
	}
	return &rec, b, nil
}

// putNewRecord stores rec at key, kept for ttl (0: for ever), if nothing
// is stored there, and reports whether it did.
func putNewRecord(ctx context.Context, st store.Store, key string, rec any, ttl time.Duration) (bool, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	return st.PutIfAbsent(ctx, key, b, ttl)
}

// updateRecord applies fn to the record load reads, with compare-and-set
// on key, rereading and reapplying on a concurrent change; ttl is the
// store ttl of the record as changed. fn returns errNoChange to write
// nothing, or any other error to stop. It returns the record as stored.
func updateRecord[T any](ctx context.Context, st store.Store, key string, load func() (*T, []byte, error), ttl func(*T) time.Duration, fn func(*T) error) (*T, error) {
	for range 16 {
		rec, old, err := load()
		if err != nil {
			return nil, err
		}
		if err := fn(rec); errors.Is(err, errNoChange) {
			return rec, nil
		} else if err != nil {
			return rec, err
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(b, old) {
			return rec, nil
		}
		ok, err := st.CompareAndSet(ctx, key, old, b, ttl(rec))
		if err != nil {
			return nil, err
		}
		if ok {
			return rec, nil
		}
	}
	return nil, errConflict
}
