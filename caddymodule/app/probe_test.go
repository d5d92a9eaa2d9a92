package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/runner"
	"github.com/caddy-osdm/caddy-osdm/store"
)

func init() {
	caddy.RegisterModule(probe{})
}

// probe is a handler that uses the osdm app as osdm_convert and
// osdm_legacy do: a store from the app, and background work that sends
// through the rest of its route. Each pass sends GET /background through
// next and keeps the answer's body in the store under "last"; a request
// is answered with what the store holds there.
type probe struct {
	Store *storeconfig.Config `json:"store"`

	h *store.Handle
}

func (probe) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.osdm_app_probe", New: func() caddy.Module { return new(probe) }}
}

// probeHandles holds the store handle of the probe last provisioned for
// each store name, for tests that look at a configuration Caddy refused.
var probeHandles sync.Map // store name -> *store.Handle

func (p *probe) Provision(ctx caddy.Context) error {
	app, err := appview.For(ctx)
	if err != nil {
		return err
	}
	if p.h, _, err = app.Store(p.Store); err != nil {
		return err
	}
	probeHandles.Store(p.Store.Name, p.h)
	app.Background(runner.Job{Name: "probe", Run: func(ctx context.Context) {
		route, err := app.RouteAfter(p)
		if err != nil {
			p.h.Put(ctx, "last", []byte("route: "+err.Error()), 0)
			return
		}
		req, err := route.NewRequest(ctx, http.MethodGet, "/background")
		if err != nil {
			return
		}
		w := &recorder{header: http.Header{}}
		if err := route.Next.ServeHTTP(w, req); err != nil {
			p.h.Put(ctx, "last", []byte("next: "+err.Error()), 0)
			return
		}
		p.h.Put(ctx, "last", []byte(fmt.Sprintf("%d %s", w.status, w.body)), 0)
	}})
	return nil
}

func (p *probe) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	v, err := p.h.Get(ctx, "last")
	if err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, err = w.Write([]byte(err.Error()))
		return err
	}
	_, err = w.Write(v)
	return err
}

// recorder is a response writer in memory.
type recorder struct {
	header http.Header
	status int
	body   []byte
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	r.body = append(r.body, b...)
	return len(b), nil
}

var (
	_ caddyhttp.MiddlewareHandler = (*probe)(nil)
	_ io.Writer                   = (*recorder)(nil)
	_                             = json.Marshal
)
