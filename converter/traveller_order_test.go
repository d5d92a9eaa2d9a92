package converter

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// interleavedBooking is a fulfilled booking of travellers p1 (adult), p2
// (child) and p3 (adult) whose partner grouped the places by tariff, as
// osdm_legacy does: the adults' places first (11 for p1, 12 for p3), then
// the child's (13). The partner's passenger ids are its own. A refunded
// reservation of another place (20, p1's) comes first.
func interleavedBooking() *osdm.Booking {
	adult, child := 30, 8
	return &osdm.Booking{
		ID: "b-1",
		Passengers: []osdm.Passenger{
			{ID: "pa", ExternalRef: "p1", Type: osdm.PassengerAdult, Age: &adult},
			{ID: "pc", ExternalRef: "p2", Type: osdm.PassengerChild, Age: &child},
			{ID: "pb", ExternalRef: "p3", Type: osdm.PassengerAdult, Age: &adult},
		},
		BookedOffers: []osdm.BookedOffer{{Reservations: []osdm.Reservation{
			{BookingPart: osdm.BookingPart{ID: "r-old", Status: osdm.BookingPartRefunded, PassengerIDs: []string{"pa"}},
				PlaceAllocation: &osdm.PlaceAllocation{ReservedPlaces: []osdm.ReservedPlace{{CoachNumber: "3", PlaceNumbers: []string{"20"}, PassengerIDs: []string{"pa"}}}}},
			{BookingPart: osdm.BookingPart{ID: "r-1", Status: osdm.BookingPartFulfilled, PassengerIDs: []string{"pa", "pc", "pb"}},
				PlaceAllocation: &osdm.PlaceAllocation{ReservedPlaces: []osdm.ReservedPlace{{CoachNumber: "3", PlaceNumbers: []string{"11", "12", "13"}, PassengerIDs: []string{"pa", "pb", "pc"}}}}},
		}}},
		Fulfillments: []osdm.Fulfillment{{ID: "f-1", Status: osdm.FulfillmentFulfilled}},
	}
}

// TestPlacesInTravellerOrder: a BookingReply lists the places in the
// order of the legacy request's travellers (the first place the first
// traveller's), whatever order the partner grouped them in; a place whose
// passenger the partner does not name comes last.
func TestPlacesInTravellerOrder(t *testing.T) {
	b := interleavedBooking()
	numbers := func(ps []legacy.Place) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Number)
		}
		return out
	}
	if got, want := numbers(placesInTravellerOrder(b, true)), []string{"11", "13", "12"}; !reflect.DeepEqual(got, want) {
		t.Errorf("live places %v, want %v (p1's, p2's, p3's)", got, want)
	}
	if got, want := numbers(placesInTravellerOrder(b, false)), []string{"20", "11", "13", "12"}; !reflect.DeepEqual(got, want) {
		t.Errorf("all places %v, want %v", got, want)
	}
	rp := &b.BookedOffers[0].Reservations[1].PlaceAllocation.ReservedPlaces[0]
	rp.PlaceNumbers = append(rp.PlaceNumbers, "14") // four places, three passengers: no pairing
	b.BookedOffers[0].Reservations[1].PlaceAllocation.ReservedPlaces = append(b.BookedOffers[0].Reservations[1].PlaceAllocation.ReservedPlaces,
		osdm.ReservedPlace{CoachNumber: "4", PlaceNumbers: []string{"1"}, PassengerIDs: []string{"pc"}})
	if got, want := numbers(placesInTravellerOrder(b, true)), []string{"1", "11", "12", "13", "14"}; !reflect.DeepEqual(got, want) {
		t.Errorf("places with an unpaired reservedPlace %v, want %v", got, want)
	}
}

// TestExchangeNamesTravellersByTheirRefs: the exchange offer request
// names the booking's passengers in the travellers' order, by the
// externalRefs they were booked with and with their own types, however
// the partner grouped their places; the BookingReply's places follow the
// travellers too.
func TestExchangeNamesTravellersByTheirRefs(t *testing.T) {
	var asked *osdm.ExchangeOfferCollectionRequest
	x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) {
		switch c.Step {
		case StepReadBooking:
			return jsonAnswer(200, osdm.BookingResponse{Booking: interleavedBooking()}), nil
		case StepExchangeOffers:
			asked = new(osdm.ExchangeOfferCollectionRequest)
			if err := json.Unmarshal(c.Body, asked); err != nil {
				t.Fatal(err)
			}
			return jsonAnswer(200, osdm.ExchangeOfferCollectionResponse{}), nil
		}
		t.Errorf("unexpected step %s", c.Step)
		return nil, context.Canceled
	})
	places := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}, {Code: 1, Count: 1}}}
	res := testConverter(t, Config{}).Convert(context.Background(),
		&legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "XI-1"}, Journey: testJourney(), Places: places, ExchangeOf: "b-1"}, x)
	checkReply(t, res)
	if asked == nil {
		t.Fatalf("no exchange offers asked: %+v", res.Reply)
	}
	var got []string
	for _, s := range asked.AnonymousPassengerSpecifications {
		got = append(got, s.ExternalRef+" "+string(s.Type))
	}
	if want := []string{"p1 ADULT", "p2 CHILD", "p3 ADULT"}; !reflect.DeepEqual(got, want) {
		t.Errorf("exchange offers asked for %v, want %v", got, want)
	}
}

// TestPassengerDataIndexIsTheTraveller: a PassengerDataRequest's index i
// is the request's i-th traveller (externalRef pi), also when the partner
// lists the booking's passengers in another order; the reply lists them
// in the travellers' order.
func TestPassengerDataIndexIsTheTraveller(t *testing.T) {
	b := interleavedBooking()
	b.Passengers = []osdm.Passenger{b.Passengers[1], b.Passengers[2], b.Passengers[0]} // p2, p3, p1
	var patched []string
	x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) {
		switch c.Step {
		case StepReadBooking:
			return jsonAnswer(200, osdm.BookingResponse{Booking: b}), nil
		case StepPassenger:
			var p osdm.Passenger
			if err := json.Unmarshal(c.Body, &p); err != nil {
				t.Fatal(err)
			}
			patched = append(patched, c.Path)
			return jsonAnswer(200, osdm.PassengerResponse{Passenger: &p}), nil
		}
		t.Errorf("unexpected step %s", c.Step)
		return nil, context.Canceled
	})
	res := testConverter(t, Config{}).Convert(context.Background(), &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "PI-1"}, BookingRef: "b-1",
		Passengers: []legacy.PassengerData{{Index: 1, FirstName: "Ada", LastName: "Lovelace"}}}, x)
	checkReply(t, res)
	if want := []string{"/bookings/b-1/passengers/pa"}; !reflect.DeepEqual(patched, want) {
		t.Errorf("patched %v, want %v (the first traveller, p1)", patched, want)
	}
	reply, ok := res.Reply.(*legacy.PassengerDataReply)
	if !ok || len(reply.Passengers) != 3 || reply.Passengers[0].LastName != "Lovelace" {
		t.Errorf("reply %+v", res.Reply)
	}
}
