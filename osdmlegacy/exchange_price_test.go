package osdmlegacy

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// bookedAt makes the legacy system book train at amount (EUR) whatever
// its AvailabilityReply said: a price that changed between the quote and
// the booking.
func (e *bookEnv) bookedAt(train, amount string) {
	e.legacy.mu.Lock()
	defer e.legacy.mu.Unlock()
	e.legacy.rewrite = func(req legacy.Request, reply legacy.Reply) legacy.Reply {
		br, ok := reply.(*legacy.BookingReply)
		if m, isBook := req.(*legacy.BookingRequest); ok && isBook && m.Journey.TrainNumber == train {
			br.Price = &legacy.Price{Amount: amount, Currency: "EUR"}
			br.PlaceAmounts = nil
		}
		return reply
	}
}

// bookedIn makes the legacy system book train in currency, whatever the
// currency of its AvailabilityReply and of the other trains.
func (e *bookEnv) bookedIn(train, currency string) {
	e.legacy.mu.Lock()
	defer e.legacy.mu.Unlock()
	e.legacy.rewrite = func(req legacy.Request, reply legacy.Reply) legacy.Reply {
		if br, ok := reply.(*legacy.BookingReply); ok && req.(*legacy.BookingRequest).Journey.TrainNumber == train {
			br.Price.Currency = currency
		}
		return reply
	}
}

// TestExchangeOperationStatesTheLegacyPrice: an exchange to train 708 is
// quoted at its AvailabilityReply's 12.00 (fee 1.20, 1.20 to pay), but
// the legacy system books the new places at 13.00. The exchange
// operation, which the consumer confirms, states the legacy system's
// price and what that makes the difference (2.20 to pay), before and
// after the confirmation, as the booking then does.
func TestExchangeOperationStatesTheLegacyPrice(t *testing.T) {
	e := newBookEnv(t, memKind, func(c *Config) { c.ExchangeFee = Fee{BasisPoints: 1000} })
	id, fid := e.fulfilled(e.offer("9203", adult))
	e.bookedAt("708", "13.00")
	offer, op := e.exchangeTo(id, fid, "708")
	if offer.ExchangePrice.Amount != 1200 || offer.ExchangeFee.Amount != 120 || offer.AmountToBePaid == nil || offer.AmountToBePaid.Amount != 120 {
		t.Fatalf("exchange offer quoted %+v", offer)
	}
	check := func(when string, op *osdm.ExchangeOperation) {
		t.Helper()
		if len(op.ExchangeOffers) != 1 {
			t.Fatalf("%s: exchange operation %+v", when, op)
		}
		xo := op.ExchangeOffers[0]
		if xo.ExchangePrice.Amount != 1300 || xo.ExchangeFee.Amount != 120 || xo.AmountToBePaid == nil || xo.AmountToBePaid.Amount != 220 || xo.RefundableAmount != nil {
			t.Errorf("%s: the operation states price %+v, fee %+v, to pay %+v, refundable %+v; the legacy system booked 13.00: want 13.00, 1.20, 2.20",
				when, xo.ExchangePrice, xo.ExchangeFee, xo.AmountToBePaid, xo.RefundableAmount)
		}
	}
	check("booked", &op)
	path := "/bookings/" + id + "/exchange-operations/" + op.ID
	check("read", decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "GET", path, nil), 200).ExchangeOperation)
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil), 200)
	check("confirmed", decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "GET", path, nil), 200).ExchangeOperation)
	if b := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+id, nil), 200).Booking; b.ConfirmedPrice == nil || b.ConfirmedPrice.Amount != 1300 {
		t.Errorf("booking after the exchange: confirmed price %+v, want 13.00", b.ConfirmedPrice)
	}
}

// TestJourneyExchangeOperationStatesTheLegacyPrice: as for one train, an
// exchange of a journey to trains 710 and 711 whose second train the
// legacy system books 1.00 above its AvailabilityReply states the sum the
// legacy system booked, and the difference from it.
func TestJourneyExchangeOperationStatesTheLegacyPrice(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id := e.fulfilledJourney("708", "709")
	sel := e.journeyExchangeOffer(e.f, id)
	quoted := e.journeyOf(id).ExchangeQuotes[0]
	if quoted.ExchangePrice.Amount != 3600 || quoted.Fee.Amount != 0 || quoted.ToPay == nil || quoted.ToPay.Amount != 0 {
		t.Fatalf("exchange quoted %+v", quoted)
	}
	e.bookedAt("711", "19.00") // 18.00 quoted
	op := e.bookJourneyExchange(e.f, id, sel)
	xo := op.ExchangeOffers[0]
	if xo.ExchangePrice.Amount != 3700 || xo.AmountToBePaid == nil || xo.AmountToBePaid.Amount != 100 || xo.RefundableAmount != nil {
		t.Errorf("the operation states price %+v, to pay %+v, refundable %+v; the legacy system booked 37.00: want 37.00, 1.00 to pay",
			xo.ExchangePrice, xo.AmountToBePaid, xo.RefundableAmount)
	}
}

// TestJourneyBookedInTwoCurrenciesIsNotSold: the legacy system books the
// second train of a journey in CHF, the first in EUR. One booking cannot
// add them up: the journey is refused (502 naming the train and both
// currencies) and both trains are given back without a fee, so no amount
// is confirmed that the legacy system does not hold.
func TestJourneyBookedInTwoCurrenciesIsNotSold(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	jo := e.journeyOffer("708", "709")
	e.bookedIn("709", "CHF")
	a := e.call(e.f, "POST", "/bookings", journeyBody(jo))
	if a.Status != 502 || !strings.Contains(string(a.Body), "CHF") || !strings.Contains(string(a.Body), "train 709") {
		t.Errorf("journey booked in EUR and CHF: %d %s", a.Status, a.Body)
	}
	if e.held() != 0 {
		t.Errorf("the legacy system holds %d bookings, want none", e.held())
	}
	for _, b := range e.sb.Bookings() {
		if b.ReasonCode == nil || b.Fee != "0.00" {
			t.Errorf("train given back with reason %v, fee %s; want the technical reason, no fee", b.ReasonCode, b.Fee)
		}
	}
}

// TestJourneyExchangeBookedInTwoCurrenciesIsRefused: the exchange of a
// journey to trains 710 and 711 whose second train the legacy system
// books in CHF is refused (502 naming it) and its new trains are given
// back; the journey stands, its two EUR trains held.
func TestJourneyExchangeBookedInTwoCurrenciesIsRefused(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id := e.fulfilledJourney("708", "709")
	sel := e.journeyExchangeOffer(e.f, id)
	e.bookedIn("711", "CHF")
	a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations", sel, withKey(newTestUUID()))
	if a.Status != 502 || !strings.Contains(string(a.Body), "CHF") || !strings.Contains(string(a.Body), "train 711") {
		t.Errorf("exchange booked in EUR and CHF: %d %s", a.Status, a.Body)
	}
	if e.held() != 2 {
		t.Errorf("the legacy system holds %d bookings, want the journey's 2", e.held())
	}
	if x := e.journeyOf(id).Exchange; x == nil || x.open() {
		t.Errorf("the exchange after the refusal: %+v", x)
	}
}

// TestExchangeBookedInAnotherCurrencyIsRefused: the legacy system books
// the new places of an exchange of an EUR booking in CHF. What the
// consumer pays or gets back cannot be priced: the operation is refused
// (502 naming both currencies), the new places are given back without a
// fee, and the booking stands.
func TestExchangeBookedInAnotherCurrencyIsRefused(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	all := e.freeSeats("708")
	id, fid := e.fulfilled(e.offer("9203", adult))
	e.bookedIn("708", "CHF")
	rec := e.records()[id]
	xo := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.callValid("POST", "/bookings/"+id+"/exchange-offers?embed=ALL", exchangeSearch(rec, fid, "708", nil)), 200).ExchangeOffers[0]
	a := e.callValid("POST", "/bookings/"+id+"/exchange-operations",
		map[string]any{"exchangeOffers": []any{map[string]any{"offerId": xo.OfferID, "passengerRefs": xo.PassengerRefs}}}, withKey(newTestUUID()))
	if a.Status != 502 || !strings.Contains(string(a.Body), "CHF") || !strings.Contains(string(a.Body), "EUR") {
		t.Errorf("exchange booked in CHF: %d %s", a.Status, a.Body)
	}
	if e.freeSeats("708") != all {
		t.Errorf("the new places are held: %d of %d free", e.freeSeats("708"), all)
	}
	for _, b := range e.sb.Bookings() {
		if b.Status == legacy.StatusCancelled && (b.ReasonCode == nil || b.Fee != "0.00") {
			t.Errorf("new places given back with reason %v, fee %s", b.ReasonCode, b.Fee)
		}
	}
	if r := e.records()[id]; r.State != stateFulfilled || r.Offer.Train != "9203" {
		t.Errorf("the booking after the refused exchange: %s, train %s", r.State, r.Offer.Train)
	}
	e.assertAgree(true)
}
