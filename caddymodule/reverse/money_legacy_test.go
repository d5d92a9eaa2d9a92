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

// exchangeQuoted asks booking b for exchange offers to train, books the
// one found and confirms it with the fulfilment: the exchange fee and
// difference quoted.
func (c *bkClient) exchangeQuoted(b *osdm.Booking, fid, train string) (fee, toPay int64) {
	c.t.Helper()
	var xo asExchangeOffers
	c.sent("POST", "/bookings/"+b.ID+"/exchange-offers?embed=EXCHANGEOFFERS", exchangeBody(b, fid, train), 200, &xo)
	if len(xo.ExchangeOffers) != 1 || xo.ExchangeOffers[0].AmountToBePaid == nil {
		c.t.Fatalf("exchange offers %+v", xo)
	}
	o := xo.ExchangeOffers[0]
	var op asExchangeOperation
	c.sent("POST", "/bookings/"+b.ID+"/exchange-operations", `{"exchangeOffers": [{"offerId": "`+o.OfferID+`", "passengerRefs": ["p1", "p2"]}]}`, 200, &op)
	var fr osdm.FulfillmentCollectionResponse
	c.sent("POST", "/bookings/"+b.ID+"/fulfillments", "{}", 200, &fr)
	return o.ExchangeFee.Amount, o.AmountToBePaid.Amount
}

// TestOSDMLegacyExchangeFeeIsLegacyFee: the exchange fee a consumer is
// quoted is what the legacy system keeps when the exchange cancels the old
// places, to the cent: none without exchange_fee (the old places are
// cancelled with the technical reason code), the legacy system's
// cancellation fee with exchange_fee equal to refund_fee; and what is paid
// on top is the new booking's price less what the old one refunded. An
// exchange_fee that is not refund_fee is a configuration error.
func TestOSDMLegacyExchangeFeeIsLegacyFee(t *testing.T) {
	for _, tc := range []struct{ name, extra string }{
		{"no exchange_fee", ""},
		{"exchange_fee 10%", "\n\t\t\texchange_fee 10%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := startBKLegacy(t)
			dir := t.TempDir()
			base := harness.Serve(t, func(port int) string {
				return bkCaddyfile(port, l.addr, "store bolt "+filepath.Join(dir, "legacy.db"), tc.extra)
			})
			c := &bkClient{t: t, base: base}
			b, fid := c.bookFulfilled("708")
			fee, toPay := c.exchangeQuoted(b, fid, "709")
			old, nu := l.legacyBooking(t, b.ID+".book"), l.legacyBooking(t, b.ID+".xbook")
			if old.CancelledAt == nil || cents(t, old.Fee) != fee || cents(t, old.Refund)+cents(t, old.Fee) != cents(t, old.Price) {
				t.Errorf("quoted an exchange fee of %d cents; the legacy system keeps %q of the old booking (price %s, refund %q)", fee, old.Fee, old.Price, old.Refund)
			}
			if want := cents(t, nu.Price) - cents(t, old.Refund); toPay != want {
				t.Errorf("quoted %d cents to pay; the legacy system books %s and refunds %s: %d", toPay, nu.Price, old.Refund, want)
			}
			if tc.extra != "" && fee == 0 {
				t.Errorf("exchange_fee 10%% quoted no fee")
			}
		})
	}
	t.Run("exchange_fee is not refund_fee", func(t *testing.T) {
		err := harness.TryAdapt("Caddyfile", bkCaddyfile(harness.FreePort(t), "127.0.0.1:1", "store bolt "+filepath.Join(t.TempDir(), "legacy.db"), "\n\t\t\texchange_fee 2.00 EUR"))
		if err == nil || !strings.Contains(err.Error(), "exchange_fee 2.00 EUR") || !strings.Contains(err.Error(), "Caddyfile:") {
			t.Errorf("an exchange_fee the legacy system does not keep: %v", err)
		}
	})
}
