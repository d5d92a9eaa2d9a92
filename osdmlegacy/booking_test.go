package osdmlegacy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// sandboxBooking returns the legacy system's booking ref.
func (e *bookEnv) sandboxBooking(ref string) (status string, reason *int, refund, fee string) {
	e.t.Helper()
	for _, b := range e.sb.Bookings() {
		if b.BookingRef == ref {
			return b.Status, b.ReasonCode, b.Refund, b.Fee
		}
	}
	e.t.Fatalf("the legacy system has no booking %s", ref)
	return
}

// TestBookingLifecycle runs every row of the mapping table for the booking
// side on each store engine: book, read, change a passenger, fulfil, read
// the fulfilment, refund (quote, read, confirm), with the legacy system's
// state checked after each step.
func TestBookingLifecycle(t *testing.T) {
	for _, kind := range []storeKind{memKind, boltKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			o := e.offer("9203", adult, child)
			b := e.book(o)
			e.assertAgree(true)

			// POST /bookings -> BookingRequest -> PREBOOKED.
			sent := e.legacy.delivered()
			if len(sent) != 1 {
				t.Fatalf("legacy messages %d, want 1 BookingRequest", len(sent))
			}
			br := sent[0].(*legacy.BookingRequest)
			if br.MessageID() != b.ID+".book" || br.Journey.TrainNumber != "9203" || br.Places.TravelClass != 2 ||
				br.Places.ServiceCode != 1 || br.OfferRef != o.LegacyOfferRef || len(br.Places.Tariffs) != 2 ||
				len(br.Passengers) != 2 || br.Passengers[0].LastName != "Lovelace" {
				t.Errorf("BookingRequest %+v", br)
			}
			if got := b.BookedOffers[0].Reservations[0]; got.Status != osdm.BookingPartPrebooked ||
				got.ConfirmableUntil == nil || !got.ConfirmableUntil.Equal(*b.ConfirmationTimeLimit) ||
				got.PlaceAllocation == nil || len(got.PlaceAllocation.ReservedPlaces[0].PlaceNumbers) != 2 {
				t.Errorf("reservation %+v", got)
			}
			if want := bookStart.Add(defaultHold); b.ConfirmationTimeLimit == nil || !b.ConfirmationTimeLimit.Equal(want) {
				t.Errorf("confirmationTimeLimit %v, want %v (hold)", b.ConfirmationTimeLimit, want)
			}
			rec := e.records()[b.ID]
			if b.BookingCode != rec.Legacy.ReservationReference || b.ProvisionalPrice == nil || b.ProvisionalPrice.Amount != o.OSDMPrice.Amount {
				t.Errorf("bookingCode %q provisionalPrice %+v, record %+v", b.BookingCode, b.ProvisionalPrice, rec.Legacy)
			}

			// GET /bookings/{id} from the store: the same booking.
			got := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200)
			if got.Booking.ID != b.ID || got.Booking.BookingCode != b.BookingCode {
				t.Errorf("GET booking %+v", got.Booking)
			}

			// PATCH a passenger before fulfilment: a PassengerDataRequest
			// sets the name and date of birth at the legacy system (the
			// contact is kept with the booking only).
			pid := b.Passengers[1].ID
			pa := decodeOK[osdm.PassengerResponse](t, e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/"+pid, map[string]any{
				"id": pid, "externalRef": child.ref, "type": "CHILD", "dateOfBirth": "2022-01-31",
				"detail": map[string]any{"firstName": "Byron", "lastName": "King", "contact": map[string]any{"email": "b@example.org", "phoneNumber": "+41791234567"}},
			}), 200)
			if d := pa.Passenger.Detail; d == nil || d.LastName != "King" || d.Contact == nil || d.Contact.Email != "b@example.org" || pa.Passenger.DateOfBirth != "2022-01-31" {
				t.Errorf("patched passenger %+v", pa.Passenger)
			}
			gp := decodeOK[osdm.PassengerResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID+"/passengers/"+pid, nil), 200)
			if gp.Passenger.Detail == nil || gp.Passenger.Detail.FirstName != "Byron" {
				t.Errorf("GET passenger %+v", gp.Passenger)
			}
			sent = e.legacy.delivered()
			if pd, ok := sent[len(sent)-1].(*legacy.PassengerDataRequest); !ok || len(sent) != 2 || pd.BookingRef != rec.Legacy.BookingRef ||
				len(pd.Passengers) != 1 || pd.Passengers[0].Index != 2 || pd.Passengers[0].LastName != "King" || pd.Passengers[0].DateOfBirth != "2022-01-31" {
				t.Errorf("PATCH sent %d messages, the last %#v", len(sent), sent[len(sent)-1])
			}
			if names := e.sandboxNames(rec.Legacy.BookingRef); len(names) != 2 || names[1].LastName != "King" || names[1].DateOfBirth != "2022-01-31" || names[0].LastName != "Lovelace" {
				t.Errorf("the legacy system holds the names %+v", names)
			}

			// POST fulfillments: no legacy message, FULFILLED with the control number.
			fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", "{}"), 200)
			fu := fr.Fulfillments[0]
			if fu.Status != osdm.FulfillmentFulfilled || fu.ControlNumber == "" || fu.ControlNumber != e.records()[b.ID].Legacy.TicketControlNumber {
				t.Errorf("fulfilment %+v", fu)
			}
			if n := len(e.legacy.delivered()); n != 2 {
				t.Errorf("fulfilment sent %d legacy messages in all, want none of its own", n)
			}
			gf := decodeOK[osdm.FulfillmentResponse](t, e.call(e.f, "GET", "/fulfillments/"+fu.ID, nil), 200)
			if gf.Fulfillment.ID != fu.ID || gf.Fulfillment.ControlNumber != fu.ControlNumber {
				t.Errorf("GET fulfilment %+v", gf.Fulfillment)
			}
			gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200)
			if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartFulfilled || gb.Booking.ConfirmedPrice == nil || gb.Booking.ConfirmationTimeLimit != nil {
				t.Errorf("fulfilled booking %+v", gb.Booking)
			}

			// After fulfilment: a PATCH that changes nothing the legacy
			// system holds sends nothing; DELETE refused (refund it).
			if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/"+pid, map[string]any{"id": pid, "externalRef": child.ref, "type": "CHILD"}); a.Status != 200 || len(e.legacy.delivered()) != 2 {
				t.Errorf("PATCH passenger after fulfilment: %d %s, %d messages", a.Status, a.Body, len(e.legacy.delivered()))
			}
			if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != 409 || !strings.Contains(string(a.Body), "refund") {
				t.Errorf("DELETE after fulfilment: %d %s", a.Status, a.Body)
			}

			// Refund: quoted (10% fee), read, confirmed with the CancelReply's amounts.
			rq := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/refund-offers",
				map[string]any{"fulfillmentIds": []string{fu.ID}}), 200)
			ro := rq.RefundOffers[0]
			wantFee := (o.OSDMPrice.Amount*1000 + 5000) / 10000
			if ro.Status != osdm.RefundProposed || ro.RefundFee.Amount != wantFee || ro.RefundableAmount.Amount != o.OSDMPrice.Amount-wantFee {
				t.Errorf("refund offer %+v, want fee %d", ro, wantFee)
			}
			if n := len(e.legacy.delivered()); n != 2 {
				t.Errorf("a refund offer sent a legacy message")
			}
			g := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, nil), 200)
			if g.RefundOffer.ID != ro.ID || g.RefundOffer.Status != osdm.RefundProposed {
				t.Errorf("GET refund offer %+v", g.RefundOffer)
			}
			cr := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, map[string]any{"status": "CONFIRMED"}), 200)
			sent = e.legacy.delivered()
			cancel, ok := sent[len(sent)-1].(*legacy.CancelRequest)
			if !ok || cancel.BookingRef != rec.Legacy.BookingRef || cancel.ReasonCode != nil || cancel.MessageID() != b.ID+".cancel.1" {
				t.Fatalf("last legacy message %#v, want the CancelRequest of %s", sent[len(sent)-1], rec.Legacy.BookingRef)
			}
			status, _, refund, fee := e.sandboxBooking(rec.Legacy.BookingRef)
			if status != "CANCELLED" {
				t.Errorf("legacy booking %s after refund", status)
			}
			wantRefund, _ := decimalPrice(refund, "EUR")
			wantLegacyFee, _ := decimalPrice(fee, "EUR")
			if c := cr.RefundOffer; c.Status != osdm.RefundConfirmed || c.ConfirmedOn == nil ||
				c.RefundableAmount.Amount != wantRefund.Amount || c.RefundFee.Amount != wantLegacyFee.Amount {
				t.Errorf("confirmed refund offer %+v, the legacy system refunded %s fee %s", c, refund, fee)
			}
			gb = decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200)
			if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartRefunded || len(gb.Booking.RefundOffers) != 1 || gb.Booking.Fulfillments[0].Status != osdm.FulfillmentRefunded {
				t.Errorf("refunded booking %+v", gb.Booking)
			}
			e.assertAgree(true)
		})
	}
}

// TestRefundWithOverruleCode: no fee quoted, and the CancelRequest carries
// the reason code the reason table maps the overrule code to.
func TestRefundWithOverruleCode(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("708"))
	fu := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0]
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/refund-offers",
		map[string]any{"fulfillmentIds": []string{fu.ID}, "overruleCode": "STRIKE"}), 200).RefundOffers[0]
	if ro.RefundFee.Amount != 0 || ro.AppliedOverruleCode != osdm.OverruleStrike {
		t.Errorf("refund offer with overrule code %+v", ro)
	}
	e.call(e.f, "PATCH", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, map[string]any{"status": "CONFIRMED"})
	rec := e.records()[b.ID]
	_, reason, _, fee := e.sandboxBooking(rec.Legacy.BookingRef)
	if reason == nil || *reason != 5 || fee != "0.00" {
		t.Errorf("legacy reason code %v fee %s, want 5 (STRIKE) and no fee", reason, fee)
	}
	// An overrule code the reason table does not map is refused.
	b2 := e.book(e.offer("709"))
	fu2 := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b2.ID+"/fulfillments", nil), 200).Fulfillments[0]
	a := e.call(e.f, "POST", "/bookings/"+b2.ID+"/refund-offers", map[string]any{"fulfillmentIds": []string{fu2.ID}, "overruleCode": "DEATH"})
	if p := decodeProblem(t, a); a.Status != 422 || p.Code != osdm.CodeOutOfBounds || !strings.Contains(p.Detail, "reason table") {
		t.Errorf("unmapped overrule code: %d %+v", a.Status, p)
	}
}

// TestDeleteBeforeFulfilment: DELETE sends a CancelRequest and answers
// 204; the places are free at the legacy system; a second DELETE answers
// 204 again without a second message.
func TestDeleteBeforeFulfilment(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("9203"))
	if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != 204 {
		t.Fatalf("DELETE: %d %s", a.Status, a.Body)
	}
	rec := e.records()[b.ID]
	if st, _, _, _ := e.sandboxBooking(rec.Legacy.BookingRef); st != "CANCELLED" || rec.State != stateCancelled {
		t.Errorf("after DELETE: legacy %s, record %s", st, rec.State)
	}
	n := len(e.legacy.delivered())
	if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != 204 || len(e.legacy.delivered()) != n {
		t.Errorf("second DELETE: %d, messages %d -> %d", a.Status, n, len(e.legacy.delivered()))
	}
	if a := e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil); a.Status != 409 {
		t.Errorf("fulfilment of a deleted booking: %d %s", a.Status, a.Body)
	}
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200)
	if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartCancelled {
		t.Errorf("deleted booking reads %+v", gb.Booking.BookedOffers[0].Reservations[0])
	}
	e.assertAgree(true)
}

// TestBookingRefusals: requests outside the restrictions or naming no
// live offer are refused with a problem that says so, and nothing is sent
// to the legacy system.
func TestBookingRefusals(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child)
	body := func(mod func(m map[string]any)) map[string]any {
		m := bookingBodyOf(o)
		mod(m)
		return m
	}
	offer0 := func(m map[string]any) map[string]any { return m["offers"].([]any)[0].(map[string]any) }
	spec := func(m map[string]any, i int) map[string]any {
		return m["passengerSpecifications"].([]map[string]any)[i]
	}
	altered := []byte(o.ID)
	altered[5] ^= 1
	cases := []struct {
		name    string
		body    any
		status  int
		code    string
		pointer string
		says    string
	}{
		{"unknown offer", body(func(m map[string]any) { offer0(m)["offerId"] = "of-AAAAAAAAAAAAAAAAAAAAAA" }), 404, osdm.CodeOfferNotFound, "#/offers/0/offerId", "search again"},
		{"forged offer", body(func(m map[string]any) { offer0(m)["offerId"] = "my-own-offer" }), 404, osdm.CodeOfferNotFound, "#/offers/0/offerId", ""},
		{"altered offer", body(func(m map[string]any) { offer0(m)["offerId"] = string(altered) }), 404, osdm.CodeOfferNotFound, "#/offers/0/offerId", ""},
		{"two offers", body(func(m map[string]any) { m["offers"] = append(m["offers"].([]any), offer0(m)) }), 422, osdm.CodeOutOfBounds, "#/offers/1", "exactly one offer"},
		{"no offers", body(func(m map[string]any) { m["offers"] = []any{} }), 400, osdm.CodeInvalidRequest, "#/offers", ""},
		{"a passenger left out", body(func(m map[string]any) { offer0(m)["passengerRefs"] = []string{adult.ref} }), 422, osdm.CodeOutOfBounds, "#/offers/0/passengerRefs", "all its passengers"},
		{"a stranger", body(func(m map[string]any) { offer0(m)["passengerRefs"] = []string{adult.ref, child.ref, "p-x"} }), 422, osdm.CodeOutOfBounds, "#/offers/0/passengerRefs/2", "not a passenger"},
		{"type changed", body(func(m map[string]any) { spec(m, 1)["type"] = "ADULT" }), 422, osdm.CodeOutOfBounds, "#/passengerSpecifications/1/type", "type CHILD"},
		{"age changed", body(func(m map[string]any) { spec(m, 1)["age"] = 12 }), 422, osdm.CodeOutOfBounds, "#/passengerSpecifications/1/age", "age 8"},
		{"place selection", body(func(m map[string]any) { offer0(m)["placeSelections"] = []any{map[string]any{"x": 1}} }), 422, osdm.CodeOutOfBounds, "#/offers/0/placeSelections", "allocates"},
		{"promotion code", body(func(m map[string]any) { m["promotionCodes"] = []any{map[string]any{"code": "X"}} }), 422, osdm.CodeOutOfBounds, "#/promotionCodes", ""},
		{"name with a control character", body(func(m map[string]any) { spec(m, 0)["detail"] = map[string]any{"firstName": "A", "lastName": "B\x07"} }), 400, osdm.CodeInvalidRequest, "#/passengerSpecifications/0/detail/lastName", ""},
		{"a name too long for the legacy system", body(func(m map[string]any) {
			spec(m, 0)["detail"] = map[string]any{"firstName": "A", "lastName": strings.Repeat("é", 71)}
		}), 400, osdm.CodeInvalidRequest, "#/passengerSpecifications/0/detail/lastName", "70"},
		{"bad date of birth", body(func(m map[string]any) { spec(m, 0)["dateOfBirth"] = "1990-02-30" }), 400, osdm.CodeInvalidRequest, "#/passengerSpecifications/0/dateOfBirth", ""},
		{"a passenger specified twice", body(func(m map[string]any) {
			m["passengerSpecifications"] = append(m["passengerSpecifications"].([]map[string]any), spec(m, 0))
		}), 400, osdm.CodeInvalidRequest, "#/passengerSpecifications/2/externalRef", "twice"},
		{"not JSON", "{", 400, osdm.CodeInvalidRequest, "", ""},
		{"wrong type", `{"offers":"x","passengerSpecifications":[]}`, 400, osdm.CodeInvalidRequest, "#/offers", "array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := e.call(e.f, "POST", "/bookings", c.body)
			p := decodeProblem(t, a)
			if a.Status != c.status || p.Code != c.code || !strings.Contains(p.Detail, c.says) {
				t.Errorf("%d %s %q, want %d %s saying %q", a.Status, p.Code, p.Detail, c.status, c.code, c.says)
			}
			if c.pointer != "" && (len(p.Pointers) == 0 || p.Pointers[0].RequestPointer != c.pointer) {
				t.Errorf("pointers %+v, want %s", p.Pointers, c.pointer)
			}
		})
	}
	if n := e.legacy.attempts(); n != 0 {
		t.Errorf("refused requests sent %d legacy messages", n)
	}
	// An expired offer, and an offer booked already, are refused too.
	e.clock.Advance(16 * time.Minute)
	a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
	if p := decodeProblem(t, a); a.Status != 404 || p.Code != osdm.CodeOfferNotFound {
		t.Errorf("expired offer: %d %+v", a.Status, p)
	}
	o2 := e.offer("9204")
	e.book(o2)
	a = e.call(e.f, "POST", "/bookings", bookingBodyOf(o2))
	if p := decodeProblem(t, a); a.Status != 404 || !strings.Contains(p.Detail, "booked already") {
		t.Errorf("offer booked twice: %d %+v", a.Status, p)
	}
	if n := e.legacy.attempts(); n != 1 {
		t.Errorf("legacy messages %d, want only the first booking's", n)
	}
	e.assertAgree(true)
}

// TestRefundAndPassengerRefusals: partial refunds, refunds of what is not
// fulfilled, unknown fulfilments and refund offers, bad PATCH bodies.
func TestRefundAndPassengerRefusals(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("9203"))
	path := "/bookings/" + b.ID
	a := e.call(e.f, "POST", path+"/refund-offers", map[string]any{"fulfillmentIds": []string{"fu-x"}})
	if p := decodeProblem(t, a); a.Status != 409 || p.Code != osdm.CodeBookingNotFulfilled || !strings.Contains(p.Detail, "DELETE") {
		t.Errorf("refund before fulfilment: %d %+v", a.Status, p)
	}
	for _, c := range []struct {
		name, body string
		status     int
		code, says string
	}{
		{"type", `{"type":"ADULT"}`, 200, "", ""},
		{"type changed", `{"type":"CHILD"}`, 422, osdm.CodeOutOfBounds, "tariff"},
		{"other id", `{"id":"p9"}`, 400, osdm.CodeInvalidRequest, "id"},
		{"bad phone", `{"detail":{"firstName":"A","lastName":"B","contact":{"phoneNumber":"12"}}}`, 400, osdm.CodeInvalidRequest, "E.164"},
		{"bad email", `{"detail":{"firstName":"A","lastName":"B","contact":{"email":"nobody"}}}`, 400, osdm.CodeInvalidRequest, "email"},
		{"long email", `{"detail":{"firstName":"A","lastName":"B","contact":{"email":"` + strings.Repeat("a", 90) + `@example.org"}}}`, 200, "", ""},
		{"too long email", `{"detail":{"firstName":"A","lastName":"B","contact":{"email":"` + strings.Repeat("a", 243) + `@example.org"}}}`, 400, osdm.CodeInvalidRequest, "at most 254 bytes"},
	} {
		a := e.call(e.f, "PATCH", path+"/passengers/p1", c.body)
		if a.Status != c.status {
			t.Errorf("%s: %d %s", c.name, a.Status, a.Body)
			continue
		}
		if c.code != "" {
			if p := decodeProblem(t, a); p.Code != c.code || !strings.Contains(p.Detail, c.says) {
				t.Errorf("%s: %+v", c.name, p)
			}
		}
	}
	if a := e.call(e.f, "PATCH", path+"/passengers/p7", `{}`); a.Status != 404 {
		t.Errorf("unknown passenger: %d", a.Status)
	}
	fu := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", path+"/fulfillments", nil), 200).Fulfillments[0]
	for _, c := range []struct {
		name       string
		body       any
		status     int
		code, says string
	}{
		{"refund of booking parts", map[string]any{"fulfillmentIds": []string{fu.ID}, "refundSpecifications": []any{map[string]any{"fulfillmentId": fu.ID, "bookingPartIds": []string{"rs-1"}}}}, 422, osdm.CodeOutOfBounds, "names passengers"},
		{"refund of nobody", map[string]any{"fulfillmentIds": []string{fu.ID}, "refundSpecifications": []any{map[string]any{"fulfillmentId": fu.ID}}}, 400, osdm.CodeInvalidRequest, "names the passengers"},
		{"refund of an unknown passenger", map[string]any{"fulfillmentIds": []string{fu.ID}, "refundSpecifications": []any{map[string]any{"fulfillmentId": fu.ID, "passengerIds": []string{"p7"}}}}, 404, osdm.CodeResourceNotFound, "p7"},
		{"refund of another fulfilment", map[string]any{"fulfillmentIds": []string{fu.ID}, "refundSpecifications": []any{map[string]any{"fulfillmentId": "fu-x", "passengerIds": []string{"p1"}}}}, 404, osdm.CodeFulfillmentNotFound, "fu-x"},
		{"unknown fulfilment", map[string]any{"fulfillmentIds": []string{"fu-nope"}}, 404, osdm.CodeFulfillmentNotFound, ""},
		{"no fulfilment", map[string]any{"fulfillmentIds": []string{}}, 400, osdm.CodeInvalidRequest, ""},
	} {
		a := e.call(e.f, "POST", path+"/refund-offers", c.body)
		if p := decodeProblem(t, a); a.Status != c.status || p.Code != c.code || !strings.Contains(p.Detail, c.says) {
			t.Errorf("%s: %d %+v", c.name, a.Status, p)
		}
	}
	if a := e.call(e.f, "PATCH", path+"/refund-offers/ro-x", `{"status":"CONFIRMED"}`); a.Status != 404 {
		t.Errorf("unknown refund offer: %d", a.Status)
	}
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", map[string]any{"fulfillmentIds": []string{fu.ID}}), 200).RefundOffers[0]
	for body, want := range map[string]string{
		`{"status":"PROPOSED"}`:  `status must be CONFIRMED, not "PROPOSED": confirming is the one change a refund offer takes (it cannot go back to PROPOSED)`,
		`{"status":"confirmed"}`: `status must be CONFIRMED, not "confirmed": the status is written in capitals`,
	} {
		a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, body)
		if p := decodeProblem(t, a); a.Status != 400 || p.Code != osdm.CodeInvalidRequest || p.Detail != want {
			t.Errorf("PATCH %s: %d %+v", body, a.Status, p)
		}
	}
	e.clock.Advance(defaultOfferTTL + time.Second)
	a = e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`)
	if p := decodeProblem(t, a); a.Status != 409 || p.Code != osdm.CodeRefundOfferExpired {
		t.Errorf("expired refund offer: %d %+v", a.Status, p)
	}
	if a := e.call(e.f, "GET", "/bookings/bk-AAAAAAAAAAAAAAAAAAAAAA", nil); a.Status != 404 {
		t.Errorf("unknown booking: %d", a.Status)
	}
	for _, m := range e.legacy.delivered()[1:] {
		if m.Kind() != legacy.KindPassengerDataRequest {
			t.Errorf("legacy message %s, want the BookingRequest and the passenger changes only", m.Kind())
		}
	}
	e.assertAgree(true)
}

// TestBookingRecordKeepsPassengerData: what the booking keeps and what the
// legacy system got: names sent are those of the BookingRequest, then of
// the PassengerDataRequest a PATCH sent; contact data stays here.
func TestBookingRecordKeepsPassengerData(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("9203"))
	if rec := e.records()[b.ID]; rec.Passengers[0].NameSent != "Ada Lovelace" {
		t.Errorf("passenger record %+v", rec.Passengers[0])
	}
	e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p1", `{"detail":{"firstName":"Grace","lastName":"Hopper","contact":{"email":"g@example.org"}}}`)
	rec := e.records()[b.ID]
	if rec.Passengers[0].NameSent != "Grace Hopper" || rec.Passengers[0].Detail.LastName != "Hopper" {
		t.Errorf("passenger record %+v", rec.Passengers[0])
	}
	n := len(e.legacy.delivered())
	e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p1", `{"detail":{"firstName":"Grace","lastName":"Hopper","contact":{"email":"grace@example.org"}}}`)
	if len(e.legacy.delivered()) != n || e.records()[b.ID].Passengers[0].Detail.Contact.Email != "grace@example.org" {
		t.Errorf("a contact change sent %d legacy messages", len(e.legacy.delivered())-n)
	}
	raw, _ := json.Marshal(rec)
	if !strings.Contains(string(raw), "Hopper") {
		t.Error("the PATCHed name is not in the store")
	}
}

// TestBookSearchedOffer: an offer as the offer search stores it is booked
// through the HTTP sender and the wire codecs (XML and JSON).
func TestBookSearchedOffer(t *testing.T) {
	for _, format := range []legacy.Format{legacy.XML, legacy.JSON} {
		t.Run(format.String(), func(t *testing.T) {
			f, ss, _ := facadeWithSandbox(t, Config{LegacyFormat: format}, legacysandbox.Config{}, nil)
			ss.format = format
			resp := validOffers(t, search(f, ss.sender(), namedTrainSearch))
			o := resp.Offers[0]
			body := `{"offers":[{"offerId":"` + o.OfferID + `","passengerRefs":["p1","p2"]}],
			  "passengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30,"detail":{"firstName":"Ada","lastName":"Lovelace"}},
			                             {"externalRef":"p2","type":"CHILD","age":8}]}`
			a := f.serve(t.Context(), ss.sender(), "POST", "/bookings", http.Header{"Content-Type": {"application/json"}}, []byte(body))
			osdmspec.ValidateResponse(t, osdmspec.V39, "POST", "/bookings", a.Status, a.Header, a.Body)
			b := decodeOK[osdm.BookingResponse](t, a, 200).Booking
			res := b.BookedOffers[0].Reservations[0]
			if res.Price.Amount != o.ReservationOfferParts[0].Price.Amount || len(res.PassengerIDs) != 2 || res.PlaceAllocation == nil {
				t.Errorf("booked reservation %+v, offer part %+v", res, o.ReservationOfferParts[0])
			}
			if len(b.Trips) != 1 || b.Trips[0].ID != resp.Trips[0].ID {
				t.Errorf("booking trips %+v, offer trips %+v", b.Trips, resp.Trips)
			}
			if len(a.Messages) != 1 || a.Messages[0].Kind != legacy.KindBookingRequest || a.Messages[0].Outcome != string(legacy.KindBookingReply) {
				t.Errorf("messages %+v", a.Messages)
			}
			held := 0
			for _, sb := range ss.sb.Bookings() {
				if sb.Status == legacy.StatusConfirmed && sb.Passengers == 1 {
					held++
				}
			}
			if held != 1 {
				t.Errorf("legacy bookings with one named passenger: %d", held)
			}
		})
	}
}

// sandboxNames returns the personal data the legacy system holds for
// booking ref, by place.
func (e *bookEnv) sandboxNames(ref string) []legacysandbox.PassengerInfo {
	e.t.Helper()
	for _, b := range e.sb.Bookings() {
		if b.BookingRef == ref {
			return b.Names
		}
	}
	e.t.Fatalf("the legacy system has no booking %s", ref)
	return nil
}

// byPlace lists legacy booking ref's places still held (with cancelled,
// also those cancelled) at the legacy system: place number -> what show
// makes of the data held for it.
func (e *bookEnv) byPlace(ref string, cancelled bool, show func(legacysandbox.PassengerInfo) string) map[string]string {
	out := map[string]string{}
	for _, sb := range e.sb.Bookings() {
		if sb.BookingRef != ref {
			continue
		}
		for i, pl := range sb.Places {
			if cancelled || !pl.Cancelled {
				out[pl.Number] = show(sb.Names[i])
			}
		}
	}
	return out
}

// lastName is a PassengerInfo's last name, for byPlace.
func lastName(p legacysandbox.PassengerInfo) string { return p.LastName }

// TestDeleteRefundOffer: DELETE of a proposed refund offer drops it (204,
// and 204 again: it is not held either way) without a legacy message; a
// confirmed one answers 409 and stays.
func TestDeleteRefundOffer(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("708"))
	fu := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0]
	quote := func() osdm.RefundOffer {
		return decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/refund-offers",
			map[string]any{"fulfillmentIds": []string{fu.ID}}), 200).RefundOffers[0]
	}
	ro := quote()
	sent := len(e.legacy.delivered())
	for range 2 {
		if a := e.call(e.f, "DELETE", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, nil); a.Status != http.StatusNoContent {
			t.Fatalf("DELETE proposed refund offer: %d %s", a.Status, a.Body)
		}
	}
	if a := e.call(e.f, "GET", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, nil); a.Status != http.StatusNotFound {
		t.Errorf("GET of a deleted refund offer: %d %s", a.Status, a.Body)
	}
	if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, map[string]any{"status": "CONFIRMED"}); a.Status != http.StatusNotFound {
		t.Errorf("confirming a deleted refund offer: %d %s", a.Status, a.Body)
	}
	if n := len(e.legacy.delivered()); n != sent {
		t.Errorf("DELETE of a refund offer sent %d legacy messages", n-sent)
	}
	ro = quote()
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, map[string]any{"status": "CONFIRMED"}), 200)
	a := e.call(e.f, "DELETE", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, nil)
	if p := decodeProblem(t, a); a.Status != http.StatusConflict || p.Code != osdm.CodeOperationNotPermitted {
		t.Errorf("DELETE confirmed refund offer: %d %+v", a.Status, p)
	}
	g := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, nil), 200)
	if g.RefundOffer.Status != osdm.RefundConfirmed {
		t.Errorf("confirmed refund offer after DELETE: %+v", g.RefundOffer)
	}
	if a := e.call(e.f, "DELETE", "/bookings/nope/refund-offers/"+ro.ID, nil); a.Status != http.StatusNotFound {
		t.Errorf("DELETE refund offer of an unknown booking: %d", a.Status)
	}
}

// TestGetBookingEmbed: GET /bookings/{bookingId} answers the whole
// booking for any embed the spec lists, and refuses one it does not with
// a 400 naming it, rather than ignoring it.
func TestGetBookingEmbed(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("9203"))
	for _, q := range []string{"?embed=ALL", "?embed=BOOKING_TRIPS&embed=BOOKING_PASSENGERS", "?embed=NONE"} {
		got := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID+q, nil), 200)
		if got.Booking == nil || got.Booking.ID != b.ID {
			t.Errorf("%s: %+v", q, got)
		}
	}
	a := e.call(e.f, "GET", "/bookings/"+b.ID+"?embed=TRIPS", nil)
	if p := decodeProblem(t, a); a.Status != 400 || p.Code != osdm.CodeInvalidRequest || !strings.HasPrefix(p.Detail, `embed "TRIPS" is not one of ALL, BOOKING,`) {
		t.Errorf("%d %+v", a.Status, p)
	}
}
