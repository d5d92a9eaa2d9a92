package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

func openChecked(t *testing.T, o store.RedisOptions) (*store.Redis, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := store.OpenRedis(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, s.CheckDurable(ctx)
}

func TestRedisCheckDurable(t *testing.T) {
	for name, tc := range map[string]struct {
		args []string
		want []string // in the error; none: durable
	}{
		"aof":                 {args: nil},
		"rdb only":            {args: []string{"--appendonly", "no", "--save", "900 1"}},
		"no persistence":      {args: redistest.Volatile, want: []string{"does not persist", "appendonly yes"}},
		"evicts":              {args: []string{"--maxmemory-policy", "allkeys-lru"}, want: []string{"evicts keys", "allkeys-lru", "noeviction"}},
		"volatile and evicts": {args: append([]string{"--maxmemory-policy", "volatile-ttl"}, redistest.Volatile...), want: []string{"does not persist", "volatile-ttl"}},
	} {
		t.Run(name, func(t *testing.T) {
			addr := redistest.Server(t, tc.args...)
			_, err := openChecked(t, store.RedisOptions{Addresses: []string{addr}})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("CheckDurable = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, store.ErrVolatile) {
				t.Fatalf("CheckDurable = %v, want ErrVolatile", err)
			}
			for _, w := range append(tc.want, addr) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckDurable = %q, want it to say %q", err, w)
				}
			}
		})
	}
}

// A Redis that refuses CONFIG (managed services rename it) is read from
// INFO: AOF on passes, AOF off fails (its RDB save points cannot be read).
func TestRedisCheckDurableWithoutConfig(t *testing.T) {
	on := redistest.Server(t, "--rename-command", "CONFIG", "")
	if _, err := openChecked(t, store.RedisOptions{Addresses: []string{on}}); err != nil {
		t.Errorf("AOF on, CONFIG refused: CheckDurable = %v, want nil", err)
	}
	off := redistest.Server(t, "--appendonly", "no", "--save", "900 1", "--rename-command", "CONFIG", "")
	if _, err := openChecked(t, store.RedisOptions{Addresses: []string{off}}); !errors.Is(err, store.ErrVolatile) {
		t.Errorf("AOF off, CONFIG refused: CheckDurable = %v, want ErrVolatile", err)
	}
}

func TestRedisClusterSuite(t *testing.T) {
	addrs := redistest.Cluster(t, 3)
	s, err := openChecked(t, store.RedisOptions{Addresses: addrs, Prefix: "suite:"})
	if err != nil {
		t.Fatalf("CheckDurable on a durable cluster = %v", err)
	}
	storetest.Run(t, func(t *testing.T) store.Store { return store.WithPrefix(s, t.Name()+"/") },
		storetest.Clock{TTL: 150 * time.Millisecond, Advance: time.Sleep})
}

func TestRedisSentinelSuite(t *testing.T) {
	sentinels, master := redistest.Sentinel(t, "bookings")
	s, err := openChecked(t, store.RedisOptions{Addresses: sentinels, MasterName: "bookings", Prefix: "suite:"})
	if err != nil {
		t.Fatalf("CheckDurable through sentinels = %v", err)
	}
	storetest.Run(t, func(t *testing.T) store.Store { return store.WithPrefix(s, t.Name()+"/") },
		storetest.Clock{TTL: 150 * time.Millisecond, Advance: time.Sleep})
	// The keys are on the master the sentinels name.
	direct, err := openChecked(t, store.RedisOptions{Addresses: []string{master}, Prefix: "suite:"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Put(ctx, "where", []byte("master"), 0); err != nil {
		t.Fatal(err)
	}
	if v, err := direct.Get(ctx, "where"); err != nil || string(v) != "master" {
		t.Fatalf("the master has %q, %v; want the key written through the sentinels", v, err)
	}
}
