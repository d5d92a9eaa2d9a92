package integration

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestOSDMLegacyIntegrationLegacyNamesThroughAnExchange: a legacy system
// books adult, child, adult without names on another legacy system over
// OSDM, then names them with PassengerDataRequests, one of them refused
// half-way (a date of birth for another tariff after a new name), and
// exchanges the booking. After each step the near system's view and the
// far system agree on which traveller's place carries which name and date
// of birth: a refusal that leaves a name set says so, and the exchange's
// new places carry the names and dates of birth the old ones held.
func TestOSDMLegacyIntegrationLegacyNamesThroughAnExchange(t *testing.T) {
	rt := legacyOverOSDM(t, "exchange_fee 10%")
	places := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1,
		Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}, {Code: 1, Count: 1}}}
	reply := rt.post(&legacy.BookingRequest{Header: header("RTN-B-"), Journey: rt.journey("708"), Places: places})
	br, ok := reply.(*legacy.BookingReply)
	if !ok || len(br.Places) != 3 {
		t.Fatalf("BookingRequest over OSDM: %#v", reply)
	}
	// held checks the far system's places on train (the near system's
	// i-th place is its i-th traveller's): last name/date of birth.
	held := func(step, train string, near []legacy.Place, want ...string) {
		t.Helper()
		_, at := farBooking(t, rt.far, train)
		for i, pl := range near {
			if got := at[pl.Number]; got.lastName+"/"+got.dateOfBirth != want[i] || got.cancelled {
				t.Errorf("%s: traveller %d's place %s holds %+v at the far system, want %s", step, i+1, pl.Number, got, want[i])
			}
		}
	}

	reply = rt.post(&legacy.PassengerDataRequest{Header: header("RTN-P2-"), BookingRef: br.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 2, FirstName: "Kid", LastName: "One", DateOfBirth: "2018-05-05"}}})
	if pr, ok := reply.(*legacy.PassengerDataReply); !ok || len(pr.Passengers) != 3 || pr.Passengers[1].LastName != "One" {
		t.Fatalf("passenger data of the child: %#v", reply)
	}
	held("child named", "708", br.Places, "/", "One/2018-05-05", "/")

	// The third traveller named, then the child given an adult's date of
	// birth: refused. The name given to a traveller who had none cannot be
	// taken back, and the reply says so.
	reply = rt.post(&legacy.PassengerDataRequest{Header: header("RTN-P3-"), BookingRef: br.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 3, FirstName: "Cy", LastName: "Three"}, {Index: 2, DateOfBirth: "1970-01-01"}}})
	nr, ok := reply.(*legacy.NegativeReply)
	if !ok || nr.Code != legacy.CodeInvalidMessage {
		t.Fatalf("a child given an adult's date of birth: %#v", reply)
	}
	_, at := farBooking(t, rt.far, "708")
	if kept := at[br.Places[2].Number].lastName; kept != "" && (strings.Contains(nr.Text, "Nothing was changed") || !strings.Contains(nr.Text, "could not all be set back")) {
		t.Errorf("the far system names traveller 3 %q, the near system was told %q", kept, nr.Text)
	}
	held("refused half-way", "708", br.Places, "/", "One/2018-05-05", at[br.Places[2].Number].lastName+"/")

	// The exchange: the new places carry the names and dates of birth.
	reply = rt.post(&legacy.BookingRequest{Header: header("RTN-X-"), Journey: rt.journey("709"), Places: places, ExchangeOf: br.BookingRef})
	xr, ok := reply.(*legacy.BookingReply)
	if !ok || xr.ExchangeOf != br.BookingRef || len(xr.Places) != 3 {
		t.Fatalf("exchange over OSDM: %#v", reply)
	}
	held("exchanged", "709", xr.Places, "/", "One/2018-05-05", "Three/")

	reply = rt.post(&legacy.PassengerDataRequest{Header: header("RTN-P1-"), BookingRef: br.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 1, FirstName: "Ada", LastName: "Lovelace"}}})
	if pr, ok := reply.(*legacy.PassengerDataReply); !ok || len(pr.Passengers) != 3 || pr.Passengers[0].LastName != "Lovelace" ||
		pr.Passengers[1].LastName != "One" || pr.Passengers[2].LastName != "Three" {
		t.Fatalf("passenger data of the first traveller after the exchange: %#v", reply)
	}
	held("first named after the exchange", "709", xr.Places, "Lovelace/", "One/2018-05-05", "Three/")
}
