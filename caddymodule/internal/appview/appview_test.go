package appview_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
)

func init() {
	caddy.RegisterModule(panickyApp{})
	caddy.RegisterModule(forProbe{})
}

// panickyApp stands for an osdm app whose provisioning panics.
type panickyApp struct{}

func (panickyApp) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: appview.Name, New: func() caddy.Module { return new(panickyApp) }}
}
func (*panickyApp) Provision(caddy.Context) error { panic("provisioning the osdm app failed") }
func (*panickyApp) Start() error                  { return nil }
func (*panickyApp) Stop() error                   { return nil }

// forProbe is a handler that asks For for its app, as the osdm handlers
// do.
type forProbe struct{}

func (forProbe) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.osdmapp_for_probe", New: func() caddy.Module { return new(forProbe) }}
}
func (*forProbe) Provision(ctx caddy.Context) error {
	_, err := appview.For(ctx)
	return err
}
func (*forProbe) ServeHTTP(http.ResponseWriter, *http.Request, caddyhttp.Handler) error { return nil }

var errStandalone = errors.New("standalone app made")

// standalone is a Standalone that counts in *calls the apps For asks it
// for, and makes none.
func standalone(calls *int) func(caddy.Context) (appview.Provider, error) {
	return func(caddy.Context) (appview.Provider, error) {
		*calls++
		return nil, errStandalone
	}
}

// A context outside any configuration (a handler provisioned by Go code)
// gets the standalone app.
func TestForOutsideConfigurationIsStandalone(t *testing.T) {
	calls := 0
	appview.Standalone = standalone(&calls)
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if _, err := appview.For(ctx); !errors.Is(err, errStandalone) || calls != 1 {
		t.Fatalf("For outside a configuration: %v, %d standalone apps made", err, calls)
	}
}

// A panic while a configuration's osdm app provisions is Caddy's to see,
// as any module's: it is not taken for "no configuration", which would
// give the handler a standalone app beside the configuration's.
func TestForPanicWhileProvisioningIsNotStandalone(t *testing.T) {
	calls := 0
	appview.Standalone = standalone(&calls)
	// No apps.osdm: the handler's For loads the app (as a configuration
	// without the osdm global option does), and its provisioning panics.
	cfg := (`{"admin": {"disabled": true},
		"logging": {"logs": {"default": {"level": "ERROR"}}},
		"apps": {"http": {"servers": {"s": {"listen": ["127.0.0.1:0"], "automatic_https": {"disable": true},
			"routes": [{"handle": [{"handler": "osdmapp_for_probe"}]}]}}}}}`)
	var panicked any
	err := func() (err error) {
		defer func() { panicked = recover() }()
		return caddy.Load([]byte(cfg), true)
	}()
	if calls != 0 {
		t.Fatalf("the panic became a standalone app (Load: %v)", err)
	}
	if panicked != "provisioning the osdm app failed" {
		t.Fatalf("Load: %v, panic %v; want the app's panic", err, panicked)
	}
}
