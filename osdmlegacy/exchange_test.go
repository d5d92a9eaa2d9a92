package osdmlegacy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// exchangeSearch is the exchange-offers body of booking rec to train,
// tomorrow, second class, for its passengers.
func exchangeSearch(rec *bookingRecord, fid, train string, extra map[string]any) map[string]any {
	var pax []map[string]any
	for _, p := range rec.Passengers {
		pax = append(pax, map[string]any{"externalRef": p.ExternalRef, "type": p.Type, "age": *p.Age})
	}
	body := map[string]any{
		"fulfillmentIds": []string{fid},
		"tripSearchCriteria": map[string]any{
			"origin":        map[string]any{"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
			"destination":   map[string]any{"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
			"departureTime": tomorrow() + "T00:00:00+01:00",
			"parameters":    map[string]any{"dataFilter": map[string]any{"vehicleFilter": map[string]any{"exclude": false, "vehicleNumbers": []string{train}}}},
		},
		"offerSearchCriteria":              map[string]any{"travelClasses": []string{"SECOND"}},
		"anonymousPassengerSpecifications": pax,
	}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

// callValid is e.call with the request validated against the spec too.
func (e *bookEnv) callValid(method, path string, body any, opts ...callOpt) *Answer {
	e.t.Helper()
	b, _ := json.Marshal(body)
	if body == nil {
		b = nil
	}
	h := http.Header{"Content-Type": {"application/json"}}
	for _, o := range opts {
		o(h)
	}
	osdmspec.ValidateRequest(e.t, osdmspec.V39, method, path, h, b)
	return e.call(e.f, method, path, b, opts...)
}

// exchangeTo asks booking id for exchange offers to train and books the
// one found: the exchange operation, PREBOOKED.
func (e *bookEnv) exchangeTo(id, fid, train string) (osdm.ExchangeOffer, osdm.ExchangeOperation) {
	e.t.Helper()
	rec := e.records()[id]
	xo := decodeOK[osdm.ExchangeOfferCollectionResponse](e.t, e.callValid("POST", "/bookings/"+id+"/exchange-offers?embed=ALL", exchangeSearch(rec, fid, train, nil)), 200)
	if len(xo.ExchangeOffers) != 1 || len(xo.Trips) != 1 || len(xo.Passengers) != len(rec.Passengers) {
		e.t.Fatalf("exchange offers %+v", xo)
	}
	offer := xo.ExchangeOffers[0]
	op := decodeOK[osdm.ExchangeOperationResponse](e.t, e.callValid("POST", "/bookings/"+id+"/exchange-operations",
		map[string]any{"exchangeOffers": []any{map[string]any{"offerId": offer.OfferID, "passengerRefs": offer.PassengerRefs}}},
		withKey(newTestUUID())), 200)
	return offer, *op.ExchangeOperation
}

func newTestUUID() string {
	return "6f1c2a3b-4d5e-4f60-8a71-" + time.Now().Format("150405.000000")[7:] + "123456"
}

// TestExchange: exchange offers are quoted with exchange_fee (nothing
// held); the exchange operation holds the new places and the old ones
// stay; the fulfilment confirms it, cancelling the old places only then,
// and the booking is the new journey. A second exchange deleted frees its
// places, a third one whose hold runs out is released; the booking keeps
// its journey throughout. Seats at the legacy system checked each step.
func TestExchange(t *testing.T) {
	for _, kind := range []storeKind{memKind, boltKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, func(c *Config) { c.ExchangeFee = Fee{BasisPoints: 1000} })
			all := e.freeSeats("9203")
			o := e.offer("9203", adult, child)
			id, fid := e.fulfilled(o)
			seats := func(want9203, want708 int) {
				t.Helper()
				if a, b := e.freeSeats("9203"), e.freeSeats("708"); a != all-want9203 || b != all-want708 {
					t.Errorf("seats taken: 9203 %d, 708 %d; want %d, %d", all-a, all-b, want9203, want708)
				}
				e.assertAgree(true)
			}
			seats(2, 0)
			oldRef := e.records()[id].Legacy.BookingRef

			n := len(e.legacy.delivered())
			offer, op := e.exchangeTo(id, fid, "708")
			wantFee := (o.OSDMPrice.Amount*1000 + 5000) / 10000
			if offer.ExchangeFee.Amount != wantFee || offer.AmountToBePaid == nil || offer.RefundableAmount != nil ||
				offer.AmountToBePaid.Amount != offer.ExchangePrice.Amount+wantFee-o.OSDMPrice.Amount || len(offer.Fulfillments) != 1 {
				t.Errorf("exchange offer %+v, want fee %d", offer, wantFee)
			}
			if op.Status != "PREBOOKED" || op.TicketTimeLimit == nil {
				t.Errorf("exchange operation %+v", op)
			}
			sent := e.legacy.delivered()[n:]
			if countKind(sent, legacy.KindBookingRequest) != 1 || countKind(sent, legacy.KindCancelRequest) != 0 {
				t.Errorf("exchange offers and operation sent %v", sent)
			}
			seats(2, 2) // the new places held, the old ones kept

			// GET and PATCH answer the operation; refunds wait for it.
			path := "/bookings/" + id + "/exchange-operations/" + op.ID
			if g := decodeOK[osdm.ExchangeOperationResponse](t, e.callValid("GET", path, nil), 200); g.ExchangeOperation.Status != "PREBOOKED" {
				t.Errorf("GET %+v", g.ExchangeOperation)
			}
			decodeOK[osdm.ExchangeOperationResponse](t, e.callValid("PATCH", path, map[string]any{"requestedFulfillmentType": "ETICKET"}), 200)
			if a := e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid)); a.Status != 409 {
				t.Errorf("refund during the exchange: %d", a.Status)
			}

			// Confirm: the old places cancelled, the booking is train 708.
			n = len(e.legacy.delivered())
			fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil), 200)
			sent = e.legacy.delivered()[n:]
			if len(sent) != 1 || sent[0].(*legacy.CancelRequest).BookingRef != oldRef {
				t.Errorf("confirmation sent %v, want the CancelRequest of %s", sent, oldRef)
			}
			seats(0, 2)
			rec := e.records()[id]
			if rec.Offer.Train != "708" || rec.Exchange.State != exchangeConfirmed || fr.Fulfillments[0].ControlNumber != rec.Legacy.TicketControlNumber {
				t.Errorf("after the exchange: train %s, exchange %s, fulfilment %+v", rec.Offer.Train, rec.Exchange.State, fr.Fulfillments[0])
			}
			gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+id, nil), 200).Booking
			if gb.BookingCode != rec.Legacy.ReservationReference || gb.Trips[0].Legs[0].TimedLeg.Service.VehicleNumbers[0] != "708" {
				t.Errorf("booking after the exchange %+v", gb)
			}
			// The old travel document is void, the new journey has its own.
			if len(gb.Fulfillments) != 2 || gb.Fulfillments[0].ID != fid || gb.Fulfillments[0].Status != osdm.FulfillmentExchanged ||
				gb.Fulfillments[1].ID != fr.Fulfillments[0].ID || gb.Fulfillments[1].ID == fid || gb.Fulfillments[1].Status != osdm.FulfillmentFulfilled ||
				gb.Fulfillments[1].ControlNumber == gb.Fulfillments[0].ControlNumber {
				t.Errorf("fulfilments after the exchange %+v", gb.Fulfillments)
			}
			if a := e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid)); a.Status != 404 || !strings.Contains(string(a.Body), "exchanged") {
				t.Errorf("a refund of the exchanged fulfilment: %d %s", a.Status, a.Body)
			}
			fid = fr.Fulfillments[0].ID
			if g := decodeOK[osdm.ExchangeOperationResponse](t, e.callValid("GET", path, nil), 200); g.ExchangeOperation.Status != "FULFILLED" {
				t.Errorf("GET after confirmation %+v", g.ExchangeOperation)
			}
			if a := e.call(e.f, "DELETE", path, nil); a.Status != 409 {
				t.Errorf("DELETE of a confirmed exchange: %d", a.Status)
			}

			// A second exchange, deleted: its places freed, 708 stays.
			_, op2 := e.exchangeTo(id, fid, "9203")
			seats(2, 2)
			if a := e.call(e.f, "DELETE", "/bookings/"+id+"/exchange-operations/"+op2.ID, nil); a.Status != 204 {
				t.Fatalf("DELETE: %d %s", a.Status, a.Body)
			}
			seats(0, 2)
			if a := e.call(e.f, "DELETE", "/bookings/"+id+"/exchange-operations/"+op2.ID, nil); a.Status != 204 {
				t.Errorf("DELETE again: %d", a.Status)
			}
			if rec := e.records()[id]; rec.Offer.Train != "708" || rec.State != stateFulfilled {
				t.Errorf("after the deleted exchange: %s %s", rec.Offer.Train, rec.State)
			}

			// A third, left to its hold: released by the sweeper.
			_, op3 := e.exchangeTo(id, fid, "9203")
			seats(2, 2)
			if a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations", map[string]any{"exchangeOffers": []any{map[string]any{"offerId": "x", "passengerRefs": []string{"p"}}}}); a.Status != 404 {
				t.Errorf("a second operation while one holds places: %d", a.Status)
			}
			e.clock.Advance(defaultHold + time.Second)
			if rep := e.settle(e.f); rep.Released != 1 {
				t.Errorf("settlement %+v, want the exchange released", rep)
			}
			seats(0, 2)
			g := e.call(e.f, "GET", "/bookings/"+id+"/exchange-operations/"+op3.ID, nil)
			if g.Status != 404 {
				t.Errorf("GET of a released exchange: %d %s", g.Status, g.Body)
			}
			if a := e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil); a.Status != 200 {
				t.Errorf("fulfilment after the release: %d %s", a.Status, a.Body)
			}
			seats(0, 2)
		})
	}
}

// TestExchangeRefusals: what cannot be exchanged, and nothing is sent.
func TestExchangeRefusals(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child)
	b := e.book(o)
	rec := e.records()[b.ID]
	if a := e.call(e.f, "POST", "/bookings/"+b.ID+"/exchange-offers", exchangeSearch(rec, "fu-x", "708", nil)); a.Status != 409 {
		t.Errorf("exchange before fulfilment: %d %s", a.Status, a.Body)
	}
	id, fid := e.fulfilled(e.offer("9203", adult, child))
	rec = e.records()[id]
	n := len(e.legacy.delivered())
	for name, c := range map[string]struct {
		body   map[string]any
		status int
	}{
		"fee asked":        {exchangeSearch(rec, fid, "708", map[string]any{"exchangeFee": map[string]any{"amount": 1, "currency": "EUR", "scale": 0}}), 422},
		"other fulfilment": {exchangeSearch(rec, "fu-other", "708", nil), 404},
		"one passenger":    {exchangeSearch(rec, fid, "708", map[string]any{"anonymousPassengerSpecifications": []any{map[string]any{"externalRef": adult.ref, "type": "ADULT", "age": 30}}}), 422},
		"stranger":         {exchangeSearch(rec, fid, "708", map[string]any{"anonymousPassengerSpecifications": []any{map[string]any{"externalRef": adult.ref, "type": "ADULT", "age": 30}, map[string]any{"externalRef": "someone", "type": "CHILD", "age": 8}}}), 422},
		"unknown overrule": {exchangeSearch(rec, fid, "708", map[string]any{"overruleCode": "NO_SUCH_CODE"}), 422},
		"return trip":      {exchangeSearch(rec, fid, "708", map[string]any{"inboundTripSpecifications": []any{map[string]any{}}}), 422},
		"no fulfilmentIds": {map[string]any{"anonymousPassengerSpecifications": []any{}}, 400},
	} {
		if a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", c.body); a.Status != c.status {
			t.Errorf("%s: %d %s, want %d", name, a.Status, a.Body, c.status)
		}
	}
	if a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers?embed=SOME", exchangeSearch(rec, fid, "708", nil)); a.Status != 400 {
		t.Errorf("bad embed: %d", a.Status)
	}
	if len(e.legacy.delivered()) != n {
		t.Errorf("refused exchanges sent %d messages", len(e.legacy.delivered())-n)
	}
	// With an overrule code: no fee. Embed EXCHANGEOFFERS: no trips.
	xo := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers?embed=EXCHANGEOFFERS", exchangeSearch(rec, fid, "708", map[string]any{"overruleCode": "DISRUPTION"})), 200)
	if len(xo.ExchangeOffers) != 1 || xo.ExchangeOffers[0].ExchangeFee.Amount != 0 || len(xo.Trips) != 0 || len(xo.Passengers) != 0 {
		t.Errorf("exchange offers with an overrule code %+v", xo)
	}
	// An exchange offer is not booked as a new booking.
	a := e.call(e.f, "POST", "/bookings", map[string]any{
		"offers":                  []any{map[string]any{"offerId": xo.ExchangeOffers[0].OfferID, "passengerRefs": xo.ExchangeOffers[0].PassengerRefs}},
		"passengerSpecifications": []any{map[string]any{"externalRef": adult.ref, "type": "ADULT", "age": 30}, map[string]any{"externalRef": child.ref, "type": "CHILD", "age": 8}},
	})
	if p := decodeProblem(t, a); a.Status != 404 || !strings.Contains(p.Detail, "exchange-operations") {
		t.Errorf("an exchange offer booked as a booking: %d %+v", a.Status, p)
	}
	// A partly refunded booking is not exchanged.
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", "/bookings/"+id+"/refund-offers/"+
		decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid, "p2")), 200).RefundOffers[0].ID,
		`{"status":"CONFIRMED"}`), 200)
	if a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(rec, fid, "708", nil)); a.Status != 422 {
		t.Errorf("exchange of a partly refunded booking: %d %s", a.Status, a.Body)
	}
}

// TestExchangeFaults: a fault at each step of an exchange settles to one
// journey: the new places' BookingRequest lost (settled: held once, the
// old kept), the confirmation's CancelRequest lost (settled: the old
// freed, the booking the new journey) or refused (the old stands; the new
// places released when the hold runs out), the deletion's CancelRequest
// lost (settled: the new places freed once).
func TestExchangeFaults(t *testing.T) {
	type step struct{ book, confirm, drop string }
	for _, kind := range []storeKind{boltKind, redisKind} {
		for _, lf := range lostFaults {
			for name, s := range map[string]step{"book": {book: lf.what}, "confirm": {confirm: lf.what}, "delete": {drop: lf.what}} {
				t.Run(string(kind)+"/"+name+"/"+lf.what, func(t *testing.T) {
					e := newBookEnv(t, kind, nil)
					other := e.otherInstance()
					all := e.freeSeats("9203")
					id, fid := e.fulfilled(e.offer("9203", adult, child))
					taken := func(w9203, w708 int) {
						t.Helper()
						if a, b := all-e.freeSeats("9203"), all-e.freeSeats("708"); a != w9203 || b != w708 {
							t.Errorf("seats taken: 9203 %d, 708 %d; want %d, %d", a, b, w9203, w708)
						}
					}
					rec := e.records()[id]
					xo := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(rec, fid, "708", nil)), 200)
					offer := xo.ExchangeOffers[0]
					key := withKey("0d9f3c2e-6a4b-4f7e-9a51-2b8c7d6e5f41")
					opBody := map[string]any{"exchangeOffers": []any{map[string]any{"offerId": offer.OfferID, "passengerRefs": offer.PassengerRefs}}}
					if s.book != "" {
						e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: s.book})
						if a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations", opBody, key); a.Status != lf.status {
							t.Errorf("exchange operation: %d %s", a.Status, a.Body)
						}
						e.assertAgree(false)
						e.settle(other)
						e.assertAgree(true)
						taken(2, 2)
					}
					op := decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations", opBody, key), 200).ExchangeOperation
					if op.Status != "PREBOOKED" || countKind(e.legacy.delivered(), legacy.KindBookingRequest) > 3 {
						t.Errorf("operation %+v", op)
					}
					taken(2, 2)
					switch {
					case s.confirm != "":
						e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: s.confirm})
						if a := e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil); a.Status != lf.status {
							t.Errorf("confirmation: %d %s", a.Status, a.Body)
						}
						e.assertAgree(false)
						e.settle(other)
						e.assertAgree(true)
						taken(0, 2)
						if r := e.records()[id]; r.Offer.Train != "708" || r.Exchange.State != exchangeConfirmed {
							t.Errorf("after settlement: train %s, exchange %s", r.Offer.Train, r.Exchange.State)
						}
						if a := e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil); a.Status != 200 {
							t.Errorf("fulfilment after settlement: %d %s", a.Status, a.Body)
						}
					case s.drop != "":
						e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: s.drop})
						if a := e.call(e.f, "DELETE", "/bookings/"+id+"/exchange-operations/"+op.ID, nil); a.Status != lf.status {
							t.Errorf("DELETE: %d %s", a.Status, a.Body)
						}
						e.assertAgree(false)
						e.settle(other)
						e.assertAgree(true)
						taken(2, 0)
						if a := e.call(e.f, "DELETE", "/bookings/"+id+"/exchange-operations/"+op.ID, nil); a.Status != 204 {
							t.Errorf("DELETE after settlement: %d %s", a.Status, a.Body)
						}
					default:
						decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil), 200)
						taken(0, 2)
					}
					e.assertAgree(true)
				})
			}
		}
	}
	t.Run("confirm refused", func(t *testing.T) {
		e := newBookEnv(t, memKind, nil)
		all := e.freeSeats("9203")
		id, fid := e.fulfilled(e.offer("9203", adult, child))
		e.exchangeTo(id, fid, "708")
		e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: "negative", code: legacy.CodePartnerRejected})
		if a := e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil); a.Status < 400 {
			t.Errorf("refused confirmation: %d", a.Status)
		}
		if r := e.records()[id]; r.Offer.Train != "9203" || r.Exchange.State != exchangePrebooked || e.freeSeats("9203") != all-2 || e.freeSeats("708") != all-2 {
			t.Errorf("after the refusal: %s %s", r.Offer.Train, r.Exchange.State)
		}
		e.assertAgree(true)
		e.clock.Advance(defaultHold + time.Second)
		e.settle(e.f)
		if r := e.records()[id]; r.Offer.Train != "9203" || r.Exchange.State != exchangeDropped || e.freeSeats("708") != all || e.freeSeats("9203") != all-2 {
			t.Errorf("after the hold: %s %s", r.Offer.Train, r.Exchange.State)
		}
		e.assertAgree(true)
	})
	t.Run("book refused", func(t *testing.T) {
		e := newBookEnv(t, memKind, nil)
		id, fid := e.fulfilled(e.offer("9203", adult, child))
		rec := e.records()[id]
		xo := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(rec, fid, "708", nil)), 200)
		e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: "negative", code: legacy.CodeNoAvailability})
		a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations", map[string]any{"exchangeOffers": []any{map[string]any{"offerId": xo.ExchangeOffers[0].OfferID, "passengerRefs": xo.ExchangeOffers[0].PassengerRefs}}})
		if a.Status != 409 {
			t.Errorf("refused exchange: %d %s", a.Status, a.Body)
		}
		if r := e.records()[id]; r.State != stateFulfilled || r.Exchange.State != exchangeFailed {
			t.Errorf("after the refusal: %s %+v", r.State, r.Exchange)
		}
		e.assertAgree(true)
		e.exchangeTo(id, fid, "708") // another try
		e.assertAgree(true)
	})
}

// TestExchangeOverruledKeepsNoFee: an exchange quoted with an overrule
// code of the reason table (no exchange fee) cancels the old places with
// that reason code, so the legacy system keeps no cancellation fee of the
// old booking either: it refunds what was paid for it, as the quote says.
func TestExchangeOverruledKeepsNoFee(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, fid := e.fulfilled(e.offer("9203", adult, child))
	rec := e.records()[id]
	old := rec.Legacy.BookingRef
	xo := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers",
		exchangeSearch(rec, fid, "708", map[string]any{"overruleCode": "DISRUPTION"})), 200)
	if len(xo.ExchangeOffers) != 1 || xo.ExchangeOffers[0].ExchangeFee.Amount != 0 {
		t.Fatalf("exchange offers with an overrule code %+v", xo)
	}
	offer := xo.ExchangeOffers[0]
	decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations",
		map[string]any{"exchangeOffers": []any{map[string]any{"offerId": offer.OfferID, "passengerRefs": offer.PassengerRefs}}}), 200)
	n := len(e.legacy.delivered())
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil), 200)
	sent := e.legacy.delivered()[n:]
	if c, ok := sent[0].(*legacy.CancelRequest); !ok || c.BookingRef != old || c.ReasonCode == nil || *c.ReasonCode != e.f.cfg.Reasons["DISRUPTION"] {
		t.Errorf("the exchange's confirmation sent %#v, want a CancelRequest of %s with reason code %d", sent[0], old, e.f.cfg.Reasons["DISRUPTION"])
	}
	for _, b := range e.sb.Bookings() {
		if b.BookingRef == old && (b.Status != legacy.StatusCancelled || b.Refund != b.Price || b.Fee != "0.00") {
			t.Errorf("the old legacy booking: %s, price %s, refund %s, fee %s; want all refunded, no fee", b.Status, b.Price, b.Refund, b.Fee)
		}
	}
	e.assertAgree(true)
}

// TestExchangePastItsHoldIsDeletedNotConfirmed: once an exchange operation
// passed its ticketTimeLimit (not yet released), the calls that wait for
// it (refund offers, passenger changes, exchange offers) are refused with
// what the client can do: delete it, not confirm it (the confirmation is
// refused); deleted, the refund goes ahead.
func TestExchangePastItsHoldIsDeletedNotConfirmed(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, fid := e.fulfilled(e.offer("9203", adult, child))
	_, op := e.exchangeTo(id, fid, "708")
	e.clock.Advance(defaultHold + time.Minute)
	if a := e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil); a.Status != 409 {
		t.Fatalf("confirming the exchange past its ticketTimeLimit: %d %s", a.Status, a.Body)
	}
	rec := e.records()[id]
	del := "DELETE /bookings/" + id + "/exchange-operations/" + op.ID
	for name, a := range map[string]*Answer{
		"refund offer":     e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid)),
		"passenger change": e.call(e.f, "PATCH", "/bookings/"+id+"/passengers/p1", `{"detail":{"firstName":"Grace","lastName":"Hopper"}}`),
		"exchange offers":  e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(rec, fid, "708", nil)),
	} {
		p := decodeProblem(t, a)
		if a.Status != 409 || strings.Contains(p.Detail, "confirm it") || !strings.Contains(p.Detail, del) {
			t.Errorf("%s past the exchange's ticketTimeLimit: %d %q, want a 409 saying %q", name, a.Status, p.Detail, del)
		}
	}
	if a := e.call(e.f, "DELETE", "/bookings/"+id+"/exchange-operations/"+op.ID, nil); a.Status != http.StatusNoContent {
		t.Fatalf("DELETE of the exchange: %d %s", a.Status, a.Body)
	}
	decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid)), 200)
	e.assertAgree(true)
}

// TestExchangePastItsHoldRetriedWithItsKeyOnceReleased: a call refused
// because the booking's exchange passed its ticketTimeLimit but is not
// released yet is told to retry once it is: the refusal is not the
// Idempotency-Key's final answer, so the same call with the same key,
// once the sweeper released the new places, goes ahead instead of
// getting the refusal again for ever.
func TestExchangePastItsHoldRetriedWithItsKeyOnceReleased(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, fid := e.fulfilled(e.offer("9203", adult, child))
	e.exchangeTo(id, fid, "708")
	e.clock.Advance(defaultHold + time.Second)
	key := withKey("5b0f3c2e-8d1a-4e6b-9c7d-2a4f6e8b1c3d")
	a := e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid), key)
	if p := decodeProblem(t, a); a.Status != 409 || !strings.Contains(p.Detail, "retry once it is released") {
		t.Fatalf("refund offer past the exchange's ticketTimeLimit: %d %s", a.Status, a.Body)
	}
	e.settle(e.f)
	if x := e.records()[id].Exchange; x.State != exchangeDropped {
		t.Fatalf("after settlement the exchange is %s, want %s", x.State, exchangeDropped)
	}
	decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid), key), 200)
	e.assertAgree(true)
}

// TestExchangeConfirmedExpiresWhatWasQuotedBefore: exchange offers to two
// trains (first class on 708, second on 710) and a refund offer, all
// quoted on the booking's second class journey; the exchange to 708 is
// confirmed. The offer to 710 quoted paying the difference from the old,
// cheaper journey: it is no longer booked (404, nothing sent) and asked
// again it is quoted from the first class booking (money back); the
// refund offer quoted on the old journey has expired (409, nothing sent).
func TestExchangeConfirmedExpiresWhatWasQuotedBefore(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, fid := e.fulfilled(e.offer("9203", adult, child))
	rec := e.records()[id]
	first := map[string]any{"offerSearchCriteria": map[string]any{"travelClasses": []string{"FIRST"}}}
	x1 := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(rec, fid, "708", first)), 200).ExchangeOffers[0]
	x2 := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(rec, fid, "710", nil)), 200).ExchangeOffers[0]
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid)), 200).RefundOffers[0]
	if x2.AmountToBePaid == nil {
		t.Fatalf("the second class exchange offer quoted from the second class booking: %+v", x2)
	}
	book := func(x osdm.ExchangeOffer) *Answer {
		return e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations",
			map[string]any{"exchangeOffers": []any{map[string]any{"offerId": x.OfferID, "passengerRefs": x.PassengerRefs}}})
	}
	decodeOK[osdm.ExchangeOperationResponse](t, book(x1), 200)
	fid = decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil), 200).Fulfillments[0].ID
	n, free := len(e.legacy.delivered()), e.freeSeats("710")
	if a := book(x2); a.Status != 404 || decodeProblem(t, a).Code != osdm.CodeOfferNotFound {
		t.Errorf("an exchange offer quoted before the exchange, booked after it: %d %s", a.Status, a.Body)
	}
	if a := e.call(e.f, "PATCH", "/bookings/"+id+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`); a.Status != 409 || decodeProblem(t, a).Code != osdm.CodeRefundOfferExpired {
		t.Errorf("a refund offer quoted before the exchange, confirmed after it: %d %s", a.Status, a.Body)
	}
	if len(e.legacy.delivered()) != n || e.freeSeats("710") != free {
		t.Errorf("the stale offers sent %d messages, took %d seats on 710", len(e.legacy.delivered())-n, free-e.freeSeats("710"))
	}
	again := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(e.records()[id], fid, "710", nil)), 200).ExchangeOffers[0]
	if again.RefundableAmount == nil || again.AmountToBePaid != nil {
		t.Errorf("the exchange to second class quoted from the first class booking: %+v", again)
	}
	decodeOK[osdm.ExchangeOperationResponse](t, book(again), 200)
	e.assertAgree(true)
}

// TestExchangeRefusedOnceTheTrainLeft: a booking whose train has left is
// not exchanged (its places used, or missed): exchange offers, an
// exchange operation of an offer quoted before, and the confirmation of
// an operation booked before are refused (409 OPERATION_NOT_PERMITTED)
// and send nothing; the old booking stands, and the new places held
// before are freed by deleting the operation.
func TestExchangeRefusedOnceTheTrainLeft(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child)
	id, fid := e.fulfilled(o)
	e.clock.Advance(o.Departure.Add(-10 * time.Minute).Sub(e.clock.Now()))
	later := func(train string) map[string]any {
		body := exchangeSearch(e.records()[id], fid, train, nil)
		body["tripSearchCriteria"].(map[string]any)["departureTime"] = bookStart.AddDate(0, 0, 2).Format(time.DateOnly) + "T00:00:00+01:00"
		return body
	}
	quote := func(train string) osdm.ExchangeOffer {
		return decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", later(train)), 200).ExchangeOffers[0]
	}
	book := func(x osdm.ExchangeOffer) *Answer {
		return e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations",
			map[string]any{"exchangeOffers": []any{map[string]any{"offerId": x.OfferID, "passengerRefs": x.PassengerRefs}}})
	}
	// Ten minutes before the departure: an offer quoted (booked after the
	// departure, below), another booked.
	x := quote("710")
	op := decodeOK[osdm.ExchangeOperationResponse](t, book(quote("708")), 200).ExchangeOperation
	e.clock.Advance(11 * time.Minute)
	refused := func(what string, a *Answer) {
		t.Helper()
		if p := decodeProblem(t, a); a.Status != 409 || p.Code != osdm.CodeOperationNotPermitted || !strings.Contains(p.Detail, "left") {
			t.Errorf("%s once the train left: %d %s", what, a.Status, a.Body)
		}
	}
	n := len(e.legacy.delivered())
	refused("confirming the exchange", e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", nil))
	if r := e.records()[id]; len(e.legacy.delivered()) != n || r.Offer.Train != "9203" || r.Exchange.State != exchangePrebooked {
		t.Errorf("the refused confirmation sent %d messages; the booking is on train %s, its exchange %s", len(e.legacy.delivered())-n, r.Offer.Train, r.Exchange.State)
	}
	if a := e.call(e.f, "DELETE", "/bookings/"+id+"/exchange-operations/"+op.ID, nil); a.Status != http.StatusNoContent {
		t.Fatalf("DELETE of the exchange: %d %s", a.Status, a.Body)
	}
	n = len(e.legacy.delivered())
	refused("an exchange operation", book(x))
	refused("exchange offers", e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", later("710")))
	if len(e.legacy.delivered()) != n {
		t.Errorf("the refusals sent %d messages", len(e.legacy.delivered())-n)
	}
	e.assertAgree(true)
}

// TestExchangeKeepsTheTariffsBooked: restriction 5 holds through an
// exchange. A PERSON booked aged 30 (the adult tariff) is not exchanged as
// aged 65, nor with a date of birth that makes it 65 (the senior tariff,
// cheaper: money back for a fare it does not have): 422, pointing at the
// age or the passenger, before any legacy message. Named with its age,
// it is exchanged at the tariffs booked.
func TestExchangeKeepsTheTariffsBooked(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	person := offerPax{"p-person", osdm.PassengerPerson, 30, 1}
	id, fid := e.fulfilled(e.offer("9203", person, child))
	rec := e.records()[id]
	n := len(e.legacy.delivered())
	for name, c := range map[string]struct {
		set     map[string]any
		pointer string
	}{
		"another age":           {map[string]any{"age": 65}, "#/anonymousPassengerSpecifications[0]/age"},
		"a senior's birth date": {map[string]any{"age": nil, "dateOfBirth": "1965-01-01"}, "#/anonymousPassengerSpecifications[0]"},
	} {
		body := exchangeSearch(rec, fid, "708", nil)
		for k, v := range c.set {
			if v == nil {
				delete(body["anonymousPassengerSpecifications"].([]map[string]any)[0], k)
			} else {
				body["anonymousPassengerSpecifications"].([]map[string]any)[0][k] = v
			}
		}
		a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", body)
		p := decodeProblem(t, a)
		if a.Status != 422 || !strings.Contains(p.Type, "passengers") || len(p.Pointers) != 1 || p.Pointers[0].RequestPointer != c.pointer {
			t.Errorf("%s: %d %s", name, a.Status, a.Body)
		}
	}
	if len(e.legacy.delivered()) != n {
		t.Errorf("the refusals sent %d messages", len(e.legacy.delivered())-n)
	}
	_, op := e.exchangeTo(id, fid, "708")
	sent := e.legacy.delivered()
	if br, ok := sent[len(sent)-1].(*legacy.BookingRequest); !ok || len(br.Places.Tariffs) != 2 ||
		br.Places.Tariffs[0] != (legacy.Tariff{Code: 1, Count: 1}) || br.Places.Tariffs[1] != (legacy.Tariff{Code: 2, Count: 1}) {
		t.Errorf("exchange %s sent %#v, want the tariffs booked (1, 2)", op.ID, sent[len(sent)-1])
	}
}
