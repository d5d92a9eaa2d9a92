package stores

import (
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// Store engines.
const (
	EngineBolt  = "bolt"
	EngineRedis = "redis"
)

// Defaults of StoreConfig.
const (
	// defaultBoltFile is the bolt file's path under Caddy's data directory.
	defaultBoltFile = "osdm/store.db"
	// defaultRedisPrefix is put before every Redis key.
	defaultRedisPrefix = "osdm:"
	// defaultRedisDialTimeout bounds connecting to Redis: a request
	// waiting on a dead Redis should fail in seconds.
	defaultRedisDialTimeout = 2 * time.Second
	// boltSweepEvery is how often a pooled bolt file deletes its expired
	// keys (they are absent to every read before that).
	boltSweepEvery = 5 * time.Minute
)

// Config chooses where a module keeps what must survive a restart or
// be seen by every instance (DESIGN.md section 8). Modules of one Caddy
// that name the same bolt file, or the same Redis address, share one open
// database or one connection pool, each module under a key prefix of its
// own.
type Config struct {
	// Engine is bolt (an embedded file; one instance) or redis (shared by
	// every instance using the same Redis). Default: bolt.
	Engine string `json:"engine,omitempty"`
	// Path is the bolt file, created with its directory (0700, file 0600)
	// if missing. Default: osdm/store.db in Caddy's data directory. bolt
	// only.
	Path string `json:"path,omitempty"`
	// Address is the Redis: host:port, or a redis:// or rediss:// URL
	// (which can carry a password and database). Required for redis.
	Address string `json:"address,omitempty"`
	// Prefix is put before every Redis key, so that several deployments
	// can share one Redis. Default: osdm:. redis only.
	Prefix string `json:"prefix,omitempty"`
	// Timeout bounds waiting: for bolt, on a file another process holds
	// locked (default 5s, then provisioning fails naming the file); for
	// redis, on connecting (default 2s).
	Timeout caddy.Duration `json:"timeout,omitempty"`
}

// engine is the configured engine, bolt if none.
func (c Config) engine() string {
	if c.Engine == "" {
		return EngineBolt
	}
	return c.Engine
}

// Validate reports a field that does not fit the engine.
func (c Config) Validate() error {
	if c.Timeout < 0 {
		return fmt.Errorf("store timeout %v must be positive", time.Duration(c.Timeout))
	}
	switch c.engine() {
	case EngineBolt:
		if c.Address != "" || c.Prefix != "" {
			return fmt.Errorf("store bolt takes a path, not a Redis address or key prefix")
		}
	case EngineRedis:
		if c.Address == "" {
			return fmt.Errorf("store redis needs an address (host:port or redis:// URL)")
		}
		if c.Path != "" {
			return fmt.Errorf("store redis takes an address, not a path")
		}
	default:
		return fmt.Errorf("store engine %q is unknown (want bolt or redis)", c.Engine)
	}
	return nil
}
