package storeconfig

import (
	"fmt"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// Store engines: the names of the osdm app's engine modules
// (osdm.stores.bolt, osdm.stores.redis) and of a store's engine field.
const (
	EngineBolt  = "bolt"
	EngineRedis = "redis"
)

// Engines are the store engines, in the order errors list them.
var Engines = []string{EngineBolt, EngineRedis}

// UnknownEngine is the error of an engine that is none of Engines, about
// what (e.g. store main).
func UnknownEngine(what, engine string) error {
	return fmt.Errorf("%s: engine %q is unknown (want %s)", what, engine, strings.Join(Engines, " or "))
}

// Config chooses where a module keeps what must survive a restart or
// be seen by every instance. Modules of one Caddy
// that name the same bolt file, or the same Redis address, share one open
// database or one connection pool (the osdm app's), each module under a
// key prefix of its own.
type Config struct {
	// Name is a store of the osdm app (its osdm global option, or
	// apps.osdm.stores in JSON); with it, no other field is set.
	Name string `json:"name,omitempty"`
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

// Validate reports a field that does not fit the engine. It is the one
// check of a store's fields: the Caddyfile, JSON and the osdm app's
// inline stores all answer with its messages.
func (c Config) Validate() error {
	if c.Name != "" {
		if c.Engine != "" || c.Path != "" || c.Address != "" || c.Prefix != "" || c.Timeout != 0 {
			return fmt.Errorf("store %q: a named store takes no engine, path, address, prefix or timeout (the app's osdm block says them)", c.Name)
		}
		return nil
	}
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
		return UnknownEngine("store", c.Engine)
	}
	return nil
}
