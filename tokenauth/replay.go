package tokenauth

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"
)

// ReplayStore remembers the identity tokens a login service has accepted,
// so that each is used once. Implementations must make Claim atomic: of
// any number of concurrent claims of one (subject, jti), exactly one
// succeeds.
type ReplayStore interface {
	// Claim records (subject, jti) until the given time. It returns nil the
	// first time, ErrReplay while an earlier record lives, and another
	// error (wrapping ErrReplayStoreFull or ErrReplayStoreUnavailable) when
	// it cannot decide, in which case the token must be refused.
	Claim(ctx context.Context, subject, jti string, until time.Time) error
}

var (
	// ErrReplay is a jti that was already used.
	ErrReplay = errors.New("jti already used")
	// ErrReplayStoreFull is a memory store at its entry limit: it refuses
	// new tokens rather than forget live ones, which would allow replays.
	ErrReplayStoreFull = errors.New("replay store is full")
	// ErrReplayStoreUnavailable is a store that cannot be reached.
	ErrReplayStoreUnavailable = errors.New("replay store is unavailable")
)

// replayDigest is the SHA-256 of the length-prefixed subject and the jti:
// a fixed-size key whatever the client sends, unambiguous (no separator a
// subject could contain), and it keeps jti values out of Redis.
func replayDigest(subject, jti string) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(subject)))
	h.Write(n[:])
	h.Write([]byte(subject))
	h.Write([]byte(jti))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
