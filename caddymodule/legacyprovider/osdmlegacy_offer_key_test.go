package legacyprovider

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// TestOSDMLegacyIntegrationOfferKeyDeleted: two Caddy processes on one
// Redis have made offers. The offer key is deleted (the documented way to
// withdraw every offer): neither books an offer made before, a third
// process started since writes the one new key, and the offers each of
// the three makes book on the others. Then the first is killed with
// SIGKILL and started again, and the Redis data is lost altogether: again
// no offer made before books anywhere, and every offer made after books
// on every instance.
func TestOSDMLegacyIntegrationOfferKeyDeleted(t *testing.T) {
	addr := redistest.Shared(t)
	l := startBKLegacy(t)
	// A store of the osdm app with accept_volatile: the test Redis does
	// not persist (and the test loses its data on purpose).
	r := newBKRedis(t, l, "addresses "+addr+"\n\t\t\taccept_volatile")
	// The view of the module's store: its keys as osdm_legacy names them.
	rs, err := store.OpenRedis(context.Background(), store.RedisOptions{Address: addr, Prefix: r.prefix + "legacy/hermes-test/"})
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	children := map[*bkClient]*harness.Child{}
	start := func(name string) *bkClient {
		ch, c := r.start(name, func(port int) string { return r.caddyfile(port, "") })
		children[c] = ch
		return c
	}
	booksOn := func(id string, c *bkClient) {
		t.Helper()
		var br osdm.BookingResponse
		c.ok("POST", "/bookings", bookingOf(id), uuid.NewString(), 200, &br)
		c.ok("DELETE", "/bookings/"+br.Booking.ID, "", "", 204, nil)
	}
	refusedEverywhere := func(id string, cs ...*bkClient) {
		t.Helper()
		for _, c := range cs {
			if p := c.problem("POST", "/bookings", bookingOf(id), 404); p.Code != "urn:uic:problem:BOOKING_OFFER_NOT_FOUND" {
				t.Fatalf("an offer made under the withdrawn key: %+v", p)
			}
		}
	}
	a, b := start("a"), start("b")
	oldA, oldB := a.offer("708").OfferID, b.offer("709").OfferID

	if err := rs.Delete(context.Background(), osdmlegacy.OfferKeyKey("hermes-test")); err != nil {
		t.Fatal(err)
	}
	refusedEverywhere(oldA, a, b)
	refusedEverywhere(oldB, a, b)
	c := start("c")
	all := []*bkClient{a, b, c}
	for _, maker := range []*bkClient{c, a, b} {
		for _, booker := range all {
			booksOn(maker.offer("708").OfferID, booker)
		}
	}

	// SIGKILL, then the whole Redis data lost.
	before := b.offer("709").OfferID
	children[a].Kill()
	a = start("a2")
	booksOn(c.offer("708").OfferID, a)
	beforeLoss := []string{before, a.offer("709").OfferID, c.offer("708").OfferID}
	var keys []string
	if err := rs.Scan(context.Background(), "", func(k string, _ []byte) error { keys = append(keys, k); return nil }); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := rs.Delete(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	all = []*bkClient{a, b, c}
	for _, id := range beforeLoss {
		refusedEverywhere(id, all...)
	}
	for _, maker := range all {
		for _, booker := range all {
			booksOn(maker.offer("708").OfferID, booker)
		}
	}
}
