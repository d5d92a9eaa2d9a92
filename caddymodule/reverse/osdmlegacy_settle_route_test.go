package reverse

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestOSDMLegacyHoldReleasedThroughHandleSiblings: osdm_legacy in the
// first of two Caddyfile handle blocks (one group: Caddy runs the
// fallback only when the first did not match), reverse_proxy to the
// legacy system after them. The release of a booking past its hold, sent
// with no request, goes on past the fallback to reverse_proxy, as the
// booking's own messages did; on bolt and on Redis.
func TestOSDMLegacyHoldReleasedThroughHandleSiblings(t *testing.T) {
	for _, engine := range []string{"bolt", "redis"} {
		t.Run(engine, func(t *testing.T) {
			l := startBKLegacy(t)
			store, app := "store bolt "+filepath.Join(t.TempDir(), "legacy.db"), ""
			if engine == "redis" {
				// The test Redis need not persist: the store says accept_volatile.
				store = "store shared"
				app = "addresses " + redistest.Shared(t) + "\n\t\t\taccept_volatile\n\t\t\tprefix osdm-legacy-it/" + harness.RandomHex(8) + "/"
			}
			base := harness.Serve(t, func(port int) string {
				cf := harness.Options() + fmt.Sprintf(`
http://127.0.0.1:%d {
	handle /osdm/* {
		route {
			uri strip_prefix /osdm
			osdm_legacy {
				partner hermes-test
				timeout 2s
				settle_interval 200ms
				hold 2s
				%s
			}
		}
	}
	handle {
		respond "no OSDM here" 404
	}
	reverse_proxy %s
}
`, port, store, l.addr)
				if app != "" {
					cf = withRedisStore(cf, app)
				}
				return cf
			})
			c := &bkClient{t: t, base: base}
			var b osdm.BookingResponse
			c.ok("POST", "/bookings", bookingOf(c.offer("710").OfferID), "", 200, &b)
			var gb osdm.BookingResponse
			deadline := time.Now().Add(20 * time.Second)
			for {
				c.ok("GET", "/bookings/"+b.Booking.ID, "", "", 200, &gb)
				if gb.Booking.BookedOffers[0].Reservations[0].Status == osdm.BookingPartReleased {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("booking not released 20s after a 2s hold: %s", gb.Booking.BookedOffers[0].Reservations[0].Status)
				}
				time.Sleep(200 * time.Millisecond)
			}
			cancels := 0
			for _, m := range l.messages() {
				if m.kind == legacy.KindCancelRequest && m.id == b.Booking.ID+".cancel.1" {
					cancels++
				}
			}
			if cancels != 1 || len(l.held()) != 0 {
				t.Errorf("release sent %d CancelRequests; the legacy system holds %d bookings", cancels, len(l.held()))
			}
		})
	}
}
