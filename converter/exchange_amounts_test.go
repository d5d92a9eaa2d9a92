package converter

import (
	"bytes"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// TestExchangeOfferWithoutItsAmountsIsNotOffered: a partner's exchange
// offer whose fee has more decimals than a legacy amount carries (seven)
// cannot be stated in an Exchange element. It is not offered (no offer
// without its fee in the AvailabilityReply) nor picked for an exchange
// without OfferRef, so the legacy system never exchanges at amounts it was
// not told; the booking stands.
func TestExchangeOfferWithoutItsAmountsIsNotOffered(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "XF-B", 2)
	x.mu.Lock()
	x.rewrite = func(step Step, body []byte) []byte {
		if step != StepExchangeOffers {
			return body
		}
		return bytes.ReplaceAll(body, []byte(`"exchangeFee":{"currency":"EUR","amount":100,"scale":2}`), []byte(`"exchangeFee":{"currency":"EUR","amount":10000001,"scale":7}`))
	}
	x.mu.Unlock()
	res := sbDo(t, j, x, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "XF-A"}, Journey: exchangeJourney(), ExchangeOf: b.BookingRef,
		Places: legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 2}}}})
	ar, ok := res.Reply.(*legacy.AvailabilityReply)
	if !ok {
		t.Fatalf("exchange offers: %+v", res.Reply)
	}
	for _, o := range ar.Offers {
		if o.Exchange == nil {
			t.Errorf("exchange offer %s without its Exchange element (price %+v)", o.OfferRef, o.Price)
		}
	}
	mark := len(x.calls)
	res = sbDo(t, j, x, exchangeRequest("XF-1", b.BookingRef, "", 2))
	if br, ok := res.Reply.(*legacy.BookingReply); ok {
		t.Errorf("exchanged at amounts never stated: %+v, exchange %+v", br, br.Exchange)
	}
	if strings.Contains(strings.Join(x.steps(mark), ","), string(StepExchangeOperation)) {
		t.Errorf("steps %v: an exchange operation was made", x.steps(mark))
	}
	if seatsLeft(t, x, "9203") != 38 || seatsLeft(t, x, "9207") != 40 {
		t.Errorf("after: 9203 %d, 9207 %d", seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207"))
	}
}
