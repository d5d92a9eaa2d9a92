package provider

import (
	"errors"
	"fmt"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/osdmapp"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/stores"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// LoginReplayStore chooses where used jti values are kept.
type LoginReplayStore struct {
	// Engine is memory (this instance only, forgotten when Caddy stops),
	// store (a store of the osdm app, Name), bolt (a file: kept across
	// restarts of this instance) or redis (shared by every instance using
	// the same Redis): the same key as a store's engine.
	Engine string `json:"engine,omitempty"`
	// Type is Engine's former name, still read: configurations written
	// before keep working.
	Type string `json:"type,omitempty"`
	// Name is the osdm app's store, for type store.
	Name string `json:"name,omitempty"`
	// Path is the bolt file, which other modules naming the same file
	// share. Default: osdm/store.db in Caddy's data directory. Type bolt
	// only.
	Path string `json:"path,omitempty"`
	// Address is the Redis address, host:port or a redis:// or rediss://
	// URL (which can carry a password and database). Type redis only.
	Address string `json:"address,omitempty"`
	// Prefix is put before every Redis key (the replay keys are
	// <prefix>jti:<digest>). Default: osdm:. Type redis only.
	Prefix string `json:"prefix,omitempty"`
	// MaxEntries bounds the memory store; at the limit new tokens are
	// refused (temporarily_unavailable). Default: 1000000. Type memory only.
	MaxEntries int `json:"max_entries,omitempty"`
}

// loginMemoryReplayStores holds the memory replay stores across
// configuration reloads: a reload must not forget the jti values of
// identity tokens that are still valid, or they could be replayed. A
// memory store is shared by the login handlers with the same issuer. (Bolt
// files and Redis clients are the osdm app's.)
// Once no configuration uses a store, its sweeper stops.
var loginMemoryReplayStores = glue.NewPool(func(p *pooledMemoryReplay) error {
	p.Stop()
	return nil
})

// pooledMemoryReplay is a memory replay store in loginMemoryReplayStores,
// with the issuer its metric is labelled with.
type pooledMemoryReplay struct {
	*tokenauth.MemoryReplayStore
	issuer string
}

// Views of the shared stores the replay store keeps its keys under. The
// Redis keys stay <prefix>jti:<digest> (osdm:jti:... by default), as
// before bolt and Redis shared one store pool, so that an upgrade does not
// forget the tokens spent just before it.
const (
	loginReplayViewBolt  = "login/replay/"
	loginReplayViewRedis = "jti:"
)

// acquireReplayStore finds or makes the replay store the configuration
// names, and records what Cleanup must give back.
func (l *Login) acquireReplayStore(ctx caddy.Context) (tokenauth.ReplayStore, error) {
	cfg := LoginReplayStore{Engine: "memory"}
	if l.ReplayStore != nil {
		cfg = *l.ReplayStore
	}
	switch {
	case cfg.Type != "" && cfg.Engine != "" && cfg.Type != cfg.Engine:
		return nil, fmt.Errorf("replay_store: engine %q and type %q (its former name) disagree: give engine only", cfg.Engine, cfg.Type)
	case cfg.Engine == "":
		cfg.Engine = cfg.Type
	}
	switch cfg.Engine {
	case "memory", "":
		if cfg.Address != "" || cfg.Path != "" || cfg.Prefix != "" {
			return nil, errors.New("replay_store memory takes no address, path or prefix")
		}
		if cfg.MaxEntries < 0 {
			return nil, fmt.Errorf("replay_store max_entries %d must be positive", cfg.MaxEntries)
		}
		key := "memory\x00" + l.Issuer
		p, _, err := loginMemoryReplayStores.Take(key, func() (*pooledMemoryReplay, error) {
			m := tokenauth.NewMemoryReplayStore(tokenauth.MemoryReplayOptions{MaxEntries: cfg.MaxEntries, Now: l.now})
			return &pooledMemoryReplay{MemoryReplayStore: m, issuer: l.Issuer}, nil
		})
		if err != nil {
			return nil, err
		}
		l.memoryKey = key
		p.SetMaxEntries(cfg.MaxEntries)
		return p, nil
	case "store", stores.EngineBolt, stores.EngineRedis:
		if cfg.MaxEntries != 0 {
			return nil, fmt.Errorf("replay_store %s takes no max_entries (the memory store's bound)", cfg.Engine)
		}
		ref := (&stores.Config{Name: cfg.Name, Engine: cfg.Engine, Path: cfg.Path, Address: cfg.Address, Prefix: cfg.Prefix}).Ref()
		view := loginReplayViewBolt
		if cfg.Engine == "store" {
			ref.Engine = ""
			if cfg.Name == "" || cfg.Path != "" || cfg.Address != "" || cfg.Prefix != "" {
				return nil, errors.New("replay_store store takes a name, and no path, address or prefix")
			}
		}
		app, err := osdmapp.For(ctx)
		if err != nil {
			return nil, err
		}
		h, exclusive, err := app.Store(ref)
		if err != nil {
			return nil, fmt.Errorf("replay_store: %w", err)
		}
		if !exclusive {
			view = loginReplayViewRedis
		}
		return tokenauth.NewStoreReplayStore(store.WithPrefix(h, view), l.now), nil
	}
	return nil, fmt.Errorf("replay_store engine %q is unknown (want memory, store, bolt or redis)", cfg.Engine)
}

// releaseReplayStore gives back what acquireReplayStore obtained, and
// nothing else (Caddy calls Cleanup after a failed Provision too).
func (l *Login) releaseReplayStore() error {
	err := loginMemoryReplayStores.Release(l.memoryKey)
	l.memoryKey = ""
	return err
}
