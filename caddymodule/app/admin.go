package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
)

func init() {
	caddy.RegisterModule(Admin{})
}

// settleTimeout bounds a settlement pass an operator asks for.
const settleTimeout = 2 * time.Minute

// Admin is the admin API module admin.api.osdm: on Caddy's admin
// listener only (with its access controls), what the running osdm app
// and its handlers hold, for an operator: partners, pending settlement,
// a booking's record, the stores, and settlement on demand.
type Admin struct{}

// CaddyModule returns the Caddy module information.
func (Admin) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "admin.api.osdm", New: func() caddy.Module { return new(Admin) }}
}

// Routes implements caddy.AdminRouter.
func (Admin) Routes() []caddy.AdminRoute {
	return []caddy.AdminRoute{
		{Pattern: "/osdm/partners", Handler: get(func(ctx context.Context, a *App, _ string) (any, error) { return a.partners(), nil })},
		{Pattern: "/osdm/pending", Handler: get(func(ctx context.Context, a *App, _ string) (any, error) { return a.pending(ctx) })},
		{Pattern: "/osdm/stores", Handler: get(func(ctx context.Context, a *App, _ string) (any, error) { return a.storeStatus(ctx), nil })},
		{Pattern: "/osdm/bookings/", Handler: get(findBooking)},
		{Pattern: "/osdm/settle", Handler: caddy.AdminHandlerFunc(settle)},
	}
}

// get is a GET endpoint answering what fn returns for the running app,
// as JSON; rest is the path after the route's pattern.
func get(fn func(ctx context.Context, a *App, rest string) (any, error)) caddy.AdminHandler {
	return caddy.AdminHandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if r.Method != http.MethodGet {
			return apiError(http.StatusMethodNotAllowed, fmt.Errorf("method %s not allowed: use GET", r.Method))
		}
		a := running.Load()
		if a == nil {
			return apiError(http.StatusServiceUnavailable, errNotRunning)
		}
		v, err := fn(r.Context(), a, r.URL.Path)
		var api caddy.APIError
		if errors.As(err, &api) {
			return api
		}
		if err != nil && v == nil {
			return apiError(http.StatusInternalServerError, err)
		}
		return writeJSON(w, v, err)
	})
}

// findBooking answers GET /osdm/bookings/{ref}: every record known by ref.
func findBooking(ctx context.Context, a *App, path string) (any, error) {
	ref := strings.TrimPrefix(path, "/osdm/bookings/")
	if ref == "" || strings.Contains(ref, "/") {
		return nil, apiError(http.StatusBadRequest, errors.New("name one booking: /osdm/bookings/{booking id, BookingRef or messageId}"))
	}
	recs, err := a.find(ctx, ref)
	if len(recs) == 0 {
		if err != nil {
			return nil, apiError(http.StatusInternalServerError, err)
		}
		return nil, apiError(http.StatusNotFound, fmt.Errorf("no booking or message %q in either direction", ref))
	}
	return recs, err
}

// settle answers POST /osdm/settle: one pass of the background work now.
func settle(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return apiError(http.StatusMethodNotAllowed, fmt.Errorf("method %s not allowed: use POST", r.Method))
	}
	a := running.Load()
	if a == nil {
		return apiError(http.StatusServiceUnavailable, errNotRunning)
	}
	ctx, cancel := context.WithTimeout(r.Context(), settleTimeout)
	defer cancel()
	out, err := a.settleNow(ctx)
	if err != nil {
		return apiError(http.StatusServiceUnavailable, err)
	}
	return writeJSON(w, out, nil)
}

// writeJSON writes v; a partial answer (some source failed) says so in
// the header Osdm-Partial, with the failure.
func writeJSON(w http.ResponseWriter, v any, partial error) error {
	b, err := json.Marshal(v)
	if err != nil {
		return apiError(http.StatusInternalServerError, err)
	}
	w.Header().Set("Content-Type", "application/json")
	if partial != nil {
		w.Header().Set("Osdm-Partial", strings.ReplaceAll(partial.Error(), "\n", "; "))
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// apiError is Caddy's admin API error.
func apiError(status int, err error) caddy.APIError {
	return caddy.APIError{HTTPStatus: status, Err: err}
}

// Interface guard.
var _ caddy.AdminRouter = Admin{}
