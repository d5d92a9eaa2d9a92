package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/osdmapp"
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

// inlineEngine is the engine of a handler's inline store form.
func inlineEngine(ctx caddy.Context, ref osdmapp.StoreRef) (Engine, error) {
	switch ref.Engine {
	case "", engineBolt:
		if ref.Address != "" || ref.Prefix != "" {
			return nil, errors.New("store bolt takes a path, not a Redis address or key prefix")
		}
		b := &Bolt{Path: ref.Path, Timeout: caddy.Duration(ref.Timeout)}
		return b, b.Provision(ctx)
	case engineRedis:
		if ref.Path != "" {
			return nil, errors.New("store redis takes an address, not a path")
		}
		if ref.Address == "" {
			return nil, errors.New("store redis needs an address (host:port or redis:// URL)")
		}
		r := &Redis{Addresses: []string{ref.Address}, Prefix: ref.Prefix, Timeout: caddy.Duration(ref.Timeout)}
		return r, r.Provision(ctx)
	}
	return nil, fmt.Errorf("store engine %q is unknown (want bolt or redis)", ref.Engine)
}
