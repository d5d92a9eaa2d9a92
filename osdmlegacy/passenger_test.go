package osdmlegacy

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestPassengerChangeOfTariffRefused: a date of birth that would put the
// passenger in another legacy tariff is refused (422) and nothing is sent;
// one within the tariff is sent and kept, also after fulfilment.
func TestPassengerChangeOfTariffRefused(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child)
	id, _ := e.fulfilled(o)
	path := "/bookings/" + id + "/passengers/p2"
	n := len(e.legacy.delivered())
	a := e.call(e.f, "PATCH", path, `{"dateOfBirth":"1990-01-01"}`)
	if p := decodeProblem(t, a); a.Status != 422 || p.Code != osdm.CodeOutOfBounds || !strings.Contains(p.Detail, "tariff") {
		t.Errorf("a change of tariff: %d %+v", a.Status, p)
	}
	if len(e.legacy.delivered()) != n || e.records()[id].Passengers[1].DateOfBirth != "" {
		t.Errorf("a refused change sent %d messages or was kept", len(e.legacy.delivered())-n)
	}
	pa := decodeOK[osdm.PassengerResponse](t, e.call(e.f, "PATCH", path, `{"dateOfBirth":"2021-06-01","detail":{"firstName":"Ada","lastName":"King"}}`), 200)
	sent := e.legacy.delivered()
	pd, ok := sent[len(sent)-1].(*legacy.PassengerDataRequest)
	if !ok || pd.Passengers[0].DateOfBirth != "2021-06-01" || pa.Passenger.DateOfBirth != "2021-06-01" || pd.MessageID() != id+".pax.1" {
		t.Errorf("sent %#v, answered %+v", sent[len(sent)-1], pa.Passenger)
	}
	if names := e.sandboxNames(e.records()[id].Legacy.BookingRef); names[1].LastName != "King" || names[1].DateOfBirth != "2021-06-01" {
		t.Errorf("the legacy system holds %+v", names)
	}
	e.assertAgree(true)
}

// TestPassengerChangeFaults: a lost PassengerDataRequest is settled
// (asked, then recorded); a refused one leaves the passenger as it was.
func TestPassengerChangeFaults(t *testing.T) {
	for _, lf := range lostFaults {
		t.Run(lf.what, func(t *testing.T) {
			e := newBookEnv(t, memKind, nil)
			b := e.book(e.offer("9203"))
			e.legacy.inject(fault{kind: legacy.KindPassengerDataRequest, what: lf.what})
			if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p1", `{"detail":{"firstName":"Grace","lastName":"Hopper"}}`); a.Status != lf.status {
				t.Errorf("PATCH: %d %s", a.Status, a.Body)
			}
			if r := e.records()[b.ID]; r.State != stateUpdating {
				t.Errorf("record during the intent: %s", r.State)
			}
			if rep := e.settle(e.f); rep.Settled != 1 {
				t.Errorf("settlement %+v", rep)
			}
			r := e.records()[b.ID]
			if r.State != statePrebooked || r.Pending != nil || r.Passengers[0].NameSent != "Grace Hopper" {
				t.Errorf("after settlement: %s %+v", r.State, r.Passengers[0])
			}
			if names := e.sandboxNames(r.Legacy.BookingRef); names[0].LastName != "Hopper" {
				t.Errorf("the legacy system holds %+v", names)
			}
			if n := countKind(e.legacy.delivered(), legacy.KindPassengerDataRequest); n > 2 || lf.what != "slow" && lf.what != "down" && n != 1 {
				t.Errorf("%d PassengerDataRequests reached the legacy system", n)
			}
			e.assertAgree(true)
		})
	}
	t.Run("refused", func(t *testing.T) {
		e := newBookEnv(t, memKind, nil)
		b := e.book(e.offer("9203"))
		e.legacy.inject(fault{kind: legacy.KindPassengerDataRequest, what: "negative", code: legacy.CodeInvalidMessage})
		if a := e.call(e.f, "PATCH", "/bookings/"+b.ID+"/passengers/p1", `{"detail":{"firstName":"Grace","lastName":"Hopper"}}`); a.Status < 400 {
			t.Errorf("PATCH refused: %d", a.Status)
		}
		r := e.records()[b.ID]
		if r.State != statePrebooked || r.Passengers[0].NameSent != "Ada Lovelace" || r.Passengers[0].Detail.LastName != "Lovelace" {
			t.Errorf("after a refusal: %s %+v", r.State, r.Passengers[0])
		}
	})
}

// TestPassengerPatchKeepsWhatItLeavesOut: a PATCH's detail changes the
// members it gives and leaves the others as they were, at the legacy
// system (a PassengerDataRequest leaves out what it does not give) and in
// the booking alike: contact data alone (the spec's firstName and
// lastName null) keeps the name, sending nothing; a last name alone
// keeps the first name; a new name keeps the contact data. After each,
// every passenger's name in the booking is the one the legacy system
// holds at its place.
func TestPassengerPatchKeepsWhatItLeavesOut(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child, adult2)
	id, _ := e.fulfilled(o)
	path := "/bookings/" + id
	ref := e.records()[id].Legacy.BookingRef
	agree := func(step string) {
		t.Helper()
		b := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", path, nil), 200).Booking
		held := e.byPlace(ref, true, func(p legacysandbox.PassengerInfo) string { return p.FirstName + " " + p.LastName })
		for _, p := range b.Passengers {
			if got, want := p.Detail.FirstName+" "+p.Detail.LastName, held[placeOf(t, b, p.ID)]; got != want {
				t.Errorf("%s: the booking names %s %q, the legacy system %q", step, p.ID, got, want)
			}
		}
	}
	agree("booked")

	n := len(e.legacy.delivered())
	pa := decodeOK[osdm.PassengerResponse](t, e.call(e.f, "PATCH", path+"/passengers/p1",
		`{"detail":{"firstName":null,"lastName":null,"contact":{"email":"ada@example.org"}}}`), 200).Passenger
	if d := pa.Detail; d == nil || d.FirstName != "Ada" || d.LastName != "Lovelace" || d.Contact == nil || d.Contact.Email != "ada@example.org" {
		t.Errorf("contact data alone: answered %+v", d)
	}
	if len(e.legacy.delivered()) != n {
		t.Errorf("contact data alone sent %d legacy messages", len(e.legacy.delivered())-n)
	}
	agree("contact data")

	decodeOK[osdm.PassengerResponse](t, e.call(e.f, "PATCH", path+"/passengers/p3", `{"detail":{"lastName":"King"}}`), 200)
	agree("a last name alone")

	pa = decodeOK[osdm.PassengerResponse](t, e.call(e.f, "PATCH", path+"/passengers/p1", `{"detail":{"firstName":"Grace","lastName":"Hopper"}}`), 200).Passenger
	if d := pa.Detail; d.Contact == nil || d.Contact.Email != "ada@example.org" {
		t.Errorf("a new name dropped the contact data: %+v", d)
	}
	agree("a new name")
	e.assertAgree(true)
}
