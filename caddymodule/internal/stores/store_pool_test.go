package stores

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// TestStorePoolSharesOneFile: two modules naming one bolt file (once
// relative, once absolute) share one open database, each in its own view;
// a reload that keeps the file (new lease first, old released after) keeps
// it open; the last release closes it; a second Release is harmless.
func TestStorePoolSharesOneFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	abs := filepath.Join(dir, "shared.db")
	ctx := context.Background()

	a, err := Acquire(Config{Engine: "bolt", Path: "shared.db"}, "a/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Acquire(Config{Path: abs}, "b/") // engine defaults to bolt
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := boltStores.References(abs); n != 2 {
		t.Fatalf("%d references to %s, want 2 (one open database)", n, abs)
	}
	if a.Where != "bolt "+abs {
		t.Fatalf("Where = %q", a.Where)
	}
	if err := a.Put(ctx, "k", []byte("from a"), 0); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "k", []byte("from b"), 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Get(ctx, "k"); string(v) != "from a" {
		t.Fatalf("a's key = %q: the views are not apart", v)
	}

	// Reload of a's configuration: the new one is provisioned first.
	a2, err := Acquire(Config{Engine: "bolt", Path: abs}, "a/")
	if err != nil {
		t.Fatal(err)
	}
	// Closing a view never closes the shared file.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(); err != nil {
		t.Fatalf("second Release: %v", err)
	}
	if err := a2.Put(ctx, "after-reload", []byte("v"), 0); err != nil {
		t.Fatalf("write after the reload: %v", err)
	}
	if v, _ := a2.Get(ctx, "k"); string(v) != "from a" {
		t.Fatalf("after reload a's key = %q", v)
	}
	if n, _ := boltStores.References(abs); n != 2 {
		t.Fatalf("%d references after the reload, want 2", n)
	}
	if harness.BoltClosed(t, abs, BoltReferences) {
		t.Fatal("file closed while two leases hold it")
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if err := a2.Release(); err != nil {
		t.Fatal(err)
	}
	if !harness.BoltClosed(t, abs, BoltReferences) {
		t.Fatal("the last release did not close the file")
	}
	var nilLease *Lease
	if err := nilLease.Release(); err != nil {
		t.Fatal(err)
	}
}

// TestStorePoolDefaultPath: without a path the file is osdm/store.db in
// Caddy's data directory, created with its directory, private.
func TestStorePoolDefaultPath(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	want := filepath.Join(caddy.AppDataDir(), "osdm", "store.db")
	if !strings.HasPrefix(want, data) {
		t.Fatalf("AppDataDir %s is not under XDG_DATA_HOME %s", caddy.AppDataDir(), data)
	}
	l, err := Acquire(Config{}, "x/")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if l.Where != "bolt "+want {
		t.Fatalf("Where = %q, want bolt %s", l.Where, want)
	}
	for p, mode := range map[string]os.FileMode{want: 0o600, filepath.Dir(want): 0o700 | os.ModeDir} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Errorf("%s mode %v, want %v", p, fi.Mode(), mode)
		}
	}
}

// TestStorePoolLockedFile: a file another process holds fails after the
// timeout with an error naming the file, and leaves nothing in the pool.
func TestStorePoolLockedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "held.db")
	harness.HoldBoltFile(t, path)
	start := time.Now()
	l, err := Acquire(Config{Path: path, Timeout: caddy.Duration(300 * time.Millisecond)}, "x/")
	if err == nil {
		l.Release()
		t.Fatal("acquired a file another process holds")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("error %q does not name the locked file", err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("took %v with a 300ms timeout", d)
	}
	if _, ok := boltStores.References(path); ok {
		t.Fatal("a failed open left an entry in the pool")
	}
}

func TestStoreConfigValidate(t *testing.T) {
	bad := map[string]Config{
		"unknown engine":   {Engine: "disk"},
		"bolt address":     {Engine: "bolt", Address: "127.0.0.1:6379"},
		"bolt prefix":      {Engine: "bolt", Prefix: "x:"},
		"redis no address": {Engine: "redis"},
		"redis path":       {Engine: "redis", Address: "a:1", Path: "/x"},
		"negative timeout": {Engine: "bolt", Timeout: caddy.Duration(-time.Second)},
	}
	for name, cfg := range bad {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: valid", name)
		}
		if l, err := Acquire(cfg, "x/"); err == nil {
			l.Release()
			t.Errorf("%s: acquired", name)
		}
	}
	for _, cfg := range []Config{{}, {Engine: "bolt", Path: "/x"}, {Engine: "redis", Address: "a:1", Prefix: "p:"}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

func TestStoreCaddyfile(t *testing.T) {
	good := map[string]Config{
		"store bolt":                                 {Engine: "bolt"},
		"store bolt /var/lib/caddy/osdm.db":          {Engine: "bolt", Path: "/var/lib/caddy/osdm.db"},
		"store redis 10.0.0.5:6379":                  {Engine: "redis", Address: "10.0.0.5:6379"},
		"store redis redis://r:6379/2 railway-a:":    {Engine: "redis", Address: "redis://r:6379/2", Prefix: "railway-a:"},
		"store redis {env.REDIS} {env.REDIS_PREFIX}": {Engine: "redis", Address: "{env.REDIS}", Prefix: "{env.REDIS_PREFIX}"},
	}
	for src, want := range good {
		d := caddyfile.NewTestDispenser(src)
		d.Next()
		got, err := Unmarshal(d, "store")
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if *got != want {
			t.Errorf("%s: %+v, want %+v", src, *got, want)
		}
		// The JSON a Caddyfile gives is snake_case and omits what is unset.
		j, _ := json.Marshal(got)
		if strings.Contains(string(j), `""`) || strings.Contains(string(j), "Engine") {
			t.Errorf("%s: JSON %s", src, j)
		}
	}
	bad := map[string]string{
		"store":                      "takes bolt [<path>] or redis",
		"store disk /x":              `"disk" is unknown`,
		"store bolt /a /b":           "at most one path",
		"store redis":                "redis takes <address>",
		"store redis a:1 p: surplus": "redis takes <address>",
	}
	for src, want := range bad {
		d := caddyfile.NewTestDispenser("\n\n" + src)
		d.Next()
		_, err := Unmarshal(d, "store")
		if err == nil {
			t.Errorf("%s: accepted", src)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Testfile:3") {
			t.Errorf("%s: error %q, want %q at Testfile:3", src, err, want)
		}
	}
}

// TestStorePoolRedis: two modules naming one Redis share one client, each
// under its own view and the configured key prefix; the last release
// closes the client; an unreachable Redis is acquired (Redis may start
// after Caddy) and Ping says it does not answer, naming it.
func TestStorePoolRedis(t *testing.T) {
	addr := os.Getenv("OSDM_TEST_REDIS")
	if addr == "" {
		t.Skip("OSDM_TEST_REDIS not set (host:port of a Redis): Redis store pool test skipped")
	}
	ctx := context.Background()
	prefix := "osdm-test:" + strings.ReplaceAll(t.Name(), "/", "-") + ":" + time.Now().Format("150405.000000") + ":"
	a, err := Acquire(Config{Engine: "redis", Address: addr, Prefix: prefix}, "convert/a/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Acquire(Config{Engine: "redis", Address: addr, Prefix: prefix}, "legacy/b/")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := redisStores.References(addr); n != 2 {
		t.Fatalf("%d references to %s, want 2 (one client)", n, addr)
	}
	if err := a.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(ctx, "k", []byte("a"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "k"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("b sees a's key: %v", err)
	}
	raw, err := store.OpenRedis(ctx, store.RedisOptions{Address: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if v, err := raw.Get(ctx, prefix+"convert/a/k"); err != nil || string(v) != "a" {
		t.Fatalf("Redis key %sconvert/a/k = %q, %v", prefix, v, err)
	}
	raw.Delete(ctx, prefix+"convert/a/k")
	a.Release()
	b.Release()
	if _, ok := redisStores.References(addr); ok {
		t.Fatal("client still pooled after the last release")
	}

	down, err := Acquire(Config{Engine: "redis", Address: "127.0.0.1:1", Timeout: caddy.Duration(200 * time.Millisecond)}, "x/")
	if err != nil {
		t.Fatal(err)
	}
	defer down.Release()
	if err := down.Ping(ctx); err == nil || !strings.Contains(err.Error(), "redis 127.0.0.1:1") {
		t.Fatalf("Ping of a closed port = %v", err)
	}
}

// TestChildProcess is not a test: it is the child process of the
// harness (HoldBoltFile).
func TestChildProcess(t *testing.T) { harness.ChildProcess(t) }
