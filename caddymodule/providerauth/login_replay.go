package providerauth

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// ReplayMemory is the replay store engine kept in this instance's memory
// only, forgotten when Caddy stops: the default.
const ReplayMemory = "memory"

// LoginReplayStore chooses where used jti values are kept: in memory
// (engine memory, the default), or in a store as every module names one
// (storeconfig.Config: a store of the osdm app, a bolt file kept across
// restarts, a Redis shared by every instance), under keys of its own.
type LoginReplayStore struct {
	// Config is the store, with the same fields as every module's store
	// (name, engine, path, address, prefix, timeout); engine may also be
	// memory. The Redis keys are <prefix>jti:<digest>.
	storeconfig.Config
	// MaxEntries bounds the memory store; at the limit new tokens are
	// refused (temporarily_unavailable). Default: 1000000. Engine memory
	// only.
	MaxEntries int `json:"max_entries,omitempty"`
	// Type is Engine's former name, still read so that configurations
	// written before keep working (deprecated: write engine).
	Type string `json:"type,omitempty"`
}

// engine is the replay store's engine, its store's when it names one:
// memory, bolt or redis, Type read for Engine; "" for a store of the osdm
// app.
func (r LoginReplayStore) engine() (string, error) {
	engine := r.Engine
	switch {
	case r.Type != "" && engine != "" && r.Type != engine:
		return "", fmt.Errorf("replay_store: engine %q and type %q (its former name) disagree: give engine only", engine, r.Type)
	case engine == "":
		engine = r.Type
	}
	if engine == "store" { // the engine a store of the app once took
		if r.Name == "" {
			return "", errors.New("replay_store store takes a name: a store of the osdm app")
		}
		engine = ""
	}
	if engine == "" && r.Name == "" {
		engine = ReplayMemory
	}
	if engine != "" && engine != ReplayMemory && !slices.Contains(storeconfig.Engines, engine) {
		return "", fmt.Errorf("replay_store engine %q is unknown (want %s, %s, or a store's name)", engine, ReplayMemory, strings.Join(storeconfig.Engines, ", "))
	}
	return engine, nil
}

// loginMemoryReplayStores holds the memory replay stores across
// configuration reloads: a reload must not forget the jti values of
// identity tokens that are still valid, or they could be replayed. A
// memory store is shared by the login handlers with the same issuer. (Bolt
// files and Redis clients are the osdm app's.)
// Once no configuration uses a store, its sweeper stops.
var loginMemoryReplayStores = modulekit.NewPool(func(p *pooledMemoryReplay) error {
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
	var cfg LoginReplayStore
	if l.ReplayStore != nil {
		cfg = *l.ReplayStore
	}
	engine, err := cfg.engine()
	if err != nil {
		return nil, err
	}
	if engine == ReplayMemory {
		if cfg.Name != "" || cfg.Address != "" || cfg.Path != "" || cfg.Prefix != "" || cfg.Timeout != 0 {
			return nil, errors.New("replay_store memory takes no name, address, path, prefix or timeout")
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
	}
	if cfg.MaxEntries != 0 {
		return nil, errors.New("replay_store: max_entries is the memory store's bound; a store takes none")
	}
	ref := cfg.Config
	ref.Engine = engine
	app, err := appview.For(ctx)
	if err != nil {
		return nil, err
	}
	// The app checks ref as storeconfig.Config.Validate does, with its
	// messages.
	h, exclusive, err := app.Store(&ref)
	if err != nil {
		return nil, fmt.Errorf("replay_store: %w", err)
	}
	view := loginReplayViewBolt
	if !exclusive {
		view = loginReplayViewRedis
	}
	return tokenauth.NewStoreReplayStore(store.WithPrefix(h, view), l.now), nil
}

// releaseReplayStore gives back what acquireReplayStore obtained, and
// nothing else (Caddy calls Cleanup after a failed Provision too).
func (l *Login) releaseReplayStore() error {
	err := loginMemoryReplayStores.Release(l.memoryKey)
	l.memoryKey = ""
	return err
}
