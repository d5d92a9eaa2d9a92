// Package appview is the osdm app as the handlers see it: the stores a
// configuration names, its background work, and the route after a
// handler, for background work that sends through it. The app
// (caddymodule/app) implements Provider; a handler reaches it with For,
// from its Provision, and never imports the app's package.
package appview

import (
	"context"
	"fmt"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/runner"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// Name is the app's name: apps.osdm in JSON, the osdm global option in a
// Caddyfile.
const Name = "osdm"

// Provider is the osdm app, as a handler uses it while it is provisioned.
type Provider interface {
	// Store returns the store cfg names (nil: the default bolt file),
	// as a handle that is opened when
	// the app starts (a call waits for it, bounded, or fails with
	// store.ErrNotReady; never a nil store). Exclusive reports a store
	// one process alone opens (bolt).
	Store(cfg *storeconfig.Config) (h *store.Handle, exclusive bool, err error)
	// Background adds a job to the app's runner: it runs from the app's
	// Start (at once, then every settle_interval unless the job says)
	// until its Stop.
	Background(job runner.Job)
	// RouteAfter returns the route after h in the http app's servers:
	// what Caddy would pass h as next. It is known once the app has
	// started.
	RouteAfter(h caddyhttp.MiddlewareHandler) (*Route, error)
	// Report adds what a handler shows an operator (the admin API's
	// /osdm/ endpoints): its pending work and booking records
	// (opstatus.Source), its partner's token or calls
	// (opstatus.PartnerSource), or both.
	Report(v any)
}

// For returns the osdm app of the configuration ctx belongs to (an empty
// one, with the default store and interval, if the configuration has no
// apps.osdm). A context outside any configuration (a handler provisioned
// by Go code or a unit test) gets an app of its own, provisioned and
// started at once, and stopped when ctx is cancelled.
func For(ctx caddy.Context) (Provider, error) {
	a, err, configured := appOf(ctx)
	if !configured {
		if Standalone == nil {
			return nil, fmt.Errorf("no configuration, and the %s app is not registered", Name)
		}
		return Standalone(ctx)
	}
	if err != nil {
		return nil, err
	}
	p, ok := a.(Provider)
	if !ok {
		return nil, fmt.Errorf("app %s is a %T, not the osdm app", Name, a)
	}
	return p, nil
}

// Standalone makes the app of a context outside any configuration; the
// app's package sets it.
var Standalone func(ctx caddy.Context) (Provider, error)

// appOf is ctx.App(Name); configured is false for a context that belongs
// to no configuration (on which Caddy's App would dereference the missing
// configuration). A panic while the app loads is the caller's, as any
// other module's: it is never taken for "no configuration".
func appOf(ctx caddy.Context) (a any, err error, configured bool) {
	if !inConfiguration(ctx) {
		return nil, nil, false
	}
	a, err = ctx.App(Name)
	return a, err, true
}

// inConfiguration reports whether ctx belongs to a configuration Caddy
// loads. Caddy gives each configuration one file system map, made before
// any module is provisioned, and FileSystems returns it; a context with
// no configuration gets a new, empty map on every call. Caddy exports no
// other way to tell (FileSystems is marked experimental: the package's
// tests fail if it stops telling the two apart).
func inConfiguration(ctx caddy.Context) bool {
	return ctx.FileSystems() == ctx.FileSystems()
}

// Route is the rest of a route after one handler, as Caddy passes it to
// that handler as next, with what a request through it needs from the
// server: background work sends its sub-requests through Next, built on
// NewRequest.
type Route struct {
	// Next is the handler chain after the handler.
	Next caddyhttp.Handler
	// Server is the server whose routes hold the handler.
	Server *caddyhttp.Server
	// Host and Scheme are those a request to the handler's route would
	// have: the route's host matcher, or the server's listen address.
	Host, Scheme string
	// RemoteAddr is where a background request comes from: Caddy
	// itself, at the server's listen address (127.0.0.1 and the port for
	// a listener on every interface), what remote_ip matchers and the
	// {http.request.remote} placeholders after the handler see.
	RemoteAddr string
}

// NewRequest returns a request on ctx to send through Next, prepared as
// the server prepares a client's (its own replacer and variables, the
// server in its context), for method and path.
func (r *Route) NewRequest(ctx context.Context, method, path string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, path, http.NoBody)
	if err != nil {
		return nil, err
	}
	// As a server reads a request: the URL holds the path, Host the host.
	req.Host = r.Host
	req.RemoteAddr = r.RemoteAddr
	req.RequestURI = req.URL.RequestURI()
	return caddyhttp.PrepareRequest(req, caddy.NewReplacer(), nil, r.Server), nil
}
