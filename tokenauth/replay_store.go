package tokenauth

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// StoreReplayStore is a ReplayStore kept in a store.Store: a bolt file
// remembers spent jti values across restarts of one instance, a Redis
// across every instance that uses it. A claim is one PutIfAbsent with an
// expiry (SET NX PX in Redis, one write transaction in bolt), atomic in
// the engine, so a token replayed to another instance, or after a
// restart, is refused. When the store cannot answer, Claim fails and the
// token is refused: an outage never lets a replay through.
type StoreReplayStore struct {
	store store.Store
	now   Clock
}

// NewStoreReplayStore makes a replay store on s (usually a view under a
// prefix of its own, store.WithPrefix). now nil means time.Now.
func NewStoreReplayStore(s store.Store, now Clock) *StoreReplayStore {
	return &StoreReplayStore{store: s, now: now.orNow()}
}

// Claim implements ReplayStore. The key is the hex digest of (subject,
// jti), so jti values are not written anywhere; it expires at until,
// measured on this instance's clock.
func (s *StoreReplayStore) Claim(ctx context.Context, subject, jti string, until time.Time) error {
	digest := replayDigest(subject, jti)
	ttl := until.Sub(s.now())
	if ttl < time.Second {
		// A token so close to its end is still remembered for a moment:
		// no ttl would mean no expiry at all.
		ttl = time.Second
	}
	wrote, err := s.store.PutIfAbsent(ctx, hex.EncodeToString(digest[:]), []byte{1}, ttl)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrReplayStoreUnavailable, err)
	}
	if !wrote {
		return ErrReplay
	}
	return nil
}

// Interface guard.
var _ ReplayStore = (*StoreReplayStore)(nil)
