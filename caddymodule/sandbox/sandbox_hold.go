package sandbox

import (
	"net/http"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

// sandboxHold is what a sandbox module holds from Provision to Cleanup:
// the sandbox of type T it serves with, taken from a pool keyed by the
// module's settings, so that a config reload that keeps them finds the
// same sandbox (and its bookings) and two handlers with the same settings
// share one. Both modules embed it for their Cleanup; legacy_sandbox
// serves through its ServeHTTP, while osdm_sandbox has its own, which
// reads the body and writes the answer the sandbox returns.
type sandboxHold[T http.Handler] struct {
	handler T
	pool    *modulekit.Pool[T]
	poolKey string // empty until take took a hold
}

// take takes a hold on the sandbox under key in pool; build makes it when
// no configuration holds one.
func (h *sandboxHold[T]) take(pool *modulekit.Pool[T], key string, build func() (T, error)) error {
	handler, _, err := pool.Take(key, build)
	if err != nil {
		return err
	}
	h.handler, h.pool, h.poolKey = handler, pool, key
	return nil
}

// Cleanup releases this configuration's hold on the sandbox, if Provision
// took one.
func (h *sandboxHold[T]) Cleanup() error {
	if h.pool == nil {
		return nil
	}
	return h.pool.Release(h.poolKey)
}

// ServeHTTP answers the request with the sandbox; next is never called.
func (h *sandboxHold[T]) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	h.handler.ServeHTTP(w, r)
	return nil
}
