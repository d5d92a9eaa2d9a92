package converter

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/converter/osdm"
)

// offerAnswer is what the converter reads of the answer to an offer search
// (an osdm.OfferCollectionResponse, from POST /offers or GET /trip-offers).
// Decoding these fields only, not the whole osdm type, skips the
// partner's summaries, product codes, passenger refs and fulfilment
// options unread: an availability exchange makes about 100 fewer
// allocations. JSON names are those of the osdm types.
type offerAnswer struct {
	Problems []osdm.Problem `json:"problems"`
	Offers   []answerOffer  `json:"offers"`
	Trips    []answerTrip   `json:"trips"`
}

type answerOffer struct {
	OfferID          string              `json:"offerId"`
	OfferSummary     *answerOfferSummary `json:"offerSummary"`
	PreBookableUntil time.Time           `json:"preBookableUntil"`
	Products         []answerProduct     `json:"products"`
	TripCoverage     *osdm.TripCoverage  `json:"tripCoverage"`
	// ReservationOfferParts and AdmissionOfferParts share the fields read.
	ReservationOfferParts []answerOfferPart `json:"reservationOfferParts"`
	AdmissionOfferParts   []answerOfferPart `json:"admissionOfferParts"`
}

type answerOfferSummary struct {
	MinimalPrice             osdm.Price             `json:"minimalPrice"`
	OverallTravelClass       osdm.TravelClass       `json:"overallTravelClass"`
	OverallAccommodationType osdm.AccommodationType `json:"overallAccommodationType"`
}

type answerProduct struct {
	ID          string           `json:"id"`
	TravelClass osdm.TravelClass `json:"travelClass"`
}

type answerOfferPart struct {
	Price               osdm.Price `json:"price"`
	NumericAvailability *int       `json:"numericAvailability"`
	Products            []struct {
		ProductID string `json:"productId"`
	} `json:"products"`
	AvailablePlaces []struct {
		AccommodationType   osdm.AccommodationType `json:"accommodationType"`
		NumericAvailability *int                   `json:"numericAvailability"`
	} `json:"availablePlaces"`
}

// product returns the offer's product with the given id, or nil.
func (o *answerOffer) product(id string) *answerProduct {
	for i := range o.Products {
		if o.Products[i].ID == id {
			return &o.Products[i]
		}
	}
	return nil
}

type answerTrip struct {
	ID        string    `json:"id"`
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
	Legs      []struct {
		TimedLeg *answerTimedLeg `json:"timedLeg"`
	} `json:"legs"`
}

type answerTimedLeg struct {
	Start struct {
		ServiceDeparture struct {
			TimetabledTime time.Time `json:"timetabledTime"`
		} `json:"serviceDeparture"`
	} `json:"start"`
	End struct {
		ServiceArrival struct {
			TimetabledTime time.Time `json:"timetabledTime"`
		} `json:"serviceArrival"`
	} `json:"end"`
	Service struct {
		VehicleNumbers []string `json:"vehicleNumbers"`
	} `json:"service"`
}
