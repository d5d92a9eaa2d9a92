package stores

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// The store pools hold open stores across configuration reloads (a reload
// provisions the new configuration before it cleans up the old one, so a
// database both use stays open) and share them between the modules of one
// configuration: bbolt locks its file, so two modules naming one file
// must share one handle. One pool per engine: bolt stores keyed by
// absolute file path, Redis clients by address.
var (
	boltStores  = caddy.NewUsagePool()
	redisStores = caddy.NewUsagePool()
)

// pooledBolt is an open bolt file in boltStores.
type pooledBolt struct{ *store.Bolt }

// Destruct closes the file once no configuration uses it.
func (p pooledBolt) Destruct() error { return p.Close() }

// pooledRedis is a Redis client in redisStores.
type pooledRedis struct {
	client *redis.Client
	addr   string // host:port, for logs (the configured address may hold a password)
}

// Destruct closes the client once no configuration uses it.
func (p pooledRedis) Destruct() error { return p.client.Close() }

// Lease is one module's hold on a pooled store: a view of it under
// the module's key prefix. Release gives it back; the store is closed
// with its last lease.
type Lease struct {
	store.Store
	// Where names the store for logs and errors: "bolt <path>" or
	// "redis <host:port>".
	Where string

	pool *caddy.UsagePool
	key  string
	ping func(context.Context) error
	once sync.Once
}

// Acquire opens (or finds open) the store cfg names and returns a
// lease on the view under view (for example "legacy/<partner>/"). A bolt
// file locked by another process fails after cfg.Timeout with an error
// naming the file. A Redis is not contacted: call Ping to learn whether
// it answers.
func Acquire(cfg Config, view string) (*Lease, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	repl := caddy.NewReplacer()
	switch cfg.engine() {
	case EngineBolt:
		path, err := boltPath(repl.ReplaceAll(cfg.Path, ""))
		if err != nil {
			return nil, err
		}
		timeout := store.DefaultBoltTimeout
		if cfg.Timeout > 0 {
			timeout = time.Duration(cfg.Timeout)
		}
		key := path
		v, _, err := boltStores.LoadOrNew(key, func() (caddy.Destructor, error) {
			b, err := store.OpenBolt(path, store.WithTimeout(timeout), store.WithSweepEvery(boltSweepEvery))
			if err != nil {
				return nil, err
			}
			return pooledBolt{b}, nil
		})
		if err != nil {
			return nil, err
		}
		return &Lease{
			Store: store.WithPrefix(v.(pooledBolt).Bolt, view),
			Where: "bolt " + path,
			pool:  boltStores, key: key,
			ping: func(context.Context) error { return nil },
		}, nil
	default: // redis, as Validate checked
		addr := repl.ReplaceAll(cfg.Address, "")
		opts, err := redisOptions(addr, time.Duration(cfg.Timeout))
		if err != nil {
			return nil, fmt.Errorf("store redis address: %w", err)
		}
		prefix := cfg.Prefix
		if prefix == "" {
			prefix = defaultRedisPrefix
		}
		key := addr
		v, _, err := redisStores.LoadOrNew(key, func() (caddy.Destructor, error) {
			return pooledRedis{client: redis.NewClient(opts), addr: opts.Addr}, nil
		})
		if err != nil {
			return nil, err
		}
		p := v.(pooledRedis)
		return &Lease{
			Store: store.WithPrefix(store.NewRedis(p.client, prefix), view),
			Where: "redis " + p.addr,
			pool:  redisStores, key: key,
			ping: func(ctx context.Context) error { return p.client.Ping(ctx).Err() },
		}, nil
	}
}

// boltPath is the absolute path of the bolt file: path, or the default
// file in Caddy's data directory.
func boltPath(path string) (string, error) {
	if path == "" {
		path = filepath.Join(caddy.AppDataDir(), filepath.FromSlash(defaultBoltFile))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("store bolt path %q: %w", path, err)
	}
	return abs, nil
}

// redisOptions reads host:port or a redis:// / rediss:// URL. Timeouts are
// short: a request waiting on a dead Redis should fail in seconds.
func redisOptions(addr string, dial time.Duration) (*redis.Options, error) {
	var opts *redis.Options
	if strings.Contains(addr, "://") {
		var err error
		if opts, err = redis.ParseURL(addr); err != nil {
			return nil, err
		}
	} else {
		opts = &redis.Options{Addr: addr}
	}
	if dial <= 0 {
		dial = defaultRedisDialTimeout
	}
	opts.DialTimeout = dial
	opts.ReadTimeout = time.Second
	opts.WriteTimeout = time.Second
	opts.MaxRetries = 1
	return opts, nil
}

// Ping reports whether the store answers (a bolt file always does).
func (l *Lease) Ping(ctx context.Context) error {
	if err := l.ping(ctx); err != nil {
		return fmt.Errorf("%s: %w", l.Where, err)
	}
	return nil
}

// Release gives the lease back to its pool; the last one closes the
// store. Safe on a nil lease and more than once, so Cleanup can call it
// whether or not Provision got that far.
func (l *Lease) Release() error {
	if l == nil {
		return nil
	}
	var err error
	l.once.Do(func() { _, err = l.pool.Delete(l.key) })
	return err
}

// BoltReferences says how many leases hold the pooled bolt file at path,
// and whether it is pooled at all.
func BoltReferences(path string) (int, bool) { return boltStores.References(path) }
