// Package redistest starts real Redis servers for tests: one server, a
// Sentinel set and a Cluster, each on free ports of 127.0.0.1 in a
// directory of the test's, stopped when the test ends. It runs Debian's
// redis-server (and redis-cli to form a Cluster); a test skips, saying
// so, when they are not installed.
package redistest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
)

// Durable are the settings of a Redis that keeps what it is given: an
// append-only file, synced every second, and no eviction.
var Durable = []string{"--appendonly", "yes", "--maxmemory-policy", "noeviction"}

// Volatile are the settings of a Redis that forgets everything on a
// restart: no append-only file, no RDB snapshots.
var Volatile = []string{"--appendonly", "no", "--save", ""}

// need skips t when redis-server (and redis-cli, if cli) is missing.
func need(t testing.TB, cli bool) {
	t.Helper()
	bins := []string{"redis-server"}
	if cli {
		bins = append(bins, "redis-cli")
	}
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install redis-server): test skipped", b)
		}
	}
}

// clusterPortOffset is where a Cluster node's bus port is, from its
// port (set with cluster-port: Redis's default, port+10000, would fall in
// the range other test helpers hand out).
const clusterPortOffset = 4000

// freePort is a port of 127.0.0.1 no one listens on now, with its
// cluster bus port, in 12000-15999 (the bus in 16000-19999): below the
// ephemeral range (a port there could be taken by an outgoing connection
// before the server binds it) and below the 20000-31999 of the Caddy
// tests' ports, never the same twice in one test binary.
func freePort(t testing.TB) int {
	t.Helper()
	return testrig.FreePort(t, 12000, 16000, clusterPortOffset)
}

// start runs redis-server with args on a free port in a directory of its
// own, waits until it answers PING and returns its address; it is
// killed when the test ends.
func start(t testing.TB, args ...string) string {
	t.Helper()
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		dir := t.TempDir()
		all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
			"--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log")}, args...)
		if slices.Contains(args, "--cluster-enabled") {
			all = append(all, "--cluster-port", strconv.Itoa(port+clusterPortOffset))
		}
		addr, err := run(t, dir, port, exec.Command("redis-server", all...))
		if err == nil {
			return addr
		}
		if attempt == 3 {
			t.Fatal(err)
		}
	}
}

// run starts cmd and waits until port answers PING.
func run(t testing.TB, dir string, port int, cmd *exec.Cmd) (string, error) {
	return runTLS(t, dir, port, cmd, nil)
}

// runTLS is run, PING over TLS with tlsCfg when it is not nil.
func runTLS(t testing.TB, dir string, port int, cmd *exec.Cmd, tlsCfg *tls.Config) (string, error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond, TLSConfig: tlsCfg})
	defer c.Close()
	for range 100 {
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			return "", fmt.Errorf("redis-server on %s exited: %s", addr, log)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil || strings.Contains(fmt.Sprint(err), "NOAUTH") {
			return addr, nil // it answers (asking for a password)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("redis-server on %s does not answer PING", addr)
}

// Server starts one Redis with the Durable settings, then args (which
// override them: Volatile, for example), and returns its address.
func Server(t testing.TB, args ...string) string {
	t.Helper()
	need(t, false)
	return start(t, append(append([]string{}, Durable...), args...)...)
}

// TLSServer starts one Redis with the Durable settings, then args,
// listening for TLS only (its certificate and key in PEM files; clients
// need no certificate), and returns its address. tlsCfg is what a client
// trusts it with.
func TLSServer(t testing.TB, certFile, keyFile string, tlsCfg *tls.Config, args ...string) string {
	t.Helper()
	need(t, false)
	for attempt := 0; ; attempt++ {
		port := freePort(t)
		dir := t.TempDir()
		all := append([]string{"--port", "0", "--tls-port", strconv.Itoa(port), "--tls-cert-file", certFile,
			"--tls-key-file", keyFile, "--tls-auth-clients", "no", "--bind", "127.0.0.1", "--dir", dir,
			"--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log")}, Durable...)
		addr, err := runTLS(t, dir, port, exec.Command("redis-server", append(all, args...)...), tlsCfg)
		if err == nil {
			return addr
		}
		if attempt == 3 {
			t.Fatal(err)
		}
	}
}

// Port is a free port for a Redis a test starts later with ServerAt.
func Port(t testing.TB) int {
	t.Helper()
	return freePort(t)
}

// ServerAt is Server on port (from Port).
func ServerAt(t testing.TB, port int, args ...string) string {
	t.Helper()
	need(t, false)
	dir := t.TempDir()
	all := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log")}, append(append([]string{}, Durable...), args...)...)
	addr, err := run(t, dir, port, exec.Command("redis-server", all...))
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// Sentinel starts a master with the Durable settings and two sentinels
// monitoring it under the name master, and returns the sentinels'
// addresses and the master's.
func Sentinel(t testing.TB, master string) (sentinels []string, masterAddr string) {
	t.Helper()
	need(t, false)
	masterAddr = start(t, Durable...)
	_, mport, _ := net.SplitHostPort(masterAddr)
	for range 2 {
		for attempt := 0; ; attempt++ {
			port := freePort(t)
			dir := t.TempDir()
			conf := filepath.Join(dir, "sentinel.conf")
			body := fmt.Sprintf("port %d\nbind 127.0.0.1\ndir %s\nlogfile %s\nsentinel monitor %s 127.0.0.1 %s 1\nsentinel down-after-milliseconds %s 5000\n",
				port, dir, filepath.Join(dir, "redis.log"), master, mport, master)
			if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			addr, err := run(t, dir, port, exec.Command("redis-server", conf, "--sentinel"))
			if err == nil {
				sentinels = append(sentinels, addr)
				break
			}
			if attempt == 3 {
				t.Fatal(err)
			}
		}
	}
	return sentinels, masterAddr
}

// Cluster starts n masters (at least 3) with the Durable settings, forms
// them into a Cluster that covers every slot, waits until every node
// says the cluster is ok, and returns their addresses.
func Cluster(t testing.TB, n int) []string {
	t.Helper()
	need(t, true)
	var addrs []string
	for range n {
		addrs = append(addrs, start(t, append([]string{"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"}, Durable...)...))
	}
	args := append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, a := range addrs {
		c := redis.NewClient(&redis.Options{Addr: a})
		ok := false
		for range 200 {
			info, err := c.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				ok = true
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
		if !ok {
			t.Fatalf("cluster node %s is not ok after 10s", a)
		}
	}
	return addrs
}
