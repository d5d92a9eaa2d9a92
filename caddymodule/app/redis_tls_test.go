package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
)

// A Redis that speaks TLS only and asks for a password: the app reaches
// it with tls { ca } and the password from a placeholder; a wrong
// password, and a CA that did not sign Redis's certificate, fail the
// start saying so (they are the configuration's fault, not a Redis still
// starting).
func TestRedisTLSAndPassword(t *testing.T) {
	dir := t.TempDir()
	ca := harness.NewCA(t, dir, "osdm-test-ca")
	certFile, keyFile := ca.Issue(t, "redis", false, "127.0.0.1")
	addr := redistest.TLSServer(t, certFile, keyFile, ca.Trust(), "--requirepass", "s3cret-pw")
	t.Setenv("OSDM_TEST_REDIS_PASSWORD", "s3cret-pw")
	up, _ := backend(t)
	port := harness.FreePort(t)
	redisStore := func(password, ca string) map[string]any {
		return map[string]any{"engine": "redis", "addresses": []string{addr}, "prefix": "tls:",
			"password": password, "tls": map[string]any{"ca": ca}}
	}

	err := caddy.Load(probeConfig(port, map[string]any{"r": redisStore("wrong", ca.File)}, map[string]any{"name": "r"}, up), true)
	if err == nil || !strings.Contains(err.Error(), "refused the connection") || !strings.Contains(err.Error(), addr) {
		caddy.Stop()
		t.Fatalf("a wrong password: %v, want the start refused naming %s", err, addr)
	}
	otherCA := harness.NewCA(t, t.TempDir(), "other-ca").File
	err = caddy.Load(probeConfig(port, map[string]any{"r": redisStore("{env.OSDM_TEST_REDIS_PASSWORD}", otherCA)}, map[string]any{"name": "r"}, up), true)
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		caddy.Stop()
		t.Fatalf("a CA that did not sign Redis's certificate: %v, want the start refused", err)
	}

	load(t, probeConfig(port, map[string]any{"r": redisStore("{env.OSDM_TEST_REDIS_PASSWORD}", ca.File)}, map[string]any{"name": "r"}, up))
	waitFor(t, port, "backend")
	c := redis.NewClient(&redis.Options{Addr: addr, Password: "s3cret-pw", TLSConfig: ca.Trust()})
	defer c.Close()
	if v, err := c.Get(context.Background(), "tls:last").Result(); err != nil || !strings.Contains(v, "backend") {
		t.Fatalf("Redis has tls:last = %q, %v", v, err)
	}
}
