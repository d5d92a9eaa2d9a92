package integration

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestOSDMLegacyIntegrationLegacyRoundTripInterleavedTariffs: a legacy
// system books adult, child, adult (interleaved tariffs) on another legacy
// system over OSDM. The far system groups the places by tariff (both
// adults, then the child), so every hop must keep each place with its
// traveller: the near system's i-th place is, at the far system, the place
// named for its i-th traveller, after the booking, after an exchange,
// after a change of the child's name; and cancelling the child's place
// frees the child's place, no one else's.
func TestOSDMLegacyIntegrationLegacyRoundTripInterleavedTariffs(t *testing.T) {
	rt := legacyOverOSDM(t, "exchange_fee 10%")
	places := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1,
		Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}, {Code: 1, Count: 1}}}
	travellers := []legacy.Passenger{{FirstName: "Ada", LastName: "Lovelace"}, {FirstName: "Byron", LastName: "King"}, {FirstName: "Charles", LastName: "Babbage"}}

	// far lists the far system's live booking: place number -> its name,
	// its tariff, and whether it is cancelled.
	type farPlace struct {
		name      string
		tariff    int
		cancelled bool
	}
	far := func(step string, train string) map[string]farPlace {
		t.Helper()
		held := rt.confirmed()
		if len(held) != 1 || held[0].Train != train {
			t.Fatalf("%s: the far system holds %+v, want one booking on %s", step, held, train)
		}
		var tariffs []int // the far places' tariffs, in place order
		for _, tc := range held[0].Tariffs {
			for range tc.Count {
				tariffs = append(tariffs, tc.Code)
			}
		}
		out := map[string]farPlace{}
		for i, pl := range held[0].Places {
			fp := farPlace{cancelled: pl.Cancelled}
			if i < len(tariffs) {
				fp.tariff = tariffs[i]
			}
			if i < len(held[0].Names) {
				fp.name = held[0].Names[i].LastName
			}
			out[pl.Number] = fp
		}
		return out
	}
	// agree checks that the near system's i-th place is its i-th
	// traveller's at the far system: named for it, with its tariff.
	wantTariffs := []int{1, 2, 1}
	agree := func(step, train string, near []legacy.Place, names ...string) {
		t.Helper()
		at := far(step, train)
		if len(near) != len(names) {
			t.Fatalf("%s: near places %+v", step, near)
		}
		for i, pl := range near {
			if got := at[pl.Number]; got.name != names[i] || got.tariff != wantTariffs[i] {
				t.Errorf("%s: the near system's place %d (%s) is named %q with tariff %d at the far system, want %q with tariff %d (%+v)",
					step, i+1, pl.Number, got.name, got.tariff, names[i], wantTariffs[i], at)
			}
		}
	}

	reply := rt.post(&legacy.BookingRequest{Header: header("RTI-B-"), Journey: rt.journey("708"), Places: places, Passengers: travellers})
	br, ok := reply.(*legacy.BookingReply)
	if !ok {
		t.Fatalf("BookingRequest over OSDM: %#v", reply)
	}
	agree("booked", "708", br.Places, "Lovelace", "King", "Babbage")

	// The exchange names each traveller on its new place.
	reply = rt.post(&legacy.AvailabilityRequest{Header: header("RTI-XA-"), Journey: rt.journey("709"), Places: places, ExchangeOf: br.BookingRef})
	ar, ok := reply.(*legacy.AvailabilityReply)
	if !ok || len(ar.Offers) != 1 || ar.Offers[0].Exchange == nil {
		t.Fatalf("exchange offers over OSDM: %#v", reply)
	}
	reply = rt.post(&legacy.BookingRequest{Header: header("RTI-XB-"), Journey: rt.journey("709"), Places: places,
		OfferRef: ar.Offers[0].OfferRef, ExchangeOf: br.BookingRef})
	xr, ok := reply.(*legacy.BookingReply)
	if !ok || xr.ExchangeOf != br.BookingRef || len(xr.Places) != 3 {
		t.Fatalf("exchange over OSDM: %#v", reply)
	}
	agree("exchanged", "709", xr.Places, "Lovelace", "King", "Babbage")

	// The child (the second traveller) is renamed on its own place.
	reply = rt.post(&legacy.PassengerDataRequest{Header: header("RTI-P-"), BookingRef: br.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 2, FirstName: "Augusta", LastName: "Ada King"}}})
	if _, ok := reply.(*legacy.PassengerDataReply); !ok {
		t.Fatalf("passenger data over OSDM: %#v", reply)
	}
	agree("renamed", "709", xr.Places, "Lovelace", "Ada King", "Babbage")

	// Cancelling the child's place frees the child's place.
	reply = rt.post(&legacy.CancelRequest{Header: header("RTI-C-"), BookingRef: br.BookingRef, Places: xr.Places[1:2]})
	if cr, ok := reply.(*legacy.CancelReply); !ok || cr.Status != legacy.StatusPartiallyRefunded {
		t.Fatalf("partial cancellation over OSDM: %#v", reply)
	}
	at := far("partly cancelled", "709")
	for i, pl := range xr.Places {
		if got := at[pl.Number]; got.cancelled != (i == 1) {
			t.Errorf("after cancelling the child's place, %s (%s) cancelled: %v", pl.Number, got.name, got.cancelled)
		}
	}
}
