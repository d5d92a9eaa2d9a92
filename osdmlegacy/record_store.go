package osdmlegacy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// Store keys of the façade's records are "osdm_legacy/<partner>/<kind>/<id>"
// (the booking side's kinds, through storeKey). Offers have none: an offer
// lives in its id (offer_id.go).

// storeKey returns the store key of a record of kind with id for partner.
func storeKey(partner, kind, id string) string {
	return "osdm_legacy/" + partner + "/" + kind + "/" + id
}

// newID returns a new unguessable id: 16 random bytes, base64url (22
// characters of [A-Za-z0-9_-]), with the given prefix.
func newID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("osdmlegacy: no randomness: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// validID reports whether id has newID's form with prefix, so a malformed
// id is refused before any store lookup.
func validID(id, prefix string) bool {
	if len(id) != len(prefix)+22 || id[:len(prefix)] != prefix {
		return false
	}
	for i := len(prefix); i < len(id); i++ {
		c := id[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

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

// errConflict is a compare-and-set that kept losing to other writers.
var errConflict = errors.New("record changed under too many concurrent writers")

// errNoChange tells updateRecord that fn left the record as it was: no
// write, and the record is returned as read.
var errNoChange = errors.New("no change")

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
