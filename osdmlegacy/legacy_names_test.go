package osdmlegacy

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// adult2 is a second adult of a test offer.
var adult2 = offerPax{"p-adult-2", osdm.PassengerAdult, 30, 1}

// namedBooking books offer o with the given last names, in the offer's
// passenger order ("" books that passenger without a name), and returns
// the booking and the legacy BookingRequest it sent.
func (e *bookEnv) namedBooking(o *offerRecord, lastNames ...string) (*osdm.Booking, *legacy.BookingRequest) {
	e.t.Helper()
	body := bookingBodyOf(o)
	specs := body["passengerSpecifications"].([]map[string]any)
	for i, n := range lastNames {
		if n == "" {
			delete(specs[i], "detail")
		} else {
			specs[i]["detail"] = map[string]any{"firstName": "F", "lastName": n}
		}
	}
	n := len(e.legacy.delivered())
	b := decodeOK[osdm.BookingResponse](e.t, e.call(e.f, "POST", "/bookings", body), 200).Booking
	for _, m := range e.legacy.delivered()[n:] {
		if br, ok := m.(*legacy.BookingRequest); ok {
			return b, br
		}
	}
	e.t.Fatal("no BookingRequest reached the legacy system")
	return nil, nil
}

// placeOf returns the place number the booking's view gives passenger
// pid (reservedPlaces' passengerIds paired position by position with
// their placeNumbers).
func placeOf(t *testing.T, b *osdm.Booking, pid string) string {
	t.Helper()
	for _, res := range b.BookedOffers[0].Reservations {
		for _, rp := range res.PlaceAllocation.ReservedPlaces {
			for k, id := range rp.PassengerIDs {
				if id == pid && k < len(rp.PlaceNumbers) {
					return rp.PlaceNumbers[k]
				}
			}
		}
	}
	t.Fatalf("no place of passenger %s in %+v", pid, b.BookedOffers[0].Reservations)
	return ""
}

// TestNamesFollowThePlaces: with interleaved tariffs (adult, child,
// adult) the legacy places follow the tariff groups (both adults, then the
// child), and so do the names of the BookingRequest: each place is named
// for the passenger the booking gives it, and a later change of the child
// reaches the child's place, not another passenger's.
func TestNamesFollowThePlaces(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child, adult2)
	b, br := e.namedBooking(o, "Ada", "Bob", "Cy")
	if got := br.Places.Tariffs; len(got) != 2 || got[0] != (legacy.Tariff{Code: 1, Count: 2}) || got[1] != (legacy.Tariff{Code: 2, Count: 1}) {
		t.Fatalf("tariffs %+v", got)
	}
	var sent []string
	for _, p := range br.Passengers {
		sent = append(sent, p.LastName)
	}
	if len(sent) != 3 || sent[0] != "Ada" || sent[1] != "Cy" || sent[2] != "Bob" {
		t.Errorf("BookingRequest names %v, want Ada, Cy, Bob (the places' order)", sent)
	}
	rec := e.records()[b.ID]
	held := func() map[string]string { return e.byPlace(rec.Legacy.BookingRef, true, lastName) }
	names := held()
	for pid, want := range map[string]string{"p1": "Ada", "p2": "Bob", "p3": "Cy"} {
		if got := names[placeOf(t, b, pid)]; got != want {
			t.Errorf("passenger %s's place is named %q at the legacy system, want %q", pid, got, want)
		}
	}

	if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p2", `{"detail":{"firstName":"F","lastName":"Bobby"}}`); a.Status != 200 {
		t.Fatalf("PATCH: %d %s", a.Status, a.Body)
	}
	names = held()
	if got := names[placeOf(t, b, "p2")]; got != "Bobby" {
		t.Errorf("the child's place is named %q after the change, want Bobby", got)
	}
	if got := names[placeOf(t, b, "p3")]; got != "Cy" {
		t.Errorf("the second adult's place is named %q after the child's change, want Cy", got)
	}
	e.assertAgree(true)
}

// TestNamesStopAtTheFirstUnnamedPlace: a legacy BookingRequest names its
// first places, so a named passenger whose place comes after an unnamed
// one is not named with the booking (nor on another's place); a PATCH
// with the same name then sends it to its own place.
func TestNamesStopAtTheFirstUnnamedPlace(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, adult2)
	b, br := e.namedBooking(o, "", "Cy")
	if len(br.Passengers) != 0 {
		t.Errorf("BookingRequest names %+v, want none (the first place's passenger has no name)", br.Passengers)
	}
	rec := e.records()[b.ID]
	if rec.Passengers[1].NameSent != "" {
		t.Errorf("the record says the legacy system holds %q for p2", rec.Passengers[1].NameSent)
	}
	if names := e.sandboxNames(rec.Legacy.BookingRef); len(names) > 0 && names[0].LastName != "" {
		t.Errorf("the first place is named %+v", names[0])
	}
	n := len(e.legacy.delivered())
	if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p2", `{"detail":{"firstName":"F","lastName":"Cy"}}`); a.Status != 200 {
		t.Fatalf("PATCH: %d %s", a.Status, a.Body)
	}
	sent := e.legacy.delivered()[n:]
	pd, ok := sent[len(sent)-1].(*legacy.PassengerDataRequest)
	if !ok || len(pd.Passengers) != 1 || pd.Passengers[0].Index != 2 || pd.Passengers[0].LastName != "Cy" {
		t.Fatalf("PATCH sent %#v, want a PassengerDataRequest for place 2", sent)
	}
	names := e.sandboxNames(rec.Legacy.BookingRef)
	if len(names) < 2 || names[0].LastName != "" || names[1].LastName != "Cy" {
		t.Errorf("the legacy system holds %+v", names)
	}
	e.assertAgree(true)
}

// TestExchangeNamesFollowThePlaces: the BookingRequest of an exchange
// names the new places as a booking does, and once confirmed the record
// says which names the new legacy booking holds.
func TestExchangeNamesFollowThePlaces(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child, adult2)
	b, _ := e.namedBooking(o, "Ada", "Bob", "Cy")
	fid := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0].ID
	n := len(e.legacy.delivered())
	e.exchangeTo(b.ID, fid, "708")
	var br *legacy.BookingRequest
	for _, m := range e.legacy.delivered()[n:] {
		if r, ok := m.(*legacy.BookingRequest); ok {
			br = r
		}
	}
	if br == nil {
		t.Fatal("the exchange sent no BookingRequest")
	}
	var sent []string
	for _, p := range br.Passengers {
		sent = append(sent, p.LastName)
	}
	if len(sent) != 3 || sent[0] != "Ada" || sent[1] != "Cy" || sent[2] != "Bob" {
		t.Errorf("exchange BookingRequest names %v, want Ada, Cy, Bob", sent)
	}
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	rec := e.records()[b.ID]
	for _, p := range rec.Passengers {
		if want := "F " + map[string]string{"p1": "Ada", "p2": "Bob", "p3": "Cy"}[p.ID]; p.NameSent != want {
			t.Errorf("after the exchange %s's NameSent is %q, want %q", p.ID, p.NameSent, want)
		}
	}
	e.assertAgree(true)
}

// TestExchangeKeepsTheDataHeld: a booking made without names whose
// passengers were named later (a PATCH each: the child with its date of
// birth, the second adult; the first adult only a date of birth) is
// exchanged: the exchange's BookingRequest can name no place (the first
// place's passenger has no name), so once the exchange is confirmed one
// PassengerDataRequest gives the new places the data the old ones held,
// each at its passenger's place, and the record says which names the
// legacy system holds.
func TestExchangeKeepsTheDataHeld(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child, adult2)
	b, _ := e.namedBooking(o, "", "", "")
	fid := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0].ID
	for pid, body := range map[string]string{
		"p1": `{"dateOfBirth":"1990-04-01"}`,
		"p2": `{"dateOfBirth":"2021-05-05","detail":{"firstName":"Kid","lastName":"Bob"}}`,
		"p3": `{"detail":{"firstName":"F","lastName":"Cy"}}`,
	} {
		if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/"+pid, body); a.Status != 200 {
			t.Fatalf("PATCH %s: %d %s", pid, a.Status, a.Body)
		}
	}
	// held lists the legacy booking's data by place number.
	held := func(ref string) map[string]string {
		return e.byPlace(ref, true, func(p legacysandbox.PassengerInfo) string { return p.LastName + "/" + p.DateOfBirth })
	}
	want := map[string]string{"p1": "/1990-04-01", "p2": "Bob/2021-05-05", "p3": "Cy/"}
	check := func(step string) {
		t.Helper()
		view := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking
		at := held(e.records()[b.ID].Legacy.BookingRef)
		for pid, w := range want {
			if got := at[placeOf(t, view, pid)]; got != w {
				t.Errorf("%s: passenger %s's place holds %q at the legacy system, want %q (%v)", step, pid, got, w, at)
			}
		}
	}
	check("named")
	e.exchangeTo(b.ID, fid, "708")
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	rec := e.records()[b.ID]
	if rec.Offer.Train != "708" || rec.State != stateFulfilled {
		t.Fatalf("after the exchange: train %s, %s", rec.Offer.Train, rec.State)
	}
	check("exchanged")
	for _, p := range rec.Passengers {
		if w := map[string]string{"p2": "Kid Bob", "p3": "F Cy"}[p.ID]; p.NameSent != w {
			t.Errorf("after the exchange %s's NameSent is %q, want %q", p.ID, p.NameSent, w)
		}
	}
	e.assertAgree(true)
}

// TestExchangeDataLost: the PassengerDataRequest that follows an exchange
// is lost: the exchange stands (the fulfilment answers), and settlement
// (after a restart) gives the new places the names.
func TestExchangeDataLost(t *testing.T) {
	e := newBookEnv(t, boltKind, nil)
	o := e.offer("9203", adult, adult2)
	b, _ := e.namedBooking(o, "", "")
	fid := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0].ID
	if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p2", `{"detail":{"firstName":"F","lastName":"Cy"}}`); a.Status != 200 {
		t.Fatalf("PATCH: %d %s", a.Status, a.Body)
	}
	e.exchangeTo(b.ID, fid, "708")
	e.legacy.inject(fault{kind: legacy.KindPassengerDataRequest, what: "lost"})
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	if rec := e.records()[b.ID]; rec.Offer.Train != "708" || rec.State != stateUpdating {
		t.Fatalf("after the lost PassengerDataRequest: train %s, %s", rec.Offer.Train, rec.State)
	}
	e.settle(e.otherInstance())
	rec := e.records()[b.ID]
	names := e.sandboxNames(rec.Legacy.BookingRef)
	if rec.State != stateFulfilled || rec.Passengers[1].NameSent != "F Cy" || len(names) != 2 || names[1].LastName != "Cy" {
		t.Errorf("after settlement: %s %+v, the legacy system holds %+v", rec.State, rec.Passengers, names)
	}
	e.assertAgree(true)
}

// TestFulfilmentSendsTheNamesLeft: booked adult (named), child (named),
// adult (unnamed), the BookingRequest names the first place only (the
// second adult's place comes before the child's); the fulfilment sends the
// child's name to the child's place, and the record says the legacy
// system holds it.
func TestFulfilmentSendsTheNamesLeft(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child, adult2)
	b, br := e.namedBooking(o, "Ada", "Bob", "")
	if len(br.Passengers) != 1 || br.Passengers[0].LastName != "Ada" {
		t.Fatalf("BookingRequest names %+v, want Ada only", br.Passengers)
	}
	if rec := e.records()[b.ID]; rec.Passengers[1].NameSent != "" {
		t.Fatalf("before the fulfilment the record says the legacy system holds %q for the child", rec.Passengers[1].NameSent)
	}
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	view := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking
	rec := e.records()[b.ID]
	names := e.byPlace(rec.Legacy.BookingRef, true, lastName)
	for pid, want := range map[string]string{"p1": "Ada", "p2": "Bob", "p3": ""} {
		if got := names[placeOf(t, view, pid)]; got != want {
			t.Errorf("passenger %s's place is named %q at the legacy system, want %q", pid, got, want)
		}
	}
	if rec.State != stateFulfilled || rec.Passengers[1].NameSent != "F Bob" {
		t.Errorf("after the fulfilment: %s, the child's NameSent %q", rec.State, rec.Passengers[1].NameSent)
	}
	e.assertAgree(true)
}

// TestExchangeConfirmedBySettlementSendsTheDataHeld: when the answer to
// an exchange's confirmation (the CancelRequest of the old places) is
// lost, settlement confirms the exchange, and then gives the new places
// the names their BookingRequest could not carry, as the fulfilment
// would have.
func TestExchangeConfirmedBySettlementSendsTheDataHeld(t *testing.T) {
	e := newBookEnv(t, boltKind, nil)
	o := e.offer("9203", adult, adult2)
	b, _ := e.namedBooking(o, "", "")
	fid := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0].ID
	if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p2", `{"detail":{"firstName":"F","lastName":"Cy"}}`); a.Status != 200 {
		t.Fatalf("PATCH: %d %s", a.Status, a.Body)
	}
	e.exchangeTo(b.ID, fid, "708")
	e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: "lost"})
	if a := e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil); a.Status != 504 {
		t.Fatalf("confirmation with its answer lost: %d %s", a.Status, a.Body)
	}
	e.settle(e.otherInstance())
	rec := e.records()[b.ID]
	if rec.Offer.Train != "708" || rec.Exchange.State != exchangeConfirmed {
		t.Fatalf("after settlement: train %s, exchange %s", rec.Offer.Train, rec.Exchange.State)
	}
	names := e.sandboxNames(rec.Legacy.BookingRef)
	if rec.State != stateFulfilled || rec.Passengers[1].NameSent != "F Cy" || len(names) != 2 || names[1].LastName != "Cy" {
		t.Errorf("after settlement: %s %+v, the new legacy booking holds %+v", rec.State, rec.Passengers, names)
	}
	e.assertAgree(true)
}
