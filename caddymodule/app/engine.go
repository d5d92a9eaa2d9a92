package app

import (
	"context"
	"errors"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// Engine is a store guest module of the app (namespace osdm.stores): it
// says where its database is and how to open it. A new engine is a new
// module.
type Engine interface {
	caddy.Module
	// Where names the store for logs and errors, without credentials
	// ("bolt /var/lib/caddy/osdm.db", "redis sentinel a:26379,b:26379
	// master bookings prefix osdm:").
	Where() string
	// Exclusive reports a database one process alone opens (a bolt
	// file), whose owner need not guard against another instance.
	Exclusive() bool
	// PoolKey identifies the database: stores with the same key share
	// one open database, across configurations too (a reload starts the
	// new configuration before the old one stops).
	PoolKey() string
	// Open opens the database. It is called once per PoolKey while any
	// configuration holds it.
	Open() (Database, error)
	// Check tells whether db may be used now: nil; an error wrapping
	// ErrUnreachable, to try again later; any other error refuses it.
	// It runs at every start of a configuration.
	Check(ctx context.Context, db Database) error
	// CheckTimeout bounds Check.
	CheckTimeout() time.Duration
	// View is the store the handlers get on db (under the engine's key
	// prefix, if it has one).
	View(root store.Store) store.Store
}

// Database is an open database in the pool.
type Database interface {
	caddy.Destructor
	// Store is the database's root store.
	Store() store.Store
}

// ErrUnreachable is wrapped by an Engine's Check for a database that does
// not answer now.
var ErrUnreachable = errors.New("not reachable")

// pool holds open databases across configurations, keyed by PoolKey.
var pool = caddy.NewUsagePool()

// inlineEngine is the engine of a handler's inline store form (nil: the
// default bolt file); cfg.Validate says what does not fit.
func inlineEngine(ctx caddy.Context, cfg *storeconfig.Config) (Engine, error) {
	if cfg == nil {
		cfg = new(storeconfig.Config)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var e interface {
		Engine
		caddy.Provisioner
	}
	if cfg.Engine == storeconfig.EngineRedis {
		e = &Redis{Addresses: []string{cfg.Address}, Prefix: cfg.Prefix, Timeout: cfg.Timeout}
	} else {
		e = &Bolt{Path: cfg.Path, Timeout: cfg.Timeout}
	}
	return e, e.Provision(ctx)
}
