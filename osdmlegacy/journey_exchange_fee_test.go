package osdmlegacy

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestJourneyExchangeFeeIsTheLegacySystems: with exchange_fee refund_fee
// (10%), a journey of two trains at 18.56 each (an adult at 12.37, a child
// at 6.19) is exchanged. The legacy system keeps its cancellation fee on
// each old train's CancelRequest, rounded per train (1.86 each): the
// exchange offer quotes their sum, 3.72 (not 10% of the journey, 3.71),
// and the confirmation makes the legacy system keep exactly that, and
// refund the rest of the old journey's price, as it does for one train.
func TestJourneyExchangeFeeIsTheLegacySystems(t *testing.T) {
	fee := Fee{BasisPoints: 1000}
	e := newBookEnvWith(t, memKind, func(c *Config) { c.RefundFee, c.ExchangeFee = fee, fee },
		legacysandbox.Config{Fares: []legacysandbox.Fare{{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat, Cents: 1237}}})
	id := e.fulfilledJourney("708", "709")
	var oldRefs []string
	for _, legID := range e.journeyOf(id).Legs {
		oldRefs = append(oldRefs, e.records()[legID].Legacy.BookingRef)
	}

	sel := e.journeyExchangeOffer(e.f, id)
	xo := e.journeyOf(id).ExchangeQuotes[0]
	if xo.Fee.Amount != 372 || xo.Fee.EffectiveScale() != 2 {
		t.Errorf("exchange fee quoted %+v, want 3.72: 1.86 kept on each old train", xo.Fee)
	}
	if xo.ToPay == nil || xo.ToPay.Amount != xo.ExchangePrice.Amount+xo.Fee.Amount-3712 {
		t.Errorf("quote %+v: to pay is the new price + the fee - 37.12", xo)
	}
	e.bookJourneyExchange(e.f, id, sel)
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", "{}"), 200)
	var kept, refunded int64
	for _, ref := range oldRefs {
		status, _, refund, fee := e.sandboxBooking(ref)
		if status != legacy.StatusCancelled {
			t.Fatalf("old train %s at the legacy system: %s", ref, status)
		}
		kept += cents(t, fee)
		refunded += cents(t, refund)
	}
	if kept != xo.Fee.Amount || refunded != 3712-xo.Fee.Amount {
		t.Errorf("the legacy system kept %d and refunded %d cents of the old journey; quoted fee %+v", kept, refunded, xo.Fee)
	}
	e.assertAgree(true)
}

// cents is a legacy decimal amount ("1.86") in cents.
func cents(t *testing.T, amount string) int64 {
	t.Helper()
	p, err := decimalPrice(amount, "EUR")
	if err != nil || p.EffectiveScale() != 2 {
		t.Fatalf("amount %q: %v", amount, err)
	}
	return p.Amount
}
