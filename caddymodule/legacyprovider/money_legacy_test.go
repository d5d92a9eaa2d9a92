package legacyprovider

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
	c := serveBK(t, l, "\n\t\t\thold 3s")

	var deleted, expired osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("708").OfferID), "", 200, &deleted)
	c.ok("DELETE", "/bookings/"+deleted.Booking.ID, "", "", 204, nil)
	c.ok("POST", "/bookings", bookingOf(c.offer("710").OfferID), "", 200, &expired)
	b, fid := c.bookFulfilled("708")
	xid := c.exchange(b, fid, "709")
	c.ok("DELETE", "/bookings/"+b.ID+"/exchange-operations/"+xid, "", "", 204, nil)

	c.awaitReleased(expired.Booking, "3s")
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
			c := serveBK(t, l, tc.extra)
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

// threePassengers are an adult, a child and a senior, the legacy tariffs
// 1, 2 and 3 (100 %, 50 % and 70 % of the fare).
const threePassengers = `{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}, {"externalRef": "p3", "type": "SENIOR", "age": 70}`

// bookThree books train tomorrow for threePassengers and fulfils it.
func (c *bkClient) bookThree(train string) (*osdm.Booking, string) {
	c.t.Helper()
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly) + "T00:00:00+01:00"
	var resp osdm.OfferCollectionResponse
	c.ok("POST", "/offers", legacySearch(train, day, threePassengers), "", 200, &resp)
	if len(resp.Offers) != 1 {
		c.t.Fatalf("search for train %s: %d offers", train, len(resp.Offers))
	}
	var br osdm.BookingResponse
	c.sent("POST", "/bookings", `{"offers": [{"offerId": "`+resp.Offers[0].OfferID+`", "passengerRefs": ["p1", "p2", "p3"]}],
	 "passengerSpecifications": [`+threePassengers+`]}`, 200, &br)
	var fr osdm.FulfillmentCollectionResponse
	c.sent("POST", "/bookings/"+br.Booking.ID+"/fulfillments", "{}", 200, &fr)
	return br.Booking, fr.Fulfillments[0].ID
}

// refund quotes the refund of passengers pids of booking b (all left when
// none) and confirms it: the quote and the confirmation.
func (c *bkClient) refund(b *osdm.Booking, fid string, pids ...string) (quoted, confirmed osdm.RefundOffer) {
	c.t.Helper()
	body := `{"fulfillmentIds": ["` + fid + `"]}`
	if len(pids) > 0 {
		body = `{"fulfillmentIds": ["` + fid + `"], "refundSpecifications": [{"fulfillmentId": "` + fid + `", "passengerIds": ["` + strings.Join(pids, `", "`) + `"]}]}`
	}
	var rr osdm.RefundOfferCollectionResponse
	c.sent("POST", "/bookings/"+b.ID+"/refund-offers", body, 200, &rr)
	var cr osdm.RefundOfferResponse
	c.sent("PATCH", "/bookings/"+b.ID+"/refund-offers/"+rr.RefundOffers[0].ID, `{"status": "CONFIRMED"}`, 200, &cr)
	return rr.RefundOffers[0], *cr.RefundOffer
}

// TestOSDMLegacyPartialRefundsAddUp: with a fare whose shares and fees
// fall between cents, a partial refund is quoted what its confirmation
// pays (the passenger's own tariff price less the fee, not an equal
// share), and the three partial refunds of a booking add up, refund and
// fee, to the cent, to the whole refund of the same booking, at both ends:
// the legacy system records the sums quoted.
func TestOSDMLegacyPartialRefundsAddUp(t *testing.T) {
	l := startBKLegacyWith(t, legacysandbox.Config{Fares: []legacysandbox.Fare{{TravelClass: 2, ServiceCode: 1, Cents: 1235}}})
	c := serveBK(t, l, "")
	parts, pfid := c.bookThree("708")
	whole, wfid := c.bookThree("710")

	var refund, fee int64
	for _, pids := range [][]string{{parts.Passengers[1].ID}, {parts.Passengers[2].ID}, nil} {
		q, cf := c.refund(parts, pfid, pids...)
		if q.RefundableAmount.Amount != cf.RefundableAmount.Amount || q.RefundFee.Amount != cf.RefundFee.Amount {
			t.Errorf("refund of %v quoted %d + fee %d, confirmed %d + fee %d", pids, q.RefundableAmount.Amount, q.RefundFee.Amount, cf.RefundableAmount.Amount, cf.RefundFee.Amount)
		}
		refund, fee = refund+cf.RefundableAmount.Amount, fee+cf.RefundFee.Amount
		if pids != nil && pids[0] == parts.Passengers[1].ID && cf.RefundableAmount.Amount+cf.RefundFee.Amount != 618 {
			t.Errorf("the child's refund stands for %d cents, want its own tariff's 6.18", cf.RefundableAmount.Amount+cf.RefundFee.Amount)
		}
	}
	_, all := c.refund(whole, wfid)
	if refund != all.RefundableAmount.Amount || fee != all.RefundFee.Amount {
		t.Errorf("three partial refunds paid %d + fee %d; one whole refund %d + fee %d", refund, fee, all.RefundableAmount.Amount, all.RefundFee.Amount)
	}
	lp, lw := l.legacyBooking(t, parts.ID+".book"), l.legacyBooking(t, whole.ID+".book")
	if cents(t, lp.Refund) != refund || cents(t, lp.Fee) != fee || cents(t, lw.Refund) != all.RefundableAmount.Amount || cents(t, lw.Fee) != all.RefundFee.Amount {
		t.Errorf("the legacy system records %s + fee %s and %s + fee %s; the consumer was paid %d + %d and %d + %d",
			lp.Refund, lp.Fee, lw.Refund, lw.Fee, refund, fee, all.RefundableAmount.Amount, all.RefundFee.Amount)
	}
}
