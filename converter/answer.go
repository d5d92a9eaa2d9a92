package converter

import (
	"bytes"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// decodeAnswer reads a partner's 2xx answer into out, an osdm type or the
// converter's view of one (offerAnswer), with the implementation behind
// encoding/json/v2. Against encoding/json it is strict where a partner's
// answer could be read two ways: member names match exactly as the OSDM
// spec writes them ("OfferId" is not "offerId"), an object may not repeat
// a name, strings must be valid UTF-8, times must be RFC 3339 as written
// (no comma before a fraction, no zone offset of 24 hours); nesting is
// bounded (10 000 levels). Members the types do not have are skipped, as
// OSDM lets a partner add its own: a skipped member is held to the JSON
// rules above (syntax, UTF-8, no repeated name), not to any type.
//
// Each string read is a copy of its own: what the converter puts in a
// legacy reply (an offerId, a currency) lives on in the reply cache and
// keeps no more of the partner's answer alive than that.
//
// An offerAnswer's offers start with room for as many as the answer has
// "offerId" names (at most 32; each offer has one, so the library does not
// grow the slice 1, 2, 4 on the way). An offer search answer that
// offerAnswer cannot read is read again into
// osdm.OfferCollectionResponse, whose error is returned: it names the
// first member in error by its osdm type, as for every other answer.
func decodeAnswer(body []byte, out any) error {
	view, _ := out.(*offerAnswer)
	if view != nil && view.Offers == nil {
		if n := bytes.Count(body, []byte(`"offerId"`)); n > 0 {
			view.Offers = make([]answerOffer, 0, min(n, 32))
		}
	}
	err := json.Unmarshal(body, out)
	if view != nil && err != nil {
		if fullErr := json.Unmarshal(body, new(osdm.OfferCollectionResponse)); fullErr != nil {
			return fullErr
		}
	}
	return err
}

// offerAnswer is what the converter reads of an offer search answer (an
// OSDM OfferCollectionResponse): the problems, and of the offers and trips
// only the members that make a legacy offer or the journey's times.
// decodeAnswer reads the members it has exactly as into the osdm types
// (each member here has the osdm field's JSON name and Go type, and the
// same nesting of structs, pointers and slices); the others it skips,
// held to the JSON rules (syntax, UTF-8, no repeated name) but not to
// their OSDM types: no string of theirs is copied, no time parsed, and
// an answer whose createdOn is not a date still gives its offers.
type offerAnswer struct {
	Problems []osdm.Problem `json:"problems"`
	Offers   []answerOffer  `json:"offers"`
	Trips    []answerTrip   `json:"trips"`
}

// answerOffer is what the converter reads of an osdm.Offer.
type answerOffer struct {
	OfferID               string                  `json:"offerId"`
	OfferSummary          *answerOfferSummary     `json:"offerSummary"`
	PreBookableUntil      time.Time               `json:"preBookableUntil"`
	Products              []answerProduct         `json:"products"`
	TripCoverage          *answerTripCoverage     `json:"tripCoverage"`
	AdmissionOfferParts   []answerAdmissionPart   `json:"admissionOfferParts"`
	ReservationOfferParts []answerReservationPart `json:"reservationOfferParts"`
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

// answerOfferSummary is what the converter reads of an osdm.OfferSummary.
type answerOfferSummary struct {
	MinimalPrice             osdm.Price             `json:"minimalPrice"`
	OverallTravelClass       osdm.TravelClass       `json:"overallTravelClass"`
	OverallAccommodationType osdm.AccommodationType `json:"overallAccommodationType"`
}

// answerProduct is what the converter reads of an osdm.Product.
type answerProduct struct {
	ID          string           `json:"id"`
	TravelClass osdm.TravelClass `json:"travelClass"`
}

// answerTripCoverage is what the converter reads of an osdm.TripCoverage.
type answerTripCoverage struct {
	CoveredTripID string `json:"coveredTripId"`
}

// answerAdmissionPart is what the converter reads of an
// osdm.AdmissionOfferPart: its price (an offer's price may be the sum of
// its parts').
type answerAdmissionPart struct {
	Price osdm.Price `json:"price"`
}

// answerReservationPart is what the converter reads of an
// osdm.ReservationOfferPart.
type answerReservationPart struct {
	Price               osdm.Price              `json:"price"`
	NumericAvailability *int                    `json:"numericAvailability"`
	Products            []answerProductLink     `json:"products"`
	AvailablePlaces     []answerAvailablePlaces `json:"availablePlaces"`
}

// answerProductLink is what the converter reads of an
// osdm.ProductLegAssociation.
type answerProductLink struct {
	ProductID string `json:"productId"`
}

// answerAvailablePlaces is what the converter reads of an
// osdm.AvailablePlace.
type answerAvailablePlaces struct {
	AccommodationType   osdm.AccommodationType `json:"accommodationType"`
	NumericAvailability *int                   `json:"numericAvailability"`
}

// answerTrip is what the converter reads of an osdm.Trip.
type answerTrip struct {
	ID        string          `json:"id"`
	StartTime time.Time       `json:"startTime"`
	EndTime   time.Time       `json:"endTime"`
	Legs      []answerTripLeg `json:"legs"`
}

// answerTripLeg is what the converter reads of an osdm.TripLeg.
type answerTripLeg struct {
	TimedLeg *answerTimedLeg `json:"timedLeg"`
}

// answerTimedLeg is what the converter reads of an osdm.TimedLeg.
type answerTimedLeg struct {
	Start   answerBoard   `json:"start"`
	End     answerAlight  `json:"end"`
	Service answerService `json:"service"`
}

// answerBoard is what the converter reads of an osdm.Board.
type answerBoard struct {
	ServiceDeparture answerServiceTime `json:"serviceDeparture"`
}

// answerAlight is what the converter reads of an osdm.Alight.
type answerAlight struct {
	ServiceArrival answerServiceTime `json:"serviceArrival"`
}

// answerServiceTime is what the converter reads of an osdm.ServiceTime.
type answerServiceTime struct {
	TimetabledTime time.Time `json:"timetabledTime"`
}

// answerService is what the converter reads of an osdm.DatedJourney.
type answerService struct {
	VehicleNumbers []string `json:"vehicleNumbers"`
}

// offerAnswerOf is the converter's view of an offer collection already
// read into the osdm types (the offers of an exchange offer search).
func offerAnswerOf(r *osdm.OfferCollectionResponse) *offerAnswer {
	a := &offerAnswer{Problems: r.Problems, Offers: make([]answerOffer, len(r.Offers)), Trips: make([]answerTrip, len(r.Trips))}
	for i := range r.Offers {
		o := &r.Offers[i]
		ao := &a.Offers[i]
		ao.OfferID, ao.PreBookableUntil = o.OfferID, o.PreBookableUntil
		if s := o.OfferSummary; s != nil {
			ao.OfferSummary = &answerOfferSummary{MinimalPrice: s.MinimalPrice,
				OverallTravelClass: s.OverallTravelClass, OverallAccommodationType: s.OverallAccommodationType}
		}
		for _, p := range o.Products {
			ao.Products = append(ao.Products, answerProduct{ID: p.ID, TravelClass: p.TravelClass})
		}
		if tc := o.TripCoverage; tc != nil {
			ao.TripCoverage = &answerTripCoverage{CoveredTripID: tc.CoveredTripID}
		}
		for _, p := range o.AdmissionOfferParts {
			ao.AdmissionOfferParts = append(ao.AdmissionOfferParts, answerAdmissionPart{Price: p.Price})
		}
		for _, p := range o.ReservationOfferParts {
			rp := answerReservationPart{Price: p.Price, NumericAvailability: p.NumericAvailability}
			for _, l := range p.Products {
				rp.Products = append(rp.Products, answerProductLink{ProductID: l.ProductID})
			}
			for _, ap := range p.AvailablePlaces {
				rp.AvailablePlaces = append(rp.AvailablePlaces, answerAvailablePlaces{AccommodationType: ap.AccommodationType,
					NumericAvailability: ap.NumericAvailability})
			}
			ao.ReservationOfferParts = append(ao.ReservationOfferParts, rp)
		}
	}
	for i := range r.Trips {
		t := &r.Trips[i]
		at := &a.Trips[i]
		at.ID, at.StartTime, at.EndTime = t.ID, t.StartTime, t.EndTime
		for _, l := range t.Legs {
			var al answerTripLeg
			if tl := l.TimedLeg; tl != nil {
				al.TimedLeg = &answerTimedLeg{
					Start:   answerBoard{ServiceDeparture: answerServiceTime{TimetabledTime: tl.Start.ServiceDeparture.TimetabledTime}},
					End:     answerAlight{ServiceArrival: answerServiceTime{TimetabledTime: tl.End.ServiceArrival.TimetabledTime}},
					Service: answerService{VehicleNumbers: tl.Service.VehicleNumbers},
				}
			}
			at.Legs = append(at.Legs, al)
		}
	}
	return a
}
