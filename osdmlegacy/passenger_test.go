package osdmlegacy

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
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
			if r := e.records()[b.ID]; r.State != StateUpdating {
				t.Errorf("record during the intent: %s", r.State)
			}
			if rep := e.settle(e.f); rep.Settled != 1 {
				t.Errorf("settlement %+v", rep)
			}
			r := e.records()[b.ID]
			if r.State != StatePrebooked || r.Pending != nil || r.Passengers[0].NameSent != "Grace Hopper" {
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
		if r.State != StatePrebooked || r.Passengers[0].NameSent != "Ada Lovelace" || r.Passengers[0].Detail.LastName != "Lovelace" {
			t.Errorf("after a refusal: %s %+v", r.State, r.Passengers[0])
		}
	})
}
