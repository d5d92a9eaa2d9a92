package app

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/store"
)

func init() {
	caddy.RegisterModule(Bolt{})
}

const (
	// defaultBoltFile is the bolt file's path under Caddy's data directory.
	defaultBoltFile = "osdm/store.db"
	// boltSweepEvery is how often an open bolt file deletes its expired
	// keys (they are absent to every read before that).
	boltSweepEvery = 5 * time.Minute
)

// Bolt is the store engine osdm.stores.bolt: an embedded bbolt file, for
// one instance. Every store of one Caddy naming the same file shares one
// open database; a second process on the file fails to start, naming it.
type Bolt struct {
	// Path is the file, created with its directory (0700, file 0600) if
	// missing. Default: osdm/store.db in Caddy's data directory.
	Path string `json:"path,omitempty"`
	// Timeout is how long the start waits for a file another process
	// holds locked before it fails, naming the file. Default 5s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	path string // absolute, placeholders replaced
}

// CaddyModule returns the Caddy module information.
func (Bolt) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[Bolt]("osdm.stores.bolt")
}

// Provision resolves the path; it opens nothing.
func (b *Bolt) Provision(caddy.Context) error {
	if b.Timeout < 0 {
		return fmt.Errorf("store bolt timeout %v must be positive", time.Duration(b.Timeout))
	}
	path := caddy.NewReplacer().ReplaceAll(b.Path, "")
	if path == "" {
		path = filepath.Join(caddy.AppDataDir(), filepath.FromSlash(defaultBoltFile))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("store bolt path %q: %w", path, err)
	}
	b.path = abs
	return nil
}

// Where implements Engine.
func (b *Bolt) Where() string { return "bolt " + b.path }

// Exclusive implements Engine: a bolt file is locked by its process.
func (b *Bolt) Exclusive() bool { return true }

// PoolKey implements Engine.
func (b *Bolt) PoolKey() string { return "bolt\x00" + b.path }

// Open implements Engine.
func (b *Bolt) Open() (Database, error) {
	timeout := store.DefaultBoltTimeout
	if b.Timeout > 0 {
		timeout = time.Duration(b.Timeout)
	}
	db, err := store.OpenBolt(b.path, store.WithTimeout(timeout), store.WithSweepEvery(boltSweepEvery))
	if err != nil {
		return nil, err
	}
	return boltDB{db}, nil
}

// Check implements Engine: an open file is ready.
func (b *Bolt) Check(context.Context, Database) error { return nil }

// CheckTimeout implements Engine.
func (b *Bolt) CheckTimeout() time.Duration { return time.Second }

// View implements Engine.
func (b *Bolt) View(root store.Store) store.Store { return root }

// boltDB is an open bolt file in the pool.
type boltDB struct{ *store.Bolt }

// Store implements Database.
func (d boltDB) Store() store.Store { return d.Bolt }

// Destruct closes the file once no configuration holds it.
func (d boltDB) Destruct() error { return d.Close() }

// Interface guards
var (
	_ Engine            = (*Bolt)(nil)
	_ caddy.Provisioner = (*Bolt)(nil)
)
