package legacyprovider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// The Caddys these tests run osdm_legacy in, in front of a bkLegacy: in
// the test process on a bolt store (serveBK), as child processes on a
// bolt store that a test kills and starts again (bkProcess), or as child
// processes sharing one Redis store (bkRedis).

// serveBK starts a Caddy in the test process with osdm_legacy on a bolt
// store in front of l, extra added to its subdirectives (each after
// "\n\t\t\t"), and returns its client.
func serveBK(t *testing.T, l *bkLegacy, extra string) *bkClient {
	t.Helper()
	db := filepath.Join(t.TempDir(), "legacy.db")
	base := harness.Serve(t, func(port int) string {
		return bkCaddyfile(port, l.addr, "store bolt "+db, extra)
	})
	return &bkClient{t: t, base: base}
}

// bkProcess is a Caddy with osdm_legacy on a bolt store, run as child
// processes so that the test can kill one (SIGKILL) and start another on
// the same port and store.
type bkProcess struct {
	t              *testing.T
	dir, caddyfile string
}

// newBKProcess is a bkProcess in front of the legacy system at
// legacyAddr, extra added to osdm_legacy's subdirectives, with the client
// of its port; none is started yet.
func newBKProcess(t *testing.T, legacyAddr, extra string) (*bkProcess, *bkClient) {
	t.Helper()
	dir := t.TempDir()
	port := harness.FreePort(t)
	p := &bkProcess{t: t, dir: dir, caddyfile: bkCaddyfile(port, legacyAddr, "store bolt "+filepath.Join(dir, "legacy.db"), extra)}
	return p, &bkClient{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port)}
}

// start starts the Caddy as child process name.
func (p *bkProcess) start(name string) *harness.Child {
	p.t.Helper()
	return harness.StartCaddy(p.t, p.dir, name, p.caddyfile)
}

// bkRedis is osdm_legacy's Caddy processes in front of one legacy system,
// keeping their state in one redis store of the osdm app under a prefix
// of the test's own.
type bkRedis struct {
	t *testing.T
	l *bkLegacy
	// dir is the child processes' directory.
	dir string
	// redis is the store's block without its prefix; prefix the prefix.
	redis, prefix string
}

// newBKRedis is a bkRedis in front of l on the redis store whose block,
// without its prefix, is redis.
func newBKRedis(t *testing.T, l *bkLegacy, redis string) *bkRedis {
	return &bkRedis{t: t, l: l, dir: t.TempDir(), redis: redis, prefix: "osdm-legacy-it/" + harness.RandomHex(8) + "/"}
}

// caddyfile is the Caddyfile of an instance on port, extra added to
// osdm_legacy's subdirectives.
func (r *bkRedis) caddyfile(port int, extra string) string {
	return withRedisStore(bkCaddyfile(port, r.l.addr, "store shared", extra), r.redis+"\n\t\t\tprefix "+r.prefix)
}

// start starts the child Caddy process name with the Caddyfile cf writes
// for a free port, and returns it with its client.
func (r *bkRedis) start(name string, cf func(port int) string) (*harness.Child, *bkClient) {
	r.t.Helper()
	port := harness.FreePort(r.t)
	child := harness.StartCaddy(r.t, r.dir, name, cf(port))
	return child, &bkClient{t: r.t, base: fmt.Sprintf("http://127.0.0.1:%d", port)}
}

// startTwo starts two instances, a and b, with extra added to
// osdm_legacy's subdirectives, and returns their clients.
func (r *bkRedis) startTwo(extra string) (a, b *bkClient) {
	r.t.Helper()
	cf := func(port int) string { return r.caddyfile(port, extra) }
	_, a = r.start("a", cf)
	_, b = r.start("b", cf)
	return a, b
}
