package reverse

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The money of osdm_legacy's after-sales through a real Caddy, read back
// from the legacy system's own records afterwards: what a consumer is
// quoted and confirmed is what the legacy system keeps, to the cent.

// cents reads a legacy sandbox amount ("12.30", "" for none) in cents.
func cents(t *testing.T, s string) int64 {
	t.Helper()
	if s == "" {
		return 0
	}
	whole, frac, _ := strings.Cut(s, ".")
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt((frac + "00")[:2], 10, 64)
	if err1 != nil || err2 != nil || len(frac) > 2 || strings.HasPrefix(s, "-") {
		t.Fatalf("amount %q", s)
	}
	return w*100 + f
}

// legacyBooking is the legacy system's record of the booking the message
// whose messageId starts with prefix acted on.
func (l *bkLegacy) legacyBooking(t *testing.T, prefix string) legacysandbox.BookingInfo {
	t.Helper()
	for _, b := range l.sb.Bookings() {
		for _, id := range b.MessageIDs {
			if strings.HasPrefix(id, prefix) {
				return b
			}
		}
	}
	t.Fatalf("the legacy system holds no booking of a message %s...", prefix)
	return legacysandbox.BookingInfo{}
}

// TestOSDMLegacyReleaseWithoutFee: places nobody bought are released
// without a fee at the legacy system: a DELETE of a PREBOOKED booking, a
// booking whose hold ran out (the sweeper) and a DELETE of an exchange
// operation each leave a legacy booking cancelled with its whole price
// refunded and no fee kept, under the technical reason code.
func TestOSDMLegacyReleaseWithoutFee(t *testing.T) {
	l := startBKLegacy(t)
	dir := t.TempDir()
	base := harness.Serve(t, func(port int) string {
		return bkCaddyfile(port, l.addr, "store bolt "+filepath.Join(dir, "legacy.db"), "\n\t\t\thold 3s")
	})
	c := &bkClient{t: t, base: base}

	var deleted, expired osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("708").OfferID), "", 200, &deleted)
	c.ok("DELETE", "/bookings/"+deleted.Booking.ID, "", "", 204, nil)
	c.ok("POST", "/bookings", bookingOf(c.offer("710").OfferID), "", 200, &expired)
	b, fid := c.bookFulfilled("708")
	xid := c.exchange(b, fid, "709")
	c.ok("DELETE", "/bookings/"+b.ID+"/exchange-operations/"+xid, "", "", 204, nil)

	var gb osdm.BookingResponse
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.ok("GET", "/bookings/"+expired.Booking.ID, "", "", 200, &gb)
		if gb.Booking.BookedOffers[0].Reservations[0].Status == osdm.BookingPartReleased {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("booking not released 20s after a 3s hold")
		}
		time.Sleep(200 * time.Millisecond)
	}
	for name, prefix := range map[string]string{
		"deleted booking":           deleted.Booking.ID + ".book",
		"expired hold":              expired.Booking.ID + ".book",
		"deleted exchange's places": b.ID + ".xbook",
	} {
		lb := l.legacyBooking(t, prefix)
		if lb.CancelledAt == nil || cents(t, lb.Fee) != 0 || cents(t, lb.Refund) != cents(t, lb.Price) || lb.ReasonCode == nil {
			t.Errorf("%s: the legacy system records price %s, refund %q, fee %q, reason %v, cancelled %v",
				name, lb.Price, lb.Refund, lb.Fee, lb.ReasonCode, lb.CancelledAt)
		}
	}
}
