// Package app is the osdm app (apps.osdm; the osdm global option of a
// Caddyfile): the stores every handler of a configuration keeps its
// state in, and the runner of their background work. As Caddy's own apps
// do, it only reads and checks its configuration in Provision (asking a
// Redis, read only, whether it persists), so that `caddy validate` of a
// configuration that is serving opens nothing for writing, and does what
// touches the world in Start: it opens the stores (refusing a
// Redis that would lose bookings) and starts the background work, which
// Stop stops.
package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/runner"
	"github.com/caddy-osdm/caddy-osdm/store"
)

func init() {
	caddy.RegisterModule(App{})
	appview.Standalone = standalone
}

// standalone is the app of a context outside any configuration: started
// at once, stopped and released when ctx is cancelled.
func standalone(ctx caddy.Context) (appview.Provider, error) {
	a := new(App)
	if err := a.Provision(ctx); err != nil {
		return nil, err
	}
	a.lazyStart = true
	ctx.OnCancel(func() {
		a.Stop()
		a.Cleanup()
	})
	return a, nil
}

// storeWait is how long a handler's call waits for a store its
// configuration has not opened yet (the http app may serve before this
// one has started), before it fails retryably.
const storeWait = 5 * time.Second

// App is the osdm app.
type App struct {
	// Stores are the named stores, each an osdm.stores module (bolt or
	// redis), which handlers name with `store <name>`.
	Stores map[string]json.RawMessage `json:"stores,omitempty" caddy:"namespace=osdm.stores inline_key=engine"`
	// SettleInterval is how often the background work of every handler
	// runs (settling exchanges and intents a dead process left without
	// an outcome, both directions; releasing expired holds), from the
	// app's start. Default 30s.
	SettleInterval caddy.Duration `json:"settle_interval,omitempty"`

	ctx    caddy.Context
	logger *zap.Logger
	runner *runner.Runner

	mu      *sync.Mutex          // set by Provision (a Mutex would be copied by CaddyModule)
	stores  map[string]*appStore // by name; unnamed ones by their engine's key
	reports []any                // opstatus sources the handlers gave (Report)
	started bool
	// lazyStart: an app outside any configuration opens each store as it
	// is asked for, and runs no background work.
	lazyStart bool
}

// appStore is one store of the app: its engine, the handle handed out,
// and its hold on the pool once opened.
type appStore struct {
	name   string
	engine Engine
	handle *store.Handle
	db     Database // once opened
	pooled bool     // the app holds db in the pool
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[App](appview.Name)
}

// Provision loads the store modules; it opens nothing.
func (a *App) Provision(ctx caddy.Context) error {
	a.ctx = ctx
	a.logger = ctx.Logger()
	if a.SettleInterval < 0 {
		return fmt.Errorf("settle_interval %v must be positive", time.Duration(a.SettleInterval))
	}
	a.runner = runner.New(time.Duration(a.SettleInterval))
	a.mu = new(sync.Mutex)
	a.stores = make(map[string]*appStore)
	if reg := ctx.GetMetricsRegistry(); reg != nil {
		m, err := registerStatusMetrics(reg)
		if err != nil {
			return fmt.Errorf("registering metrics: %w", err)
		}
		a.runner.Add(a.statusJob(m))
	}
	if len(a.Stores) == 0 {
		return nil
	}
	mods, err := ctx.LoadModule(a, "Stores")
	if err != nil {
		return fmt.Errorf("loading stores: %w", err)
	}
	for name, m := range mods.(map[string]any) {
		if name == "" {
			return errors.New("a store needs a name")
		}
		e, ok := m.(Engine)
		if !ok {
			return fmt.Errorf("store %q: module %T is not a store engine", name, m)
		}
		if name[0] == 0 {
			return fmt.Errorf("store %q: a name cannot start with a NUL byte", name)
		}
		a.stores[name] = &appStore{name: name, engine: e, handle: store.NewHandle(e.Where(), storeWait)}
	}
	return nil
}

// Store implements appview.Provider.
func (a *App) Store(cfg *storeconfig.Config) (*store.Handle, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started && !a.lazyStart {
		return nil, false, errors.New("the osdm app has started: no store can be added")
	}
	if cfg != nil && cfg.Name != "" {
		if err := cfg.Validate(); err != nil {
			return nil, false, err
		}
		s, ok := a.stores[cfg.Name]
		if !ok {
			names := slices.Sorted(maps.Keys(a.stores))
			if len(names) == 0 {
				return nil, false, fmt.Errorf("store %q is not defined: the osdm global option defines no store", cfg.Name)
			}
			return nil, false, fmt.Errorf("store %q is not defined in the osdm global option (defined: %v)", cfg.Name, names)
		}
		return s.handle, s.engine.Exclusive(), nil
	}
	e, err := inlineEngine(a.ctx, cfg)
	if err != nil {
		return nil, false, err
	}
	key := "\x00inline " + e.PoolKey() + "\x00" + e.Where()
	if s, ok := a.stores[key]; ok {
		return s.handle, s.engine.Exclusive(), nil
	}
	s := &appStore{name: "", engine: e, handle: store.NewHandle(e.Where(), storeWait)}
	a.stores[key] = s
	if a.lazyStart {
		// No Start will come: open it now. The runner is never
		// started: outside a configuration there is no route for
		// background work to send through.
		if err := a.open(s); err != nil {
			return nil, false, err
		}
	}
	return s.handle, e.Exclusive(), nil
}

// Background implements appview.Provider.
func (a *App) Background(job runner.Job) { a.runner.Add(job) }

// RouteAfter implements appview.Provider.
func (a *App) RouteAfter(h caddyhttp.MiddlewareHandler) (*appview.Route, error) {
	httpApp, err := a.ctx.AppIfConfigured("http")
	if err != nil {
		return nil, fmt.Errorf("no http app: %w", err)
	}
	return routeAfter(httpApp.(*caddyhttp.App), h)
}

// Start opens every store (a bolt file another process holds fails,
// naming the file; a Redis that would lose bookings is refused, saying
// why) and starts the background work. It opens every store even after
// one failed: Caddy may have started this configuration's servers
// already, and a request they take before Caddy stops them is served on
// its open stores, or told at once that its store failed, rather than
// left waiting for a store nobody opens.
func (a *App) Start() error {
	a.mu.Lock()
	a.started = true
	stores := slices.SortedFunc(maps.Values(a.stores), func(x, y *appStore) int {
		return strings.Compare(x.describe(), y.describe())
	})
	a.mu.Unlock()
	var errs []error
	for _, s := range stores {
		if err := a.open(s); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	a.runner.Start()
	running.Store(a)
	return nil
}

// open opens s and hands it to its handle; a store its engine cannot
// reach now is opened by a background job as soon as it answers.
func (a *App) open(s *appStore) error {
	v, _, err := pool.LoadOrNew(s.engine.PoolKey(), func() (caddy.Destructor, error) { return s.engine.Open() })
	if err != nil {
		s.handle.Fail(err)
		return fmt.Errorf("store %s: %w", s.describe(), err)
	}
	s.db, s.pooled = v.(Database), true
	err = a.check(s)
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, ErrUnreachable):
		s.handle.Fail(err)
		return fmt.Errorf("store %s: %w", s.describe(), err)
	}
	// A Redis that starts after Caddy: calls wait for it, bounded, and
	// fail retryably meanwhile; it is tried again until it answers.
	a.logger.Warn("store not reachable; calls that need it fail retryably until it answers",
		zap.String("store", s.engine.Where()), zap.Error(err))
	s.handle.Waiting(err)
	var done atomic.Bool
	a.runner.Add(runner.Job{Name: "open " + s.engine.Where(), Every: reconnectEvery, Run: func(ctx context.Context) {
		if done.Load() {
			return
		}
		switch err := a.check(s); {
		case err == nil:
			a.logger.Info("store reachable", zap.String("store", s.engine.Where()))
			done.Store(true)
		case !errors.Is(err, ErrUnreachable):
			a.logger.Error("store refused; calls that need it fail", zap.String("store", s.engine.Where()), zap.Error(err))
			s.handle.Fail(err)
			done.Store(true)
		default:
			s.handle.Waiting(err)
		}
	}})
	return nil
}

// reconnectEvery is how often a store not reachable at start is tried.
const reconnectEvery = 2 * time.Second

// check runs the engine's check of s's database and opens s's handle if
// it passes.
func (a *App) check(s *appStore) error {
	ctx, cancel := context.WithTimeout(a.ctx, s.engine.CheckTimeout())
	defer cancel()
	if err := s.engine.Check(ctx, s.db); err != nil {
		return err
	}
	s.handle.Open(s.engine.View(s.db.Store()))
	return nil
}

// describe names s for errors: its name and where it is.
func (s *appStore) describe() string {
	if s.name == "" {
		return s.engine.Where()
	}
	return fmt.Sprintf("%q (%s)", s.name, s.engine.Where())
}

// Stop stops the background work, waiting for the passes under way.
// The stores stay open until the configuration is unloaded (Cleanup):
// the http app may stop after this one, and its requests still under
// way must finish on an open store.
func (a *App) Stop() error {
	running.CompareAndSwap(a, nil)
	a.runner.Stop()
	return nil
}

// Cleanup gives back the app's hold on every store it opened; the last
// configuration holding a database closes it.
func (a *App) Cleanup() error {
	if a.mu == nil {
		return nil // Provision did not get far
	}
	a.runner.Stop() // a Start that failed half-way
	a.mu.Lock()
	defer a.mu.Unlock()
	var errs []error
	for _, s := range a.stores {
		if s.pooled {
			s.pooled = false
			if _, err := pool.Delete(s.engine.PoolKey()); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Interface guards
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
	_ appview.Provider   = (*App)(nil)
)
