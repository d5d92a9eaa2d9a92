package osdmlegacy

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// freeSeats is the number of 2nd class seats the legacy system has left
// on train tomorrow.
func (e *bookEnv) freeSeats(train string) int {
	return e.sb.Available(train, tomorrow(), legacy.SecondClass, legacy.ServiceSeat)
}

// fulfilled books offer, fulfils it and returns the booking and fulfilment ids.
func (e *bookEnv) fulfilled(o *offerRecord) (string, string) {
	e.t.Helper()
	b := e.book(o)
	fu := decodeOK[osdm.FulfillmentCollectionResponse](e.t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0]
	return b.ID, fu.ID
}

// refundOf asks for a refund offer of the passengers pids (all when none).
func refundOf(fid string, pids ...string) map[string]any {
	body := map[string]any{"fulfillmentIds": []string{fid}}
	if len(pids) > 0 {
		body["refundSpecifications"] = []any{map[string]any{"fulfillmentId": fid, "passengerIds": pids}}
	}
	return body
}

// TestPartialRefund: a refund offer naming the child covers its place;
// confirmed, a partial CancelRequest lists that place only, the legacy
// system frees one seat and the booking stays FULFILLED for the others. The
// child cannot be refunded again (asked or confirmed); the rest is refunded
// by a whole CancelRequest, and every seat is free once.
func TestPartialRefund(t *testing.T) {
	for _, kind := range []storeKind{memKind, boltKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			all := e.freeSeats("9203")
			o := e.offer("9203", adult, child, offerPax{"p-adult2", osdm.PassengerAdult, 45, 1})
			id, fid := e.fulfilled(o)
			path := "/bookings/" + id
			rec := e.records()[id]
			if e.freeSeats("9203") != all-3 {
				t.Fatalf("booked 3: %d of %d left", e.freeSeats("9203"), all)
			}
			// The child is p2; its place is the third (tariff 1 twice, then 2).
			ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p2")), 200).RefundOffers[0]
			if ro.Status != osdm.RefundProposed || ro.RefundableAmount.Amount+ro.RefundFee.Amount >= o.OSDMPrice.Amount/3 {
				t.Errorf("partial refund offer %+v, want the child's own price, less than a third of %d", ro, o.OSDMPrice.Amount)
			}
			// A second offer for the child and one for everybody, made now.
			ro2 := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p2")), 200).RefundOffers[0]
			n := len(e.legacy.delivered())
			cr := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
			sent := e.legacy.delivered()
			c, ok := sent[len(sent)-1].(*legacy.CancelRequest)
			if !ok || len(sent) != n+1 || len(c.Places) != 1 || c.Places[0] != rec.Legacy.Places[2] {
				t.Fatalf("confirmation sent %d messages, the last %#v; want a CancelRequest of place %v", len(sent)-n, sent[len(sent)-1], rec.Legacy.Places[2])
			}
			if cr.RefundOffer.RefundableAmount.Amount != ro.RefundableAmount.Amount || cr.RefundOffer.RefundFee.Amount != ro.RefundFee.Amount {
				t.Errorf("quoted %+v, %+v; confirmed %+v, %+v", ro.RefundableAmount, ro.RefundFee, cr.RefundOffer.RefundableAmount, cr.RefundOffer.RefundFee)
			}
			if cr.RefundOffer.Status != osdm.RefundConfirmed || e.freeSeats("9203") != all-2 {
				t.Errorf("confirmed %+v, %d seats left, want %d", cr.RefundOffer, e.freeSeats("9203"), all-2)
			}
			gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", path, nil), 200).Booking
			res := gb.BookedOffers[0].Reservations[0]
			if res.Status != osdm.BookingPartFulfilled || res.RefundAmount == nil || res.RefundAmount.Amount != cr.RefundOffer.RefundableAmount.Amount ||
				gb.ConfirmedPrice.Amount != o.OSDMPrice.Amount-cr.RefundOffer.RefundableAmount.Amount {
				t.Errorf("booking after the partial refund: %+v, confirmed price %+v", res, gb.ConfirmedPrice)
			}
			e.assertAgree(true)

			// The child again: refused, asked or confirmed; nothing sent.
			n = len(e.legacy.delivered())
			if a := e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p2")); a.Status != 409 {
				t.Errorf("the child refunded twice: %d %s", a.Status, a.Body)
			}
			if a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro2.ID, `{"status":"CONFIRMED"}`); a.Status != 409 || decodeProblem(t, a).Code != osdm.CodeBookingRefunded {
				t.Errorf("a second offer for the child confirmed: %d %s", a.Status, a.Body)
			}
			if len(e.legacy.delivered()) != n || e.freeSeats("9203") != all-2 {
				t.Errorf("refusals sent %d messages, %d seats left", len(e.legacy.delivered())-n, e.freeSeats("9203"))
			}

			// The rest: a whole CancelRequest of what is left.
			rest := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid)), 200).RefundOffers[0]
			if rest.RefundableAmount.Amount+rest.RefundFee.Amount != o.OSDMPrice.Amount-cr.RefundOffer.RefundableAmount.Amount-cr.RefundOffer.RefundFee.Amount {
				t.Errorf("refund of the rest %+v", rest)
			}
			decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+rest.ID, `{"status":"CONFIRMED"}`), 200)
			sent = e.legacy.delivered()
			if c := sent[len(sent)-1].(*legacy.CancelRequest); len(c.Places) != 0 {
				t.Errorf("the rest cancelled with places %v", c.Places)
			}
			r := e.records()[id]
			if r.State != stateRefunded || e.freeSeats("9203") != all {
				t.Errorf("after the whole rest: %s, %d of %d left", r.State, e.freeSeats("9203"), all)
			}
			for _, p := range r.Passengers {
				if want := map[string]string{"p2": ro.ID}[p.ID]; want != "" && p.RefundedBy != want || want == "" && p.RefundedBy != rest.ID {
					t.Errorf("passenger %s refunded by %q", p.ID, p.RefundedBy)
				}
			}
			if a := e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p1")); a.Status != 409 {
				t.Errorf("refund after everything: %d", a.Status)
			}
			e.assertAgree(true)
		})
	}
}

// TestPartialRefundFaults: whatever happens to the partial CancelRequest
// (lost, down, refused), settlement (on bolt by the instance itself after a
// restart, on Redis by another instance) ends with the place freed once and the
// refund offer confirmed, or nothing freed and the offer still open; a
// retry after settlement sends nothing.
func TestPartialRefundFaults(t *testing.T) {
	for _, kind := range []storeKind{boltKind, redisKind} {
		for _, lf := range lostFaults {
			t.Run(string(kind)+"/"+lf.what, func(t *testing.T) {
				e := newBookEnv(t, kind, nil)
				other := e.otherInstance()
				all := e.freeSeats("9203")
				id, fid := e.fulfilled(e.offer("9203", adult, child))
				path := "/bookings/" + id
				ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p1")), 200).RefundOffers[0]
				e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: lf.what})
				if a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`); a.Status != lf.status {
					t.Errorf("PATCH: %d %s", a.Status, a.Body)
				}
				e.assertAgree(false)
				e.settle(other)
				e.assertAgree(true)
				r := e.records()[id]
				if r.State != stateFulfilled || r.passenger("p1").RefundedBy != ro.ID || r.passenger("p2").RefundedBy != "" || e.freeSeats("9203") != all-1 {
					t.Errorf("after settlement: %s %+v, %d of %d left", r.State, r.Passengers, e.freeSeats("9203"), all)
				}
				n := len(e.legacy.delivered())
				if a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`); a.Status != 200 || len(e.legacy.delivered()) != n {
					t.Errorf("retry: %d, %d messages", a.Status, len(e.legacy.delivered())-n)
				}
				if e.freeSeats("9203") != all-1 {
					t.Errorf("the place freed twice: %d of %d left", e.freeSeats("9203"), all)
				}
			})
		}
	}
	t.Run("refused", func(t *testing.T) {
		e := newBookEnv(t, memKind, nil)
		all := e.freeSeats("9203")
		id, fid := e.fulfilled(e.offer("9203", adult, child))
		path := "/bookings/" + id
		ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p1")), 200).RefundOffers[0]
		e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: "negative", code: legacy.CodeInvalidMessage})
		if a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`); a.Status < 400 {
			t.Errorf("PATCH refused by the legacy system: %d", a.Status)
		}
		r := e.records()[id]
		if r.State != stateFulfilled || r.passenger("p1").RefundedBy != "" || e.freeSeats("9203") != all-2 || r.refundOffer(ro.ID).Status != osdm.RefundProposed {
			t.Errorf("after a refusal: %s %+v, %d of %d left", r.State, r.Passengers, e.freeSeats("9203"), all)
		}
		decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
		if e.freeSeats("9203") != all-1 {
			t.Errorf("confirmed after the refusal: %d of %d left", e.freeSeats("9203"), all)
		}
		e.assertAgree(true)
	})
}

// TestPartialRefundLeavesThePlacesHeld: after a partial refund the
// booking's reservedPlaces are the places the legacy system still holds,
// each with its passenger (interleaved tariffs: adult, child, adult), so a
// consumer that reads them as the places held (to cancel the rest, to
// name the places left) agrees with the legacy system; once every
// passenger is refunded, the REFUNDED reservation shows the places it had.
func TestPartialRefundLeavesThePlacesHeld(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child, adult2)
	b, _ := e.namedBooking(o, "Ada", "Bob", "Cy")
	fid := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0].ID
	path := "/bookings/" + b.ID
	ref := e.records()[b.ID].Legacy.BookingRef
	// shown lists the reservation's places as the booking shows them:
	// place number -> passenger id.
	shown := func() (map[string]string, osdm.BookingPartStatus) {
		t.Helper()
		res := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", path, nil), 200).Booking.BookedOffers[0].Reservations[0]
		out := map[string]string{}
		for _, rp := range res.PlaceAllocation.ReservedPlaces {
			if len(rp.PassengerIDs) != len(rp.PlaceNumbers) {
				t.Fatalf("reservedPlace %+v does not pair its passengers with its places", rp)
			}
			for k, n := range rp.PlaceNumbers {
				out[n] = rp.PassengerIDs[k]
			}
		}
		return out, res.Status
	}
	// held lists the places the legacy system holds: place number -> last name.
	held := func() map[string]string { return e.byPlace(ref, false, lastName) }
	names := map[string]string{"p1": "Ada", "p2": "Bob", "p3": "Cy"}
	agree := func(step string) {
		t.Helper()
		view, status := shown()
		far := held()
		if status != osdm.BookingPartFulfilled || len(view) != len(far) {
			t.Errorf("%s: the booking shows %v (%s), the legacy system holds %v", step, view, status, far)
		}
		for n, pid := range view {
			if got, ok := far[n]; !ok || got != names[pid] {
				t.Errorf("%s: the booking shows place %s as %s's, the legacy system holds %v", step, n, pid, far)
			}
		}
	}
	agree("booked")
	for _, pid := range []string{"p2", "p1"} {
		ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, pid)), 200).RefundOffers[0]
		decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
		agree("refunded " + pid)
	}
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid)), 200).RefundOffers[0]
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
	if view, status := shown(); status != osdm.BookingPartRefunded || len(view) != 3 || len(held()) != 0 {
		t.Errorf("refunded whole: the booking shows %v (%s), the legacy system holds %v", view, status, held())
	}
	e.assertAgree(true)
}

// TestRefundOfTheRestIsQuotedAsRefunded: the legacy system prices each
// place (here an adult's seat twice a child's) and a partial refund's
// quote is an equal share; once the child is refunded, what the other
// places stand for is known (the price less what the child's
// CancelReply refunded and kept), so the quotes of the rest, of one adult
// and of both, are what the legacy system then refunds and keeps: the
// refund offer confirmed is the offer quoted, and the booking's
// confirmedPrice is the legacy system's fees.
func TestRefundOfTheRestIsQuotedAsRefunded(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child, adult2)
	id, fid := e.fulfilled(o)
	path := "/bookings/" + id
	ref := e.records()[id].Legacy.BookingRef
	confirm := func(pids ...string) (quoted, confirmed osdm.RefundOffer) {
		t.Helper()
		quoted = decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, pids...)), 200).RefundOffers[0]
		confirmed = *decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+quoted.ID, `{"status":"CONFIRMED"}`), 200).RefundOffer
		return quoted, confirmed
	}
	confirm("p2") // the child: quoted a third of the price, refunded its seat's
	for _, pids := range [][]string{{"p3"}, nil} {
		q, c := confirm(pids...)
		if q.RefundableAmount.Amount != c.RefundableAmount.Amount || q.RefundFee.Amount != c.RefundFee.Amount {
			t.Errorf("refund of %v quoted %d + fee %d, the legacy system refunded %d + fee %d", pids,
				q.RefundableAmount.Amount, q.RefundFee.Amount, c.RefundableAmount.Amount, c.RefundFee.Amount)
		}
	}
	b := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", path, nil), 200).Booking
	status, _, refund, fee := e.sandboxBooking(ref)
	if status != legacy.StatusCancelled || b.ConfirmedPrice == nil || fee != "3.00" || refund != "27.00" || b.ConfirmedPrice.Amount != 300 {
		t.Errorf("refunded whole: the booking keeps %+v, the legacy system %s refunded %s and kept %s", b.ConfirmedPrice, status, refund, fee)
	}
	e.assertAgree(true)
}
