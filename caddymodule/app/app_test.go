package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"

	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/app"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/store"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

func TestMain(m *testing.M) { harness.Main(m, "osdm-app-data-") }

// TestChildProcess is not a test: it is the child process of the
// harness (harness.HoldBoltFile).
func TestChildProcess(t *testing.T) { harness.ChildProcess(t) }

// probeConfig is a configuration with the osdm app's stores and a
// server whose route for host probe.test is probe, then reverse_proxy to
// upstream.
func probeConfig(port int, stores map[string]any, storeRef map[string]any, upstream string) []byte {
	cfg := map[string]any{
		"admin":   map[string]any{"disabled": true},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "ERROR"}}},
		"apps": map[string]any{
			"osdm": map[string]any{"stores": stores, "settle_interval": "100ms"},
			"http": map[string]any{"servers": map[string]any{"s": map[string]any{
				"listen":          []string{fmt.Sprintf("127.0.0.1:%d", port)},
				"automatic_https": map[string]any{"disable": true},
				"routes": []any{map[string]any{
					"match": []any{map[string]any{"host": []string{"probe.test"}}},
					"handle": []any{map[string]any{"handler": "subroute", "routes": []any{
						map[string]any{"handle": []any{
							map[string]any{"handler": "osdm_app_probe", "store": storeRef},
							map[string]any{"handler": "reverse_proxy", "upstreams": []any{map[string]any{"dial": upstream}}},
						}},
					}}},
					"terminal": true,
				}},
			}}},
		},
	}
	b, _ := json.Marshal(cfg)
	return b
}

// load runs cfg in this process, stopped when the test ends.
func load(t *testing.T, cfg []byte) {
	t.Helper()
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { caddy.Stop() })
}

// backend is an upstream that says what it was asked, and tells seen of
// each request.
func backend(t *testing.T) (addr string, seen chan string) {
	t.Helper()
	seen = make(chan string, 100)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		line := r.Method + " " + r.Host + " " + r.URL.Path
		select {
		case seen <- line:
		default:
		}
		io.WriteString(w, "backend: "+line)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), seen
}

// get asks the probe what its store holds.
func get(t *testing.T, port int) (int, string) {
	t.Helper()
	status, body, err := tryGet(port)
	if err != nil {
		t.Fatal(err)
	}
	return status, body
}

// tryGet is get returning the transport's error.
func tryGet(port int) (int, string, error) {
	req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/", port), nil)
	req.Host = "probe.test"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// waitFor polls get until the body has want. Right after a reload a new
// connection can end unanswered before any handler ran (caddy.Load
// returns once the old server's shutdown has started, and its
// SO_REUSEPORT listener may still take the connection: reset in its
// accept queue, or read and closed by net/http once shutting down, EOF);
// such a poll is one more try, not a failure.
func waitFor(t *testing.T, port int, want string) {
	t.Helper()
	var body string
	for range 100 {
		status, b, err := tryGet(port)
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatal(err)
		}
		if body = b; err == nil && status == http.StatusOK && strings.Contains(body, want) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the probe's store has %q, want %q", body, want)
}

// Background work starts with the configuration, with no request at all,
// and sends through the rest of its handler's route (here
// reverse_proxy), with the route's host.
func TestBackgroundSendsThroughRouteWithoutRequest(t *testing.T) {
	up, seen := backend(t)
	port := harness.FreePort(t)
	path := filepath.Join(t.TempDir(), "s.db")
	load(t, probeConfig(port, map[string]any{"main": map[string]any{"engine": "bolt", "path": path}}, map[string]any{"name": "main"}, up))
	select {
	case line := <-seen:
		if line != "GET probe.test /background" {
			t.Fatalf("the upstream saw %q, want GET probe.test /background", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no background request reached the upstream without a client request")
	}
	waitFor(t, port, "200 backend: GET probe.test /background")
}

// Validating a configuration opens none of its stores: not a file nobody
// holds (it is not even created), nor one the same configuration holds
// while it serves.
func TestValidateOpensNothing(t *testing.T) {
	up, _ := backend(t)
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.db")
	cfg := new(caddy.Config)
	if err := json.Unmarshal(probeConfig(harness.FreePort(t), map[string]any{"main": map[string]any{"engine": "bolt", "path": fresh}}, map[string]any{"name": "main"}, up), cfg); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(cfg); err != nil {
		t.Fatalf("Validate = %v", err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Fatalf("Validate created or opened the bolt file (stat: %v)", err)
	}

	port := harness.FreePort(t)
	serving := probeConfig(port, map[string]any{"main": map[string]any{"engine": "bolt", "path": filepath.Join(dir, "serving.db")}}, map[string]any{"name": "main"}, up)
	load(t, serving)
	waitFor(t, port, "backend")
	cfg = new(caddy.Config)
	json.Unmarshal(serving, cfg)
	start := time.Now()
	if err := caddy.Validate(cfg); err != nil {
		t.Fatalf("Validate of the serving configuration = %v", err)
	}
	t.Logf("validate of the serving configuration took %v", time.Since(start))
	waitFor(t, port, "backend") // still serving
}

// A bolt file another process holds fails the start, naming the file.
func TestBoltHeldByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "held.db")
	harness.HoldBoltFile(t, path)
	up, _ := backend(t)
	cfg := probeConfig(harness.FreePort(t), map[string]any{"main": map[string]any{"engine": "bolt", "path": path, "timeout": "200ms"}}, map[string]any{"name": "main"}, up)
	err := caddy.Load(cfg, true)
	if err == nil {
		caddy.Stop()
		t.Fatal("a configuration started on a bolt file another process holds")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("error %q does not say the file %s is locked by another process", err, path)
	}
}

// A start that fails on one store still opens the others, and fails
// the failed store's calls at once: Caddy may have started the
// configuration's servers before the osdm app, and a request they take
// before Caddy stops them must not wait for a store nobody will open.
// Stores are opened in name order; here the held file's store comes
// first.
func TestStartFailureLeavesNoStoreWaiting(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "held.db")
	harness.HoldBoltFile(t, held)
	stores := map[string]any{"a-held": map[string]any{"engine": "bolt", "path": held, "timeout": "200ms"}}
	names := []string{"a-held"}
	for _, n := range []string{"b", "c", "d"} {
		stores[n] = map[string]any{"engine": "bolt", "path": filepath.Join(dir, n+".db"), "timeout": "200ms"}
		names = append(names, n)
	}
	up, _ := backend(t)
	var handle []any
	for _, n := range names {
		handle = append(handle, map[string]any{"handler": "osdm_app_probe", "store": map[string]any{"name": n}})
	}
	handle = append(handle, map[string]any{"handler": "reverse_proxy", "upstreams": []any{map[string]any{"dial": up}}})
	cfg, _ := json.Marshal(map[string]any{
		"admin":   map[string]any{"disabled": true},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "ERROR"}}},
		"apps": map[string]any{
			"osdm": map[string]any{"stores": stores},
			"http": map[string]any{"servers": map[string]any{"s": map[string]any{
				"listen":          []string{fmt.Sprintf("127.0.0.1:%d", harness.FreePort(t))},
				"automatic_https": map[string]any{"disable": true},
				"routes":          []any{map[string]any{"handle": handle}},
			}}},
		},
	})
	err := caddy.Load(cfg, true)
	if err == nil {
		caddy.Stop()
		t.Fatal("a configuration started on a bolt file another process holds")
	}
	if !strings.Contains(err.Error(), held) {
		t.Fatalf("error %q does not name %s", err, held)
	}
	// A context already done: a call on a store still waiting returns
	// that context's error; one on a failed store, the store's failure.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, n := range names {
		v, ok := probeHandles.Load(n)
		if !ok {
			t.Fatalf("no probe was provisioned on store %s", n)
		}
		h := v.(*store.Handle)
		if n == "a-held" {
			_, err := h.Get(done, "k")
			if err == nil || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "locked") {
				t.Fatalf("a call on the store that failed: %v, want its failure at once", err)
			}
			continue
		}
		if !h.Ready() {
			_, err := h.Get(done, "k")
			t.Fatalf("store %s was left waiting after another store failed the start: %v", n, err)
		}
	}
}

// A reload to a configuration on the same bolt file shares the open
// database (bbolt would refuse a second open, even in one process), and
// keeps what the first wrote; a name the app does not define is refused.
func TestReloadSharesTheFile(t *testing.T) {
	up, _ := backend(t)
	port := harness.FreePort(t)
	path := filepath.Join(t.TempDir(), "s.db")
	stores := map[string]any{"main": map[string]any{"engine": "bolt", "path": path, "timeout": "200ms"}}
	load(t, probeConfig(port, stores, map[string]any{"name": "main"}, up))
	waitFor(t, port, "backend")
	// The inline form naming the same file: an unnamed store, one database.
	if err := caddy.Load(probeConfig(port, stores, map[string]any{"engine": "bolt", "path": path}, up), true); err != nil {
		t.Fatalf("reload on the same file: %v", err)
	}
	waitFor(t, port, "backend")
	err := caddy.Load(probeConfig(port, stores, map[string]any{"name": "other"}, up), true)
	if err == nil || !strings.Contains(err.Error(), `store "other" is not defined`) || !strings.Contains(err.Error(), "main") {
		t.Fatalf("a handler naming an undefined store: %v", err)
	}
	waitFor(t, port, "backend") // the running configuration stays
}

// A Redis without persistence is refused at start, saying why and what
// to do; accept_volatile starts on it.
func TestRedisWithoutPersistence(t *testing.T) {
	addr := redistest.Server(t, redistest.Volatile...)
	up, _ := backend(t)
	port := harness.FreePort(t)
	redisStore := map[string]any{"engine": "redis", "addresses": []string{addr}, "prefix": "t:"}
	var cfg caddy.Config
	if err := json.Unmarshal(probeConfig(port, map[string]any{"shared": redisStore}, map[string]any{"name": "shared"}, up), &cfg); err != nil {
		t.Fatal(err)
	}
	if err := caddy.Validate(&cfg); err == nil || !strings.Contains(err.Error(), "does not persist") {
		t.Fatalf("caddy validate of a store on a Redis without persistence: %v, want it refused", err)
	}
	err := caddy.Load(probeConfig(port, map[string]any{"shared": redisStore}, map[string]any{"name": "shared"}, up), true)
	if err == nil {
		caddy.Stop()
		t.Fatal("a configuration started on a Redis without persistence")
	}
	for _, want := range []string{addr, "does not persist", "accept_volatile"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	redisStore["accept_volatile"] = true
	load(t, probeConfig(port, map[string]any{"shared": redisStore}, map[string]any{"name": "shared"}, up))
	waitFor(t, port, "backend")
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	if v, err := c.Get(context.Background(), "t:last").Result(); err != nil || !strings.Contains(v, "backend") {
		t.Fatalf("Redis has t:last = %q, %v", v, err)
	}
}

// The app reaches a Sentinel set's master and a Cluster.
func TestRedisSentinelAndCluster(t *testing.T) {
	up, _ := backend(t)
	sentinels, master := redistest.Sentinel(t, "bookings")
	port := harness.FreePort(t)
	load(t, probeConfig(port, map[string]any{"s": map[string]any{"engine": "redis", "addresses": sentinels, "master": "bookings", "prefix": "sent:"}}, map[string]any{"name": "s"}, up))
	waitFor(t, port, "backend")
	c := redis.NewClient(&redis.Options{Addr: master})
	defer c.Close()
	if v, err := c.Get(context.Background(), "sent:last").Result(); err != nil || !strings.Contains(v, "backend") {
		t.Fatalf("the master has sent:last = %q, %v", v, err)
	}

	nodes := redistest.Cluster(t, 3)
	port = harness.FreePort(t)
	if err := caddy.Load(probeConfig(port, map[string]any{"c": map[string]any{"engine": "redis", "addresses": nodes, "prefix": "clu:"}}, map[string]any{"name": "c"}, up), true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, port, "backend")
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: nodes})
	defer cc.Close()
	if v, err := cc.Get(context.Background(), "clu:last").Result(); err != nil || !strings.Contains(v, "backend") {
		t.Fatalf("the cluster has clu:last = %q, %v", v, err)
	}
}

// A Redis that does not answer at start does not stop the configuration:
// a request that needs the store waits for it (bounded) and then gets a
// clear, retryable 503, never a nil store; once Redis answers, the app
// opens the store and the background work runs.
func TestRedisNotYetThere(t *testing.T) {
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server is not installed (Debian: apt-get install redis-server): test skipped")
	}
	redisPort := redistest.Port(t)
	addr := fmt.Sprintf("127.0.0.1:%d", redisPort)
	up, _ := backend(t)
	port := harness.FreePort(t)
	load(t, probeConfig(port, map[string]any{"later": map[string]any{"engine": "redis", "addresses": []string{addr}, "timeout": "200ms"}}, map[string]any{"name": "later"}, up))
	status, body := get(t, port)
	if status != http.StatusServiceUnavailable {
		t.Fatalf("a request before the store is open: %d %q, want 503", status, body)
	}
	if !strings.Contains(body, "not reachable") || strings.Contains(body, "has not started") {
		t.Fatalf("a request before the store is open: %q, want it to say the store is not reachable", body)
	}
	redistest.ServerAt(t, redisPort)
	waitFor(t, port, "200 backend")
}
