package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// provision provisions m in a context of its own, failing the test on an
// error, and cleans m up when the test ends.
func provision(t *testing.T, m harness.Module) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := m.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Cleanup() })
}

// serveTerminal answers a request without a body through h, whose next
// handler fails the test if called: a sandbox answers by itself.
func serveTerminal(t *testing.T, h caddyhttp.MiddlewareHandler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
		t.Error("next was called")
		return nil
	})
	rec := httptest.NewRecorder()
	if err := h.ServeHTTP(rec, httptest.NewRequest(method, path, nil), next); err != nil {
		t.Fatal(err)
	}
	return rec
}

// checkBareDirective wants the directive alone, without a block, to read
// into a zero module T.
func checkBareDirective[T any, PT interface {
	*T
	caddyfile.Unmarshaler
}](t *testing.T, directive string) {
	t.Helper()
	var empty T
	if err := harness.TryUnmarshal(PT(&empty), directive); err != nil || !reflect.DeepEqual(empty, *new(T)) {
		t.Errorf("bare directive: %+v %v", empty, err)
	}
}
