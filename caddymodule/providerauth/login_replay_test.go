package providerauth

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
)

// TestLoginMemoryStoreKeptAcrossReload: a configuration reload must not
// forget the jti values of identity tokens that are still valid.
func TestLoginMemoryStoreKeptAcrossReload(t *testing.T) {
	f := harness.NewProvFixture(t)
	old := loginModule(f, nil)
	old.Issuer = "https://login.reload.example"
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	if err := old.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	assertion := f.AlpineToken(time.Now())
	if w := provPost(old, harness.BearerForm(assertion)); w.Code != http.StatusOK {
		t.Fatalf("first use: %d %s", w.Code, w.Body)
	}
	// Reload: the new configuration is provisioned, then the old cleaned up.
	fresh := loginModule(f, nil)
	fresh.Issuer = old.Issuer
	if err := fresh.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := old.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if w := provPost(fresh, harness.BearerForm(assertion)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "already used") {
		t.Fatalf("replay after reload: %d %s", w.Code, w.Body)
	}
	store := fresh.service.Replay.(*pooledMemoryReplay).MemoryReplayStore
	if err := fresh.Cleanup(); err != nil {
		t.Fatal(err)
	}
	// The last user gone, the sweeper is stopped.
	harness.ReturnsWithin(t, 10*time.Second, "sweeper still running after the last Cleanup", store.Stop)
	if _, ok := loginMemoryReplayStores.References("memory\x00" + old.Issuer); ok {
		t.Fatal("store still pooled")
	}
}

// TestLoginRedisSharedByInstances: two login instances with their own
// connections to one Redis refuse a token replayed from one to the other.
func TestLoginRedisSharedByInstances(t *testing.T) {
	// A Redis of the test's that persists: the osdm app refuses one that
	// does not, and the inline form cannot say accept_volatile.
	addr := redistest.Server(t)
	f := harness.NewProvFixture(t)
	a := loginModule(f, &LoginReplayStore{Config: storeconfig.Config{Engine: "redis", Address: addr}})
	a.Issuer = "https://login.redis-a.example"
	b := loginModule(f, &LoginReplayStore{Type: "redis", Config: storeconfig.Config{Address: "redis://" + addr + "/0"}})
	b.Issuer = "https://login.redis-b.example"
	provProvision(t, a)
	provProvision(t, b)
	if a.service.Replay == b.service.Replay {
		t.Fatal("the instances share one client; the test needs two")
	}
	now := time.Now()
	assertion := f.AlpineToken(now)
	if w := provPost(a, harness.BearerForm(assertion)); w.Code != http.StatusOK {
		t.Fatalf("instance a: %d %s", w.Code, w.Body)
	}
	w := provPost(b, harness.BearerForm(assertion))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"error":"invalid_grant"`) || strings.Contains(w.Body.String(), "access_token") {
		t.Fatalf("replay on instance b: %d %s", w.Code, w.Body)
	}
	// A fresh token is fine on b.
	if w := provPost(b, harness.BearerForm(f.AlpineToken(now))); w.Code != http.StatusOK {
		t.Fatalf("instance b, new token: %d %s", w.Code, w.Body)
	}
}

func TestLoginRedisDownFailsClosed(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", harness.FreePort(t)) // nothing listens there

	f := harness.NewProvFixture(t)
	m := loginModule(f, &LoginReplayStore{Config: storeconfig.Config{Engine: "redis", Address: addr}})
	m.Issuer = "https://login.redis-down.example"
	provProvision(t, m)
	core, logs := observer.New(zap.InfoLevel)
	m.logger = zap.New(core)
	w := provPost(m, harness.BearerForm(f.AlpineToken(time.Now())))
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), `"error":"server_error"`) || strings.Contains(w.Body.String(), "access_token") {
		t.Fatalf("status %d body %s", w.Code, w.Body)
	}
	if logs.FilterLevelExact(zap.ErrorLevel).FilterField(zap.String("reason", "replay_store_error")).Len() != 1 {
		t.Fatalf("no error log line: %v", logs.All())
	}
}
