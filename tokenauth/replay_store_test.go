package tokenauth

import (
	"context"
	"encoding/hex"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// redisTestClient connects to the Redis named by OSDM_TEST_REDIS, or skips.
func redisTestClient(t *testing.T) *redis.Client {
	t.Helper()
	addr := redistest.Shared(t)
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("OSDM_TEST_REDIS=%s: %v", addr, err)
	}
	return c
}

// redisTestPrefix keeps each test's keys apart from other runs.
func redisTestPrefix(t *testing.T, c *redis.Client) string {
	prefix := "osdm-test:" + uuid.NewString() + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		keys, _ := c.Keys(ctx, prefix+"*").Result()
		if len(keys) > 0 {
			c.Del(ctx, keys...)
		}
	})
	return prefix
}

func TestRedisReplayStoreClaims(t *testing.T) {
	c := redisTestClient(t)
	prefix := redisTestPrefix(t, c)
	s := NewStoreReplayStore(store.NewRedis(c, prefix), nil)
	ctx := context.Background()
	until := time.Now().Add(90 * time.Second)
	if err := s.Claim(ctx, "alpine", "j1", until); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(ctx, "alpine", "j1", until); !errors.Is(err, ErrReplay) {
		t.Fatalf("second claim: %v", err)
	}
	if err := s.Claim(ctx, "eastern", "j1", until); err != nil {
		t.Fatalf("other subject: %v", err)
	}
	// The key is the digest (no jti in Redis) and expires at until, so
	// Redis does not fill up with old jtis.
	digest := replayDigest("alpine", "j1")
	key := prefix + hex.EncodeToString(digest[:])
	ttl, err := c.PTTL(ctx, key).Result()
	if err != nil || ttl <= 80*time.Second || ttl > 90*time.Second {
		t.Fatalf("ttl %s, %v", ttl, err)
	}
}

// TestRedisReplayStoreAcrossInstances: two login instances, each with its
// own connection to one Redis, let exactly one of 20 concurrent uses of a
// token through.
func TestRedisReplayStoreAcrossInstances(t *testing.T) {
	c := redisTestClient(t)
	prefix := redisTestPrefix(t, c)
	other := redis.NewClient(&redis.Options{Addr: redistest.Shared(t)})
	defer other.Close()
	stores := []*StoreReplayStore{
		NewStoreReplayStore(store.NewRedis(c, prefix), nil),
		NewStoreReplayStore(store.NewRedis(other, prefix), nil),
	}
	claimRace(t, stores[0], stores[1])
}

// claimRace: 20 concurrent claims of one token, spread over stores, give
// exactly one success and 19 replays.
func claimRace(t *testing.T, stores ...ReplayStore) {
	t.Helper()
	until := time.Now().Add(time.Minute)
	var wins, replays atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			switch err := stores[i%len(stores)].Claim(context.Background(), "alpine", "shared", until); {
			case err == nil:
				wins.Add(1)
			case errors.Is(err, ErrReplay):
				replays.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 || replays.Load() != 19 {
		t.Fatalf("wins %d replays %d", wins.Load(), replays.Load())
	}
}

// TestBoltReplayStore: a jti spent through a bolt file is refused after
// the file is closed and opened again (a restart), until its expiry.
func TestBoltReplayStore(t *testing.T) {
	clock := testclock.New(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "replay.db")
	open := func() *store.Bolt {
		b, err := store.OpenBolt(path, store.WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := open()
	s := NewStoreReplayStore(store.WithPrefix(b, "login/replay/"), clock.Now)
	ctx := context.Background()
	until := clock.Now().Add(5 * time.Minute)
	if err := s.Claim(ctx, "alpine", "j1", until); err != nil {
		t.Fatal(err)
	}
	claimRace(t, s)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	b = open()
	defer b.Close()
	s = NewStoreReplayStore(store.WithPrefix(b, "login/replay/"), clock.Now)
	if err := s.Claim(ctx, "alpine", "j1", until); !errors.Is(err, ErrReplay) {
		t.Fatalf("claim after reopen: %v, want ErrReplay", err)
	}
	if err := s.Claim(ctx, "alpine", "shared", until); !errors.Is(err, ErrReplay) {
		t.Fatalf("raced claim after reopen: %v, want ErrReplay", err)
	}
	// The jti is not written in the file, only its digest.
	var keys []string
	b.Scan(ctx, "", func(k string, _ []byte) error { keys = append(keys, k); return nil })
	if len(keys) != 2 || strings.Contains(strings.Join(keys, " "), "j1") || !strings.HasPrefix(keys[0], "login/replay/") {
		t.Fatalf("keys in the file: %q", keys)
	}
	// Past the token's expiry the record is gone: no unbounded growth.
	clock.Advance(6 * time.Minute)
	if err := s.Claim(ctx, "alpine", "j1", clock.Now().Add(time.Minute)); err != nil {
		t.Fatalf("claim after expiry: %v", err)
	}
}

// closedAddr is a local address nothing listens on.
func closedAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestRedisReplayStoreDownFailsClosed(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: closedAddr(t), MaxRetries: -1, DialTimeout: time.Second})
	defer c.Close()
	s := NewStoreReplayStore(store.NewRedis(c, "osdm:jti:"), nil)
	err := s.Claim(context.Background(), "alpine", "j1", time.Now().Add(time.Minute))
	if !errors.Is(err, ErrReplayStoreUnavailable) {
		t.Fatalf("claim with Redis down: %v", err)
	}

	// Through the login service: server_error, 503, no token.
	f := newLoginFixture(t)
	f.service.Replay = s
	w := f.post(loginForm(f.valid()))
	if w.Code != 503 || !strings.Contains(w.Body.String(), `"error":"server_error"`) || strings.Contains(w.Body.String(), "access_token") {
		t.Fatalf("status %d body %s", w.Code, w.Body)
	}
}

func TestBoltReplayStoreClosedFailsClosed(t *testing.T) {
	b, err := store.OpenBolt(filepath.Join(t.TempDir(), "replay.db"))
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	s := NewStoreReplayStore(b, nil)
	if err := s.Claim(context.Background(), "alpine", "j1", time.Now().Add(time.Minute)); !errors.Is(err, ErrReplayStoreUnavailable) {
		t.Fatalf("claim on a closed file: %v", err)
	}
}
