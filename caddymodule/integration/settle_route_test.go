package integration

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
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// The tests of this file run osdm_convert's settlement (with no client
// request) on Caddyfiles of the shapes that decide what the route after
// osdm_convert is: handle siblings, a handle_errors block, a remote_ip
// matcher after osdm_convert, and an access log; each on bolt and on
// Redis. In each, an exchange is left unsettled (the partner answers
// neither its fulfilment nor the rollback's DELETE), the partner comes
// back, and settlement must delete the booking through the route as
// Caddy would run it for a client.

// settleShape is the site of a front around its osdm_convert block.
type settleShape struct {
	name string
	// site is the site block on port, sending to upstream; logPath is
	// where an access log goes.
	site func(port int, convert, upstream, logPath string) string
	// client is the front's address and the legacy client's source
	// address ("" for any).
	host, source string
	// unreachable: the frozen partner drops the connection instead of
	// answering 503, so that reverse_proxy returns an error.
	unreachable bool
	// check looks at what the shape must show once settled.
	check func(t *testing.T, logPath string)
}

var settleShapes = []settleShape{{
	// Caddyfile handle blocks are one group: once the first matched,
	// Caddy skips the fallback, and the chain after osdm_convert goes on
	// to the site's reverse_proxy.
	name: "handle siblings",
	site: func(port int, convert, upstream, _ string) string {
		return fmt.Sprintf("http://127.0.0.1:%d {\n\thandle / {\n\t\troute {\n%s\t\t}\n\t}\n\thandle {\n\t\trespond \"no legacy route here\" 404\n\t}\n\treverse_proxy %s\n}\n",
			port, nested(convert), upstream)
	},
	host: "127.0.0.1",
}, {
	// A partner that cannot be reached is reverse_proxy's error: it comes
	// back to osdm_convert, in settlement as for a client, and the
	// server's error routes (which would answer 200) do not run for it.
	name: "handle_errors",
	site: func(port int, convert, upstream, _ string) string {
		return fmt.Sprintf("http://127.0.0.1:%d {\n\troute {\n%s\t\treverse_proxy %s\n\t}\n\thandle_errors {\n\t\trespond \"handled {err.status_code}\" 200\n\t}\n}\n",
			port, convert, upstream)
	},
	host:        "127.0.0.1",
	unreachable: true,
}, {
	// Only this host's own address may reach the partner: the legacy
	// system sends from it, and settlement comes from the server's
	// listen address.
	name: "remote_ip",
	site: func(port int, convert, upstream, _ string) string {
		return fmt.Sprintf("http://:%d {\n\tbind 127.0.0.2\n\troute {\n%s\t\t@here remote_ip 127.0.0.2\n\t\treverse_proxy @here %s {\n\t\t\theader_up Host 127.0.0.1\n\t\t}\n\t\trespond \"{http.request.remote.host} may not reach the partner\" 403\n\t}\n}\n",
			port, convert, upstream)
	},
	host: "127.0.0.2", source: "127.0.0.2",
}, {
	// The access log has the legacy client's requests; settlement's
	// calls are osdm_convert's, as a client's calls to the partner are,
	// and are not in it.
	name: "access log",
	site: func(port int, convert, upstream, logPath string) string {
		return fmt.Sprintf("http://127.0.0.1:%d {\n\tlog {\n\t\toutput file %s\n\t\tformat json\n\t}\n\troute {\n%s\t\treverse_proxy %s\n\t}\n}\n",
			port, logPath, convert, upstream)
	},
	host: "127.0.0.1",
	check: func(t *testing.T, logPath string) {
		type entry struct {
			Request struct {
				Method string `json:"method"`
				URI    string `json:"uri"`
			} `json:"request"`
		}
		entries := harness.JSONLines[entry](t, logPath)
		for _, e := range entries {
			if e.Request.Method != http.MethodPost || e.Request.URI != "/" {
				t.Errorf("the access log has %s %s; only the legacy client's POST / belongs there", e.Request.Method, e.Request.URI)
			}
		}
		if len(entries) == 0 {
			t.Error("the access log has not even the legacy client's requests")
		}
	},
}}

func TestSettlementThroughRouteShapes(t *testing.T) {
	rig := newJournalRig(t, "", "")
	for _, engine := range []string{"bolt", "redis"} {
		for _, shape := range settleShapes {
			t.Run(engine+"/"+shape.name, func(t *testing.T) {
				store := ""
				if engine == "bolt" {
					store = boltStore(t)
				} else {
					store = redisStore(t)
				}
				settleOnShape(t, rig, store, shape)
			})
		}
	}
}

// settleOnShape leaves an exchange unsettled on a front of shape and
// waits for settlement to delete its booking once the partner is back.
func settleOnShape(t *testing.T, partner *journalRig, store string, shape settleShape) {
	rig := *partner
	rig.t = t
	port := harness.FreePort(t)
	dir := t.TempDir()
	logPath := filepath.Join(dir, "access.log")
	caddyfile := journalFrontCaddyfile(store, "\t\t\tsettle_interval 200ms\n", func(convert string) string {
		return shape.site(port, convert, fmt.Sprintf("127.0.0.1:%d", rig.tap.port()), logPath)
	})
	harness.StartCaddy(t, dir, "front", caddyfile)

	id := journalMsgID("shape")
	fulfil := converter.IdempotencyKey(journalPartner, id, converter.StepFulfillments)
	var mu sync.Mutex
	frozen, refused := true, 0
	isFrozen := func(r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if frozen && (r.Header.Get("Idempotency-Key") == fulfil || r.Method == http.MethodDelete || r.Method == http.MethodGet) {
			refused++
			return true
		}
		return false
	}
	refusedSoFar := func() int {
		mu.Lock()
		defer mu.Unlock()
		return refused
	}
	rig.tap.mu.Lock()
	if shape.unreachable {
		rig.tap.fail = isFrozen
	} else {
		rig.tap.intercept = func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if !isFrozen(r) {
				return false
			}
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"code":"SERVICE_UNAVAILABLE","title":"frozen"}`))
			return true
		}
	}
	rig.tap.mu.Unlock()
	t.Cleanup(func() {
		rig.tap.mu.Lock()
		rig.tap.fail, rig.tap.intercept = nil, nil
		rig.tap.mu.Unlock()
	})

	client := harness.LegacyClient{URL: fmt.Sprintf("http://%s:%d/", shape.host, port), HTTP: harness.ClientFrom(shape.source)}
	a, err := client.Try(searchBooking(id))
	if err != nil {
		t.Fatal(err)
	}
	n, ok := a.Reply.(*legacy.NegativeReply)
	b := rig.oneBooking(id)
	if !ok || n.BookingRef != b.ID || b.Status != "PREBOOKED" {
		t.Fatalf("with the partner frozen: %d %+v, partner %+v", a.Status, a.Reply, b)
	}
	// Still frozen: settlement runs (every 200ms) and must not take
	// anything but the partner's answer for one. Wait until it has met
	// the frozen partner twice, however long a loaded machine takes.
	for before, deadline := refusedSoFar(), time.Now().Add(settleDeadline); refusedSoFar()-before < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("settlement called the frozen partner %d times in %s", refusedSoFar()-before, settleDeadline)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if b := rig.oneBooking(id); b.Status != "PREBOOKED" {
		t.Fatalf("the booking is %s while the partner was frozen", b.Status)
	}
	if again, err := client.Try(searchBooking(id)); err != nil || again.Status != a.Status {
		t.Fatalf("resend while frozen: %d %+v %v, first %d", again.Status, again.Reply, err, a.Status)
	}
	mu.Lock()
	frozen = false
	mu.Unlock()
	rig.awaitDeleted(t, id, "settlement did not delete the booking through the route after the partner came back")
	final, err := client.Try(searchBooking(id))
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := final.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeBookingRolledBack || n.BookingRef != b.ID {
		t.Fatalf("resend after settlement: %d %+v", final.Status, final.Reply)
	}
	if shape.check != nil {
		if _, err := os.Stat(logPath); err != nil {
			t.Fatal(err)
		}
		shape.check(t, logPath)
	}
}

// nested puts a tab more in front of every line of block.
func nested(block string) string {
	return "\t" + strings.ReplaceAll(strings.TrimSuffix(block, "\n"), "\n", "\n\t") + "\n"
}
