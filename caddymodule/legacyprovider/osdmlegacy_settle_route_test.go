package legacyprovider

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The tests of this file run osdm_legacy's background work (the release
// of a booking past its hold, sent with no request) on Caddyfiles of the
// shapes that decide what the route after osdm_legacy is: handle
// siblings, a remote_ip matcher after osdm_legacy, a handle_errors block,
// and an access log; each on bolt and on Redis. The release must reach
// the legacy system through reverse_proxy as the booking's own messages
// did.

// legacyShape is a Caddy whose site puts osdm_legacy's block in front of
// the legacy system at legacyAddr; host is the address of the site and
// source the one the client's calls come from ("" for any).
type legacyShape struct {
	site         func(port int, block, legacyAddr string) string
	host, source string
	// depth is the number of tabs in front of the block (0: 2), as the
	// adapter wants a formatted Caddyfile.
	depth int
	// caddyLog, if not empty, is where Caddy's own log goes, as JSON.
	caddyLog string
}

// serveLegacyShape starts the Caddy of shape on engine ("bolt" or
// "redis"), with osdm_legacy holding bookings 2s and settling every
// 200ms, in front of l; it returns the client of its OSDM routes.
func serveLegacyShape(t *testing.T, engine string, l *bkLegacy, shape legacyShape) *bkClient {
	t.Helper()
	options, store := harness.Options(), "store bolt "+filepath.Join(t.TempDir(), "legacy.db")
	if engine == "redis" {
		// The test Redis need not persist: the store says accept_volatile.
		store = "store shared"
		options = withRedisStore(options, "addresses "+redistest.Shared(t)+"\n\t\t\taccept_volatile\n\t\t\tprefix osdm-legacy-it/"+harness.RandomHex(8)+"/")
	}
	if shape.caddyLog != "" {
		options = strings.Replace(options, "\tauto_https off\n", "\tauto_https off\n"+harness.LogOption(shape.caddyLog, ""), 1)
	}
	in := "\n" + strings.Repeat("\t", max(shape.depth, 2))
	block := "osdm_legacy {" + in + "\tpartner hermes-test" + in + "\ttimeout 2s" + in + "\tsettle_interval 200ms" + in + "\thold 2s" + in + "\t" + store + in + "}"
	port := harness.FreePort(t)
	harness.Load(t, options+shape.site(port, block, l.addr))
	return &bkClient{t: t, base: fmt.Sprintf("http://%s:%d", shape.host, port), http: harness.ClientFrom(shape.source)}
}

// bookForRelease books train and returns the booking, left to run past
// its hold.
func bookForRelease(c *bkClient, train string) *osdm.Booking {
	c.t.Helper()
	var b osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer(train).OfferID), "", 200, &b)
	return b.Booking
}

// reservationStatus is the status of b's reservation, read again.
func (c *bkClient) reservationStatus(b *osdm.Booking) osdm.BookingPartStatus {
	c.t.Helper()
	var gb osdm.BookingResponse
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	return gb.Booking.BookedOffers[0].Reservations[0].Status
}

// awaitReleased waits for b, past its hold (a duration, for the failure
// message), to be released by the background work.
func (c *bkClient) awaitReleased(b *osdm.Booking, hold string) {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		status := c.reservationStatus(b)
		if status == osdm.BookingPartReleased {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("booking not released 20s after a %s hold: %s", hold, status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waitReleased waits for b to be released by the background work past
// its 2s hold, and checks that one CancelRequest, the release's, reached
// l for it from message from on, and that l holds nothing any more.
func waitReleased(c *bkClient, l *bkLegacy, b *osdm.Booking, from int) {
	c.t.Helper()
	c.awaitReleased(b, "2s")
	cancels := 0
	for _, m := range l.messages()[from:] {
		if m.kind == legacy.KindCancelRequest && m.id == b.ID+".cancel.1" {
			cancels++
		}
	}
	if cancels != 1 || len(l.held()) != 0 {
		c.t.Errorf("release sent %d CancelRequests; the legacy system holds %d bookings", cancels, len(l.held()))
	}
}

// onBoltAndRedis runs test on each store engine.
func onBoltAndRedis(t *testing.T, test func(t *testing.T, engine string)) {
	for _, engine := range []string{"bolt", "redis"} {
		t.Run(engine, func(t *testing.T) { test(t, engine) })
	}
}

// TestOSDMLegacyHoldReleasedThroughHandleSiblings: osdm_legacy in the
// first of two Caddyfile handle blocks (one group: Caddy runs the
// fallback only when the first did not match), reverse_proxy to the
// legacy system after them. The release of a booking past its hold, sent
// with no request, goes on past the fallback to reverse_proxy, as the
// booking's own messages did; on bolt and on Redis.
func TestOSDMLegacyHoldReleasedThroughHandleSiblings(t *testing.T) {
	onBoltAndRedis(t, func(t *testing.T, engine string) {
		l := startBKLegacy(t)
		c := serveLegacyShape(t, engine, l, legacyShape{host: "127.0.0.1", depth: 3, site: func(port int, block, legacyAddr string) string {
			return fmt.Sprintf(`
http://127.0.0.1:%d {
	handle /osdm/* {
		route {
			uri strip_prefix /osdm
			%s
		}
	}
	handle {
		respond "no OSDM here" 404
	}
	reverse_proxy %s
}
`, port, block, legacyAddr)
		}})
		waitReleased(c, l, bookForRelease(c, "710"), 0)
	})
}

// TestOSDMLegacyHoldReleasedThroughRemoteIP: a remote_ip matcher after
// osdm_legacy lets only the server's own address (bind 127.0.0.2) reach
// the legacy system; other sources are answered 403 before it. The
// release, sent with no request, comes from the server's listen address
// and passes the matcher, as the docs tell operators to allow; on bolt
// and on Redis.
func TestOSDMLegacyHoldReleasedThroughRemoteIP(t *testing.T) {
	onBoltAndRedis(t, func(t *testing.T, engine string) {
		l := startBKLegacy(t)
		c := serveLegacyShape(t, engine, l, legacyShape{host: "127.0.0.2", source: "127.0.0.2", site: func(port int, block, legacyAddr string) string {
			return fmt.Sprintf(`
http://:%d {
	bind 127.0.0.2
	route /osdm/* {
		uri strip_prefix /osdm
		%s
		@here remote_ip 127.0.0.2
		reverse_proxy @here %s
		respond "{http.request.remote.host} may not reach the legacy system" 403
	}
}
`, port, block, legacyAddr)
		}})
		// The matcher is in force: a client from 127.0.0.1 gets no offer,
		// and its search does not reach the legacy system.
		other := &bkClient{t: t, base: c.base, http: harness.ClientFrom("127.0.0.1")}
		if status, _, body := other.do("POST", "/offers", offerSearch("710"), ""); status == http.StatusOK || len(l.messages()) != 0 {
			t.Fatalf("a search from 127.0.0.1: %d %s; %d legacy messages", status, body, len(l.messages()))
		}
		waitReleased(c, l, bookForRelease(c, "710"), 0)
	})
}

// TestOSDMLegacyHoldReleasedPastHandleErrors: with the legacy system
// unreachable for CancelRequests (connections closed unanswered),
// reverse_proxy's error comes back to osdm_legacy, which keeps the
// booking held and retries; the server's handle_errors routes (which
// would proxy the error to another backend and answer 200) do not run for
// the background call's legacy message. Once the legacy system answers,
// the release goes through; on bolt and on Redis.
func TestOSDMLegacyHoldReleasedPastHandleErrors(t *testing.T) {
	onBoltAndRedis(t, func(t *testing.T, engine string) {
		l := startBKLegacy(t)
		var mu sync.Mutex
		var errorRoutes []string
		recorder := harness.ServeLocal(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			errorRoutes = append(errorRoutes, r.Method+" "+r.URL.Path)
			mu.Unlock()
			_, _ = w.Write([]byte("handled"))
		}))
		errorCalls := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), errorRoutes...)
		}
		c := serveLegacyShape(t, engine, l, legacyShape{host: "127.0.0.1", site: func(port int, block, legacyAddr string) string {
			return fmt.Sprintf(`
http://127.0.0.1:%d {
	route /osdm/* {
		uri strip_prefix /osdm
		%s
		reverse_proxy %s
	}
	error /nowhere "nowhere" 404
	handle_errors {
		reverse_proxy %s
	}
}
`, port, block, legacyAddr, recorder)
		}})
		// The error routes are in force for an error a request returns
		// to the server.
		if status, body, _ := harness.Do(t, "GET", c.base+"/nowhere", "", "", nil); status != http.StatusOK || body != "handled" {
			t.Fatalf("GET /nowhere: %d %q, want the error routes' answer", status, body)
		}
		l.mu.Lock()
		l.drop = legacy.KindCancelRequest
		l.mu.Unlock()
		b := bookForRelease(c, "710")
		// Past the hold, the release fails on every pass while the legacy
		// system is unreachable.
		deadline := time.Now().Add(20 * time.Second)
		for countKind(l.messages(), legacy.KindCancelRequest) < 2 {
			if time.Now().After(deadline) {
				t.Fatal("no release attempted 20s after a 2s hold")
			}
			time.Sleep(200 * time.Millisecond)
		}
		if status := c.reservationStatus(b); status == osdm.BookingPartReleased || len(l.held()) != 1 {
			t.Fatalf("with the legacy system unreachable, the booking is %s and the legacy system holds %d bookings", status, len(l.held()))
		}
		if calls := errorCalls(); len(calls) != 1 {
			t.Fatalf("the error routes ran for %v; only the client's GET /nowhere was theirs", calls)
		}
		l.mu.Lock()
		l.drop = ""
		l.mu.Unlock()
		waitReleased(c, l, b, len(l.messages()))
		if calls := errorCalls(); len(calls) != 1 {
			t.Errorf("the error routes ran for %v; only the client's GET /nowhere was theirs", calls)
		}
	})
}

// countKind is the number of messages of kind among seen.
func countKind(seen []bkSeen, kind legacy.Kind) int {
	n := 0
	for _, m := range seen {
		if m.kind == kind {
			n++
		}
	}
	return n
}

// TestOSDMLegacyHoldReleasedOutOfAccessLog: a site with an access log
// and a reverse_proxy that adds the legacy system's own credential
// (header_up). The release, sent with no request, carries that
// credential to the legacy system as the booking's messages do; the
// access log has one line per client request and none for the release
// (nor for the legacy messages of the client's calls); the handler logs
// what the release did ("settlement", released); no line of either log
// holds the legacy credential or the client's access token, and no
// legacy message carries the token; on bolt and on Redis.
func TestOSDMLegacyHoldReleasedOutOfAccessLog(t *testing.T) {
	onBoltAndRedis(t, func(t *testing.T, engine string) {
		l := startBKLegacy(t)
		dir := t.TempDir()
		accessLog, caddyLog := filepath.Join(dir, "access.log"), filepath.Join(dir, "caddy.log")
		hermesKey := "hermes-key-" + harness.RandomHex(16)
		c := serveLegacyShape(t, engine, l, legacyShape{host: "127.0.0.1", caddyLog: caddyLog, site: func(port int, block, legacyAddr string) string {
			return fmt.Sprintf(`
http://127.0.0.1:%d {
	log {
		output file %s
		format json
	}
	route /osdm/* {
		uri strip_prefix /osdm
		%s
		reverse_proxy %s {
			header_up X-Hermes-Key %s
		}
	}
}
`, port, accessLog, block, legacyAddr, hermesKey)
		}})
		b := bookForRelease(c, "710")
		waitReleased(c, l, b, 0)
		for _, m := range l.messages() {
			if m.kind == legacy.KindCancelRequest && m.header.Get("X-Hermes-Key") != hermesKey {
				t.Errorf("the release reached the legacy system without reverse_proxy's header_up: %v", m.header)
			}
			if strings.Contains(fmt.Sprint(m.header), bkAccessToken) {
				t.Errorf("the client's access token reached the legacy system with a %s", m.kind)
			}
		}

		type access struct {
			Request struct {
				Method  string              `json:"method"`
				URI     string              `json:"uri"`
				Headers map[string][]string `json:"headers"`
			} `json:"request"`
		}
		entries := harness.JSONLines[access](t, accessLog)
		for _, e := range entries {
			if !strings.HasPrefix(e.Request.URI, "/osdm/") || strings.Join(e.Request.Headers["User-Agent"], "") == "caddy-osdm" {
				t.Errorf("the access log has %s %s (%v); only the client's OSDM calls belong there", e.Request.Method, e.Request.URI, e.Request.Headers["User-Agent"])
			}
		}
		if len(entries) < 3 {
			t.Errorf("the access log has %d lines, fewer than the client's calls", len(entries))
		}

		released := 0.0
		for _, e := range harness.JSONLines[map[string]any](t, caddyLog) {
			if n, ok := e["released"].(float64); ok && e["msg"] == "settlement" {
				released += n
			}
		}
		if released != 1 {
			t.Errorf("the settlement lines tell of %v releases, want 1", released)
		}
		var logs []byte
		for _, f := range []string{accessLog, caddyLog} {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			logs = append(logs, data...)
		}
		harness.AssertNoSecrets(t, logs, []string{hermesKey, bkAccessToken})
	})
}
