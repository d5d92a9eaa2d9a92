package tokenauth

import (
	"context"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRedisReplayPrefix prefixes the Redis keys of a RedisReplayStore.
const DefaultRedisReplayPrefix = "osdm:jti:"

// RedisReplayStore is a ReplayStore shared by every login service instance
// that uses the same Redis: a claim is one SET NX with an expiry, atomic
// in Redis, so a token replayed to another instance is refused too. When
// Redis cannot be reached, Claim fails and the token is refused: an outage
// never lets a replay through.
type RedisReplayStore struct {
	client redis.UniversalClient
	prefix string
	now    func() time.Time
}

// NewRedisReplayStore makes a store on client. prefix "" means
// DefaultRedisReplayPrefix; now nil means time.Now.
func NewRedisReplayStore(client redis.UniversalClient, prefix string, now func() time.Time) *RedisReplayStore {
	if prefix == "" {
		prefix = DefaultRedisReplayPrefix
	}
	if now == nil {
		now = time.Now
	}
	return &RedisReplayStore{client: client, prefix: prefix, now: now}
}

// Claim implements ReplayStore. The key expires at until, measured on this
// instance's clock: Redis's own clock plays no part.
func (s *RedisReplayStore) Claim(ctx context.Context, subject, jti string, until time.Time) error {
	digest := replayDigest(subject, jti)
	ttl := until.Sub(s.now())
	if ttl < time.Second {
		// A token so close to its end is still remembered for a moment:
		// no TTL would mean no expiry at all.
		ttl = time.Second
	}
	set, err := s.client.SetNX(ctx, s.prefix+hex.EncodeToString(digest[:]), 1, ttl).Result()
	if err != nil {
		return fmt.Errorf("%w: redis SET NX: %w", ErrReplayStoreUnavailable, err)
	}
	if !set {
		return ErrReplay
	}
	return nil
}

// Interface guard.
var _ ReplayStore = (*RedisReplayStore)(nil)
