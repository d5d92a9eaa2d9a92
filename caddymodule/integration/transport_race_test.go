package integration

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// These tests run under -race: they fail when a handler changes another
// handler's fields while it may be serving (see Transport).

// raceChain is a front that logs in at a partner (osdm_token) and proxies
// to a provider site of the same Caddy, which checks the token
// (osdm_access) and proxies to the partner's upstream, which accepts only
// the tokens its login service issued. A plain reverse_proxy in a later
// route of the front reaches another upstream without any token.
type raceChain struct {
	p                *harness.LoginPartner
	loginPub         string
	front, provider  int
	plain            *httptest.Server
	plainAuth        atomic.Int32 // plain requests that carried a token
	plainSeen        atomic.Int32
	health           []string // reverse_proxy health check subdirectives
	seenBefore       int      // token-carrying requests before the counted ones
	plainBefore      int32    // plain requests before the counted ones
	frontSite, extra string   // the front's site address and global options
}

func newRaceChain(t *testing.T) *raceChain {
	t.Helper()
	dir := t.TempDir()
	key := harness.ECKey(t)
	c := &raceChain{p: harness.NewLoginPartner(t, "sncf", key, dir), front: harness.FreePort(t), provider: harness.FreePort(t)}
	c.p.AccessTyp = "at+jwt" // osdm_access takes only access tokens
	c.p.AccessAud = "https://osdm.sncf.example"
	c.loginPub = filepath.Join(dir, "login.pub")
	harness.WritePublicKey(t, c.loginPub, c.p.LoginKey.Public())
	// The partner's upstream also answers health checks, without a token.
	c.p.Upstream.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			return
		}
		c.p.ServeUpstream(w, r)
	})
	c.plain = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/health" {
			return
		}
		c.plainSeen.Add(1)
		if r.Header.Get("Authenticate") != "" {
			c.plainAuth.Add(1)
		}
		io.WriteString(w, "plain")
	}))
	t.Cleanup(c.plain.Close)
	c.frontSite = fmt.Sprintf("http://127.0.0.1:%d", c.front)
	return c
}

func (c *raceChain) caddyfile() string {
	// block is a reverse_proxy's block: its lines, tab-indented to depth.
	block := func(depth int, lines ...string) string {
		in := strings.Repeat("\t", depth)
		var b strings.Builder
		b.WriteString("{\n")
		for _, l := range lines {
			if l != "" {
				b.WriteString(in + "\t" + l + "\n")
			}
		}
		return b.String() + in + "}"
	}
	tokens := []string{"transport osdm"} // the proxies that carry tokens
	return fmt.Sprintf(`{
	admin off
	persist_config off
	servers {
		protocols h1 h2 h2c h3
	}
%[8]s}

%[1]s {
	route /a/* {
		osdm_token {
			token_url %[3]s
			key_file %[4]s
			kid sncf-kid-1
			issuer https://reservations.example-railway.eu
			subject example-railway
		}
		reverse_proxy 127.0.0.1:%[2]d %[11]s
	}
	reverse_proxy /plain/* %[9]s %[7]s
}

http://127.0.0.1:%[2]d {
	route /health {
		respond 200
	}
	route {
		osdm_access {
			key_file %[5]s
			issuer %[6]s
			audience https://osdm.sncf.example
		}
		reverse_proxy %[10]s %[11]s
	}
}
`, c.frontSite, c.provider, c.p.TokenURL(), c.p.KeyFile, c.loginPub, c.p.Login.URL, block(1, c.health...), c.extra,
		c.plain.Listener.Addr(), c.p.Upstream.Listener.Addr(), block(2, append(tokens, c.health...)...))
}

// send posts to the front and checks the answer: the partner's echo on
// /a/, the plain upstream's on /plain/.
func (c *raceChain) send(client *http.Client, base, path string, wantProto int) error {
	want := "plain"
	if strings.HasPrefix(path, "/a/") {
		want = `sncf got "{}"`
	}
	resp, err := client.Post(base+path, "application/json", strings.NewReader("{}"))
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != want || resp.ProtoMajor != wantProto {
		return fmt.Errorf("%s over %s: %d %q", path, resp.Proto, resp.StatusCode, body)
	}
	return nil
}

// waitReady waits until both routes of the front answer (the first
// health checks may run before the provider site listens, and mark it
// down until the next), then starts counting.
func (c *raceChain) waitReady(t *testing.T, client *http.Client, proto int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, path := range []string{"/a/x", "/plain/x"} {
		for {
			err := c.send(client, c.frontSite, path, proto)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the front does not answer: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	_, _, seen, _ := c.p.Snapshot()
	c.seenBefore, c.plainBefore = len(seen), c.plainSeen.Load()
}

// check fails unless, since waitReady, the partner saw n token-carrying
// requests and the plain upstream m requests without a token.
func (c *raceChain) check(t *testing.T, n, m int) {
	t.Helper()
	if _, _, seen, _ := c.p.Snapshot(); len(seen)-c.seenBefore != n {
		t.Errorf("the partner accepted %d requests with its token, want %d", len(seen)-c.seenBefore, n)
	}
	if got := c.plainSeen.Load() - c.plainBefore; int(got) != m {
		t.Errorf("the plain upstream got %d requests, want %d", got, m)
	}
	if c.plainAuth.Load() != 0 {
		t.Error("a request that did not pass osdm_token carried a token to the plain upstream")
	}
}

// raceClients are HTTP/1.1 and h2c clients.
func raceClients() map[int]*http.Client {
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	return map[int]*http.Client{1: {Transport: &http.Transport{}}, 2: {Transport: h2c}}
}

// drive sends n requests on each client to /a/ and /plain/, all at once.
func (c *raceChain) drive(t *testing.T, n int) {
	t.Helper()
	base := fmt.Sprintf("http://127.0.0.1:%d", c.front)
	var wg sync.WaitGroup
	for proto, client := range raceClients() {
		for i := range n {
			wg.Go(func() {
				path := []string{"/a/x", "/plain/x"}[i%2]
				if err := c.send(client, base, path, proto); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
}

// TestRaceActiveHealthChecks: reverse_proxy handlers with active health
// checks after osdm_token, after osdm_access and in a later route check
// their upstreams from their own goroutines from the start, while the
// first requests arrive.
func TestRaceActiveHealthChecks(t *testing.T) {
	c := newRaceChain(t)
	// One failed check on a loaded machine must not take an upstream out
	// for the next 20 ms (a 503 the race under test has nothing to do
	// with): five in a row are needed.
	c.health = []string{"health_uri /health", "health_interval 20ms", "health_fails 5"}
	harness.Load(t, c.caddyfile())
	c.waitReady(t, raceClients()[1], 1)
	c.drive(t, 20)
	time.Sleep(60 * time.Millisecond) // health checks after the first requests
	c.drive(t, 20)
	c.check(t, 40, 40)
}

// TestRaceHTTP3: over HTTP/3 there is no connection hook before the first
// request; requests through osdm_token and through a plain proxy in a
// later route start together on separate connections.
func TestRaceHTTP3(t *testing.T) {
	c := newRaceChain(t)
	c.frontSite = fmt.Sprintf("https://127.0.0.1:%d", c.front)
	c.extra = fmt.Sprintf("\tlocal_certs\n\tskip_install_trust\n\tauto_https disable_redirects\n\thttp_port %d\n\thttps_port %d\n\tstorage file_system %s\n",
		harness.FreePort(t), c.front, t.TempDir())
	harness.Load(t, c.caddyfile())
	base := c.frontSite
	// The site's certificate is issued in the background.
	waitQUIC(t, c.front)
	var wg sync.WaitGroup
	var ok atomic.Int32
	for i := range 16 {
		wg.Go(func() {
			tr := &http3.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
			defer tr.Close()
			client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
			for j := range 4 {
				path := []string{"/a/x", "/plain/x"}[(i+j)%2]
				if err := c.send(client, base, path, 3); err != nil {
					t.Error(err)
					return
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 64 {
		t.Fatalf("%d of 64 HTTP/3 requests answered", ok.Load())
	}
	c.check(t, 32, 32)
}

// TestRaceReloadUnderTraffic: HTTP/1.1 and HTTP/2 (h2c) requests run
// through osdm_token and osdm_access while the configuration is loaded
// again and again. A request cut off by the hand-over between the old and
// the new server (a reset or EOF on a connection the old one closed) is
// sent again; every answer must be the right one.
func TestRaceReloadUnderTraffic(t *testing.T) {
	c := newRaceChain(t)
	harness.Load(t, c.caddyfile())
	base := fmt.Sprintf("http://127.0.0.1:%d", c.front)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var answered [3]atomic.Int32
	for proto, client := range raceClients() {
		for g := range 3 {
			wg.Go(func() {
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					path := []string{"/a/x", "/plain/x"}[(g+i)%2]
					var err error
					for range 5 {
						if err = c.send(client, base, path, proto); err == nil || !handOverError(err) {
							break
						}
						time.Sleep(5 * time.Millisecond)
					}
					if err != nil {
						t.Error(err)
						return
					}
					answered[proto].Add(1)
				}
			})
		}
	}
	for range 6 {
		time.Sleep(80 * time.Millisecond)
		harness.Load(t, c.caddyfile())
	}
	time.Sleep(80 * time.Millisecond)
	close(stop)
	wg.Wait()
	if answered[1].Load() < 20 || answered[2].Load() < 20 {
		t.Fatalf("answered %d HTTP/1.1 and %d HTTP/2 requests during the reloads; too few to prove anything", answered[1].Load(), answered[2].Load())
	}
	if _, _, _, logins := c.p.Snapshot(); logins != 1 {
		t.Errorf("%d logins: the token cache was not kept across unchanged reloads", logins)
	}
}

// handOverError reports whether err is a connection closed under a
// request by a server shutting down for a reload: the client's own, or
// the front proxy's to the provider site (a 502 with no body).
func handOverError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "GOAWAY") ||
		strings.Contains(err.Error(), "server closed") || strings.Contains(err.Error(), "connection refused") ||
		strings.Contains(err.Error(), `: 502 ""`)
}

// waitQUIC waits until the server on port completes a QUIC handshake. Not
// a TCP one: a TCP connection runs the server's connection hooks, and this
// test is about a server whose first requests come over HTTP/3.
func waitQUIC(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := quic.DialAddr(ctx, fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{http3.NextProtoH3}}, nil)
		cancel()
		if err == nil {
			conn.CloseWithError(0, "")
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no QUIC handshake with the front: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
