package caddymodule

// TEMPORARY: a stand-in for the store branch's StoreConfig, store
// subdirective parser and store pool (caddymodule/store_*.go), with the
// same names and signatures, so osdm_convert's journal can be written and
// tested before that branch lands. Deleted when it is merged.

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/store"
)

const (
	storeEngineBolt  = "bolt"
	storeEngineRedis = "redis"
)

// StoreConfig chooses where a module keeps what must survive a restart or
// be seen by every instance.
type StoreConfig struct {
	// Engine is bolt (default) or redis.
	Engine string `json:"engine,omitempty"`
	// Path is the bolt file. Default: osdm/store.db in Caddy's data directory.
	Path string `json:"path,omitempty"`
	// Address is the Redis host:port.
	Address string `json:"address,omitempty"`
	// Prefix is put before every Redis key. Default: osdm:.
	Prefix string `json:"prefix,omitempty"`
	// Timeout bounds waiting for a locked bolt file or connecting to Redis.
	Timeout caddy.Duration `json:"timeout,omitempty"`
}

func (c StoreConfig) engine() string {
	if c.Engine == "" {
		return storeEngineBolt
	}
	return c.Engine
}

func unmarshalStoreArgs(d *caddyfile.Dispenser, sub string, args []string) (*StoreConfig, error) {
	if len(args) == 0 {
		return nil, d.Errf("%s takes bolt [<path>] or redis <address> [<key prefix>]", sub)
	}
	cfg := &StoreConfig{Engine: args[0]}
	switch {
	case args[0] == storeEngineBolt && len(args) <= 2:
		if len(args) == 2 {
			cfg.Path = args[1]
		}
	case args[0] == storeEngineRedis && (len(args) == 2 || len(args) == 3):
		cfg.Address = args[1]
		if len(args) == 3 {
			cfg.Prefix = args[2]
		}
	default:
		return nil, d.Errf("%s takes bolt [<path>] or redis <address> [<key prefix>]", sub)
	}
	return cfg, nil
}

var shimStores = caddy.NewUsagePool()

type shimPooled struct{ store.Store }

func (p shimPooled) Destruct() error { return p.Close() }

type storeLease struct {
	store.Store
	Where string
	key   string
	once  sync.Once
}

func acquireStore(cfg StoreConfig, view string) (*storeLease, error) {
	var key, where string
	var open func() (store.Store, error)
	switch cfg.engine() {
	case storeEngineBolt:
		path := cfg.Path
		if path == "" {
			path = filepath.Join(caddy.AppDataDir(), "osdm", "store.db")
		}
		path, _ = filepath.Abs(path)
		key, where = "bolt "+path, "bolt "+path
		open = func() (store.Store, error) { return store.OpenBolt(path) }
	case storeEngineRedis:
		prefix := cfg.Prefix
		if prefix == "" {
			prefix = "osdm:"
		}
		key, where = "redis "+cfg.Address+" "+prefix, "redis "+cfg.Address
		open = func() (store.Store, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			return store.OpenRedis(ctx, store.RedisOptions{Address: cfg.Address, Prefix: prefix})
		}
	default:
		return nil, fmt.Errorf("store engine %q is unknown (want bolt or redis)", cfg.Engine)
	}
	v, _, err := shimStores.LoadOrNew(key, func() (caddy.Destructor, error) {
		s, err := open()
		if err != nil {
			return nil, err
		}
		return shimPooled{s}, nil
	})
	if err != nil {
		return nil, err
	}
	return &storeLease{Store: store.WithPrefix(v.(shimPooled).Store, view), Where: where, key: key}, nil
}

func (l *storeLease) Release() error {
	var err error
	l.once.Do(func() { _, err = shimStores.Delete(l.key) })
	return err
}
