package osdmlegacy

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// offerRecord is what an offer search tells about each offer it answers,
// so that POST /bookings can book it without searching again: everything
// the legacy BookingRequest needs, and what the booking's OSDM answer
// repeats. Nothing is stored: the record travels inside its offer id,
// signed (offer_id.go), and is bookable until ExpiresAt.
type offerRecord struct {
	// ID is the OSDM offerId: the record itself, encoded and signed
	// (offerSigner.seal). An id that was altered or forged does not verify and
	// is refused; nothing is sent.
	ID string `json:"id"`
	// Partner is the façade's partner label, signed with the id (not
	// written in it): an offer of another façade is not this one's.
	Partner string `json:"partner"`
	// Train is the train number, 1..5 characters.
	Train string `json:"train"`
	// ServiceDate is the legacy DepartureDate (YYYY-MM-DD, the local date of
	// departure from Origin).
	ServiceDate string `json:"serviceDate"`
	// Origin and Destination are 7-digit UIC station codes.
	Origin      string `json:"origin"`
	Destination string `json:"destination"`
	// OriginName and DestinationName are the stations' names, when known.
	OriginName      string `json:"originName,omitempty"`
	DestinationName string `json:"destinationName,omitempty"`
	// Departure and Arrival are the instants of the trip (Arrival zero when
	// the legacy system and the timetable did not tell).
	Departure time.Time `json:"departure"`
	Arrival   time.Time `json:"arrival,omitempty"`
	// DepartureClock is the legacy DepartureTime sent (HH:MM local), "" if none.
	DepartureClock string `json:"departureClock,omitempty"`
	// Carrier is the operator's RICS code, "" when unknown.
	Carrier string `json:"carrier,omitempty"`
	// TravelClass (1, 2) and ServiceCode (1 seat, 2 couchette, 3 berth)
	// are the legacy PlaceRequest's; ServiceLevel its element 308, if any.
	TravelClass  int    `json:"travelClass"`
	ServiceCode  int    `json:"serviceCode"`
	ServiceLevel string `json:"serviceLevel,omitempty"`
	// Passengers are the search's passengers with their legacy tariffs.
	Passengers []offerPassenger `json:"passengers"`
	// Price is the legacy price of all passengers together; OSDMPrice the
	// same as the offer showed it.
	Price     legacy.Price `json:"price"`
	OSDMPrice osdm.Price   `json:"osdmPrice"`
	// AvailablePlaces is the legacy system's count of places left, nil
	// when it did not say.
	AvailablePlaces *int `json:"availablePlaces,omitempty"`
	// LegacyOfferRef is the legacy AvailabilityReply's OfferRef, for the
	// BookingRequest's OfferRef; "" when it gave none.
	LegacyOfferRef string `json:"legacyOfferRef,omitempty"`
	// TripID, LegID, PartID and ProductID are the ids the offer answer used.
	TripID    string `json:"tripId"`
	LegID     string `json:"legId"`
	PartID    string `json:"partId"`
	ProductID string `json:"productId"`
	// CreatedOn is when the offer was made; ExpiresAt its preBookableUntil.
	CreatedOn time.Time `json:"createdOn"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// offerPassenger is one passenger of an offer.
type offerPassenger struct {
	// Ref is the search's externalRef, the offer's passengerRefs item.
	Ref string `json:"ref"`
	// Type is the OSDM passenger type; Age the age used for the tariff
	// (nil when the request gave none and the type's only rule applied).
	Type osdm.PassengerType `json:"type"`
	Age  *int               `json:"age,omitempty"`
	// DateOfBirth as the search gave it, "" when not.
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	// Tariff is the legacy tariff code.
	Tariff int `json:"tariff"`
}

// passenger returns the offer's passenger ref, nil when none.
func (r *offerRecord) passenger(ref string) *offerPassenger {
	for i := range r.Passengers {
		if r.Passengers[i].Ref == ref {
			return &r.Passengers[i]
		}
	}
	return nil
}

// Tariffs groups the passengers by tariff code, in order of first
// appearance, for the legacy PlaceRequest.
func (r *offerRecord) Tariffs() []legacy.Tariff {
	return tariffCounts(r.Passengers)
}

// placeOrder returns, for each place of the legacy PlaceRequest in order,
// the index in r.Passengers of the passenger it is booked for: the places
// follow the tariff groups (Tariffs), and within a group the passengers
// keep their order. With interleaved tariffs (adult, child, adult) the
// places are the first adult's, the second adult's, then the child's.
func (r *offerRecord) placeOrder() []int {
	out := make([]int, 0, len(r.Passengers))
	for _, t := range r.Tariffs() {
		for i, op := range r.Passengers {
			if op.Tariff == t.Code {
				out = append(out, i)
			}
		}
	}
	return out
}

func tariffCounts(pax []offerPassenger) []legacy.Tariff {
	var out []legacy.Tariff
	for _, p := range pax {
		found := false
		for i := range out {
			if out[i].Code == p.Tariff {
				out[i].Count++
				found = true
				break
			}
		}
		if !found {
			out = append(out, legacy.Tariff{Code: p.Tariff, Count: 1})
		}
	}
	return out
}

// Journey is the legacy journey of the offer.
func (r *offerRecord) Journey() legacy.Journey {
	return legacy.Journey{
		TrainNumber: r.Train, DepartureDate: r.ServiceDate, DepartureTime: r.DepartureClock,
		From: r.Origin, To: r.Destination, Carrier: r.Carrier,
	}
}

// PlaceRequest is the legacy place request of the offer.
func (r *offerRecord) PlaceRequest() legacy.PlaceRequest {
	return legacy.PlaceRequest{
		TravelClass: r.TravelClass, ServiceCode: r.ServiceCode, ServiceLevel: r.ServiceLevel,
		Tariffs: r.Tariffs(),
	}
}
