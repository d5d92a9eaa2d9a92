package integration

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestOSDMLegacyIntegrationLegacyRoundTripAfterSales: a legacy reservation
// system exchanges and partly cancels a booking on another legacy system
// over OSDM (legacy client -> osdm_convert -> reverse_proxy -> osdm_legacy
// -> reverse_proxy -> the legacy sandbox): exchange offers (an
// AvailabilityRequest with ExchangeOf), the exchange (a BookingRequest with
// ExchangeOf), a passenger's data, a partial cancellation, a
// synchronisation and the cancellation of the rest; the far system's seats
// checked after each step.
func TestOSDMLegacyIntegrationLegacyRoundTripAfterSales(t *testing.T) {
	rt := legacyOverOSDM(t, "exchange_fee 10%")
	seats := func(step string, w708, w709 int) {
		t.Helper()
		taken := func(train string) int {
			return rt.far.Config().Capacity - rt.far.Available(train, rt.day, legacy.SecondClass, legacy.ServiceSeat)
		}
		if a, b := taken("708"), taken("709"); a != w708 || b != w709 {
			t.Errorf("%s: seats taken on 708 %d, on 709 %d; want %d, %d", step, a, b, w708, w709)
		}
	}
	places := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}}}

	reply := rt.post(&legacy.BookingRequest{Header: header("RT-B-"), Journey: rt.journey("708"), Places: places,
		Passengers: []legacy.Passenger{{FirstName: "Ada", LastName: "Lovelace"}, {FirstName: "Byron", LastName: "King"}}})
	br, ok := reply.(*legacy.BookingReply)
	if !ok || len(br.Places) != 2 {
		t.Fatalf("BookingRequest over OSDM: %#v", reply)
	}
	seats("booked", 2, 0)

	// Exchange offers to 709: the Exchange element, nothing held.
	reply = rt.post(&legacy.AvailabilityRequest{Header: header("RT-XA-"), Journey: rt.journey("709"), Places: places, ExchangeOf: br.BookingRef})
	ar, ok := reply.(*legacy.AvailabilityReply)
	if !ok || len(ar.Offers) != 1 || ar.Offers[0].Exchange == nil || ar.Offers[0].Exchange.Fee == nil || ar.Offers[0].Exchange.Fee.Amount != "1.80" {
		t.Fatalf("exchange offers over OSDM: %#v", reply)
	}
	seats("exchange offers", 2, 0)

	// The exchange: the new places, the old freed, the same BookingRef.
	reply = rt.post(&legacy.BookingRequest{Header: header("RT-XB-"), Journey: rt.journey("709"), Places: places,
		OfferRef: ar.Offers[0].OfferRef, ExchangeOf: br.BookingRef})
	xr, ok := reply.(*legacy.BookingReply)
	if !ok || xr.BookingRef != br.BookingRef || xr.ExchangeOf != br.BookingRef || len(xr.Places) != 2 || xr.Exchange == nil {
		t.Fatalf("exchange over OSDM: %#v", reply)
	}
	seats("exchanged", 0, 2)
	far := rt.confirmed()
	if len(far) != 1 {
		t.Fatalf("the far system holds %d bookings after the exchange", len(far))
	}
	for _, hb := range far {
		if hb.Train != "709" || hb.ReservationReference != xr.ReservationReference || hb.Names[0].LastName != "Lovelace" {
			t.Errorf("far booking %+v, exchange reply %+v", hb, xr)
		}
	}

	// The child's data, then the child's place cancelled alone.
	reply = rt.post(&legacy.PassengerDataRequest{Header: header("RT-P-"), BookingRef: br.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 2, FirstName: "Augusta", LastName: "King"}}})
	if _, ok := reply.(*legacy.PassengerDataReply); !ok {
		t.Errorf("passenger data over OSDM: %#v", reply)
	}
	for _, hb := range rt.confirmed() {
		if hb.Names[1].FirstName != "Augusta" {
			t.Errorf("far names %+v", hb.Names)
		}
	}
	cancelID := header("RT-C-")
	reply = rt.post(&legacy.CancelRequest{Header: cancelID, BookingRef: br.BookingRef, Places: xr.Places[1:]})
	cr, ok := reply.(*legacy.CancelReply)
	if !ok || cr.Status != legacy.StatusPartiallyRefunded || len(cr.Places) != 1 || cr.Places[0] != xr.Places[1] {
		t.Fatalf("partial cancellation over OSDM: %#v", reply)
	}
	seats("partly cancelled", 0, 1)
	reply = rt.post(&legacy.SynchroRequest{Header: header("RT-S-"), OriginalMessageID: cancelID.MessageID})
	if sr, ok := reply.(*legacy.SynchroReply); !ok || sr.State != legacy.StateDone {
		t.Errorf("synchronisation over OSDM: %#v", reply)
	}

	// The rest.
	reply = rt.post(&legacy.CancelRequest{Header: header("RT-C2-"), BookingRef: br.BookingRef})
	if cr, ok := reply.(*legacy.CancelReply); !ok || cr.Status != legacy.StatusRefunded {
		t.Errorf("cancellation of the rest over OSDM: %#v", reply)
	}
	seats("all cancelled", 0, 0)
	if len(rt.confirmed()) != 0 {
		t.Errorf("the far system holds %d bookings", len(rt.confirmed()))
	}
}
