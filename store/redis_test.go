package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// openTestRedis opens a store under a random key prefix, and deletes its
// keys when the test ends.
func openTestRedis(tb testing.TB) *store.Redis {
	tb.Helper()
	s, _ := openTestRedisPrefix(tb)
	return s
}

func openTestRedisPrefix(tb testing.TB) (*store.Redis, string) {
	tb.Helper()
	addr := redistest.Shared(tb)
	var b [8]byte
	rand.Read(b[:])
	// The prefix holds glob characters on purpose: they must not widen
	// what Scan sees.
	prefix := "osdm-test/" + hex.EncodeToString(b[:]) + "/*?[x]/"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := store.OpenRedis(ctx, store.RedisOptions{Address: addr, Prefix: prefix})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		c, err := store.OpenRedis(context.Background(), store.RedisOptions{Address: addr, Prefix: prefix})
		if err != nil {
			tb.Error(err)
			return
		}
		defer c.Close()
		var keys []string
		c.Scan(context.Background(), "", func(k string, _ []byte) error { keys = append(keys, k); return nil })
		for _, k := range keys {
			c.Delete(context.Background(), k)
		}
	})
	return s, prefix
}

// redisClient is a client the test closes.
func redisClient(tb testing.TB, addr string) redis.UniversalClient {
	c := redis.NewClient(&redis.Options{Addr: addr})
	tb.Cleanup(func() { c.Close() })
	return c
}

func TestRedisSuite(t *testing.T) {
	redistest.Shared(t)
	storetest.Run(t, func(t *testing.T) store.Store { return openTestRedis(t) },
		storetest.Clock{TTL: 150 * time.Millisecond, Advance: time.Sleep})
}

// TestRedisPrefixKeepsStoresApart: two stores on one Redis under
// different prefixes see only their own keys, even when one prefix
// starts with the other.
func TestRedisPrefixKeepsStoresApart(t *testing.T) {
	addr := redistest.Shared(t)
	ctx := context.Background()
	_, base := openTestRedisPrefix(t)
	a := store.NewRedis(redisClient(t, addr), base+"a/")
	ab := store.NewRedis(redisClient(t, addr), base+"a/b/")
	if err := a.Put(ctx, "k", []byte("a"), 0); err != nil {
		t.Fatal(err)
	}
	if err := ab.Put(ctx, "k", []byte("ab"), 0); err != nil {
		t.Fatal(err)
	}
	var seen []string
	if err := ab.Scan(ctx, "", func(k string, _ []byte) error { seen = append(seen, k); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(seen, ",") != "k" {
		t.Fatalf("store a/b/ scanned %q", seen)
	}
	if v, err := a.Get(ctx, "b/k"); err != nil || string(v) != "ab" {
		t.Fatalf("a/ sees a/b/'s key as b/k: %q, %v", v, err)
	}
}

func TestRedisUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	_, err := store.OpenRedis(ctx, store.RedisOptions{Address: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("OpenRedis of a closed port = %v, want an error naming the address", err)
	}
}
