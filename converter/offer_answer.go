package converter

import (
	"encoding/json"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// offerAnswer is what the converter reads of the answer to an offer search
// (an osdm.OfferCollectionResponse, from POST /offers or GET /trip-offers).
// Reading these fields only, not the whole osdm type, leaves the
// partner's summaries, product codes, passenger refs and fulfilment
// options unread, and jsonReader reads them in one pass, in a quarter of
// the time encoding/json takes (BenchmarkOfferAnswer). JSON names are
// those of the osdm types.
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
	Price               osdm.Price          `json:"price"`
	NumericAvailability *int                `json:"numericAvailability"`
	Products            []answerPartProduct `json:"products"`
	AvailablePlaces     []answerPlaces      `json:"availablePlaces"`
}

type answerPartProduct struct {
	ProductID string `json:"productId"`
}

type answerPlaces struct {
	AccommodationType   osdm.AccommodationType `json:"accommodationType"`
	NumericAvailability *int                   `json:"numericAvailability"`
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
	ID        string      `json:"id"`
	StartTime time.Time   `json:"startTime"`
	EndTime   time.Time   `json:"endTime"`
	Legs      []answerLeg `json:"legs"`
}

type answerLeg struct {
	TimedLeg *answerTimedLeg `json:"timedLeg"`
}

type answerTimedLeg struct {
	Start   answerLegStart   `json:"start"`
	End     answerLegEnd     `json:"end"`
	Service answerLegService `json:"service"`
}

type answerLegStart struct {
	ServiceDeparture answerServiceTime `json:"serviceDeparture"`
}

type answerLegEnd struct {
	ServiceArrival answerServiceTime `json:"serviceArrival"`
}

type answerServiceTime struct {
	TimetabledTime time.Time `json:"timetabledTime"`
}

type answerLegService struct {
	VehicleNumbers []string `json:"vehicleNumbers"`
}

// decodeJSON reads the answer with a jsonReader; the problems, rare in a
// 200, are left to encoding/json.
func (a *offerAnswer) decodeJSON(body []byte) error {
	r := newJSONReader(body)
	r.object(func(name []byte) {
		switch string(name) {
		case "problems":
			if raw := r.raw(); raw != nil {
				a.Problems = nil
				if err := json.Unmarshal(raw, &a.Problems); err != nil {
					r.fail(err.Error())
				}
			}
		case "offers":
			a.Offers = readSlice(r, (*answerOffer).read)
		case "trips":
			a.Trips = readSlice(r, (*answerTrip).read)
		default:
			r.skip()
		}
	})
	return r.end()
}

// readSlice reads an array into a new slice as encoding/json would: null
// is a nil slice, [] an empty one.
func readSlice[T any](r *jsonReader, read func(*T, *jsonReader)) []T {
	if r.null() {
		return nil
	}
	out := []T{}
	r.array(func() {
		var v T
		read(&v, r)
		out = append(out, v)
	})
	return out
}

func (o *answerOffer) read(r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "offerId":
			o.OfferID = r.str()
		case "offerSummary":
			if r.null() {
				o.OfferSummary = nil
			} else {
				if o.OfferSummary == nil {
					o.OfferSummary = new(answerOfferSummary)
				}
				o.OfferSummary.read(r)
			}
		case "preBookableUntil":
			o.PreBookableUntil = r.time()
		case "products":
			o.Products = readSlice(r, (*answerProduct).read)
		case "tripCoverage":
			if r.null() {
				o.TripCoverage = nil
			} else {
				if o.TripCoverage == nil {
					o.TripCoverage = new(osdm.TripCoverage)
				}
				readTripCoverage(o.TripCoverage, r)
			}
		case "reservationOfferParts":
			o.ReservationOfferParts = readSlice(r, (*answerOfferPart).read)
		case "admissionOfferParts":
			o.AdmissionOfferParts = readSlice(r, (*answerOfferPart).read)
		default:
			r.skip()
		}
	})
}

func (s *answerOfferSummary) read(r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "minimalPrice":
			readPrice(&s.MinimalPrice, r)
		case "overallTravelClass":
			s.OverallTravelClass = osdm.TravelClass(r.str())
		case "overallAccommodationType":
			s.OverallAccommodationType = osdm.AccommodationType(r.str())
		default:
			r.skip()
		}
	})
}

func (p *answerProduct) read(r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "id":
			p.ID = r.str()
		case "travelClass":
			p.TravelClass = osdm.TravelClass(r.str())
		default:
			r.skip()
		}
	})
}

func (p *answerOfferPart) read(r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "price":
			readPrice(&p.Price, r)
		case "numericAvailability":
			p.NumericAvailability = r.intPtr()
		case "products":
			p.Products = readSlice(r, (*answerPartProduct).read)
		case "availablePlaces":
			p.AvailablePlaces = readSlice(r, (*answerPlaces).read)
		default:
			r.skip()
		}
	})
}

func (p *answerPartProduct) read(r *jsonReader) {
	r.object(func(name []byte) {
		if string(name) == "productId" {
			p.ProductID = r.str()
		} else {
			r.skip()
		}
	})
}

func (p *answerPlaces) read(r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "accommodationType":
			p.AccommodationType = osdm.AccommodationType(r.str())
		case "numericAvailability":
			p.NumericAvailability = r.intPtr()
		default:
			r.skip()
		}
	})
}

func (t *answerTrip) read(r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "id":
			t.ID = r.str()
		case "startTime":
			t.StartTime = r.time()
		case "endTime":
			t.EndTime = r.time()
		case "legs":
			t.Legs = readSlice(r, (*answerLeg).read)
		default:
			r.skip()
		}
	})
}

func (l *answerLeg) read(r *jsonReader) {
	r.object(func(name []byte) {
		if string(name) != "timedLeg" {
			r.skip()
			return
		}
		if r.null() {
			l.TimedLeg = nil
		} else {
			if l.TimedLeg == nil {
				l.TimedLeg = new(answerTimedLeg)
			}
			l.TimedLeg.read(r)
		}
	})
}

func (t *answerTimedLeg) read(r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "start":
			r.object(func(name []byte) {
				if string(name) == "serviceDeparture" {
					t.Start.ServiceDeparture.read(r)
				} else {
					r.skip()
				}
			})
		case "end":
			r.object(func(name []byte) {
				if string(name) == "serviceArrival" {
					t.End.ServiceArrival.read(r)
				} else {
					r.skip()
				}
			})
		case "service":
			r.object(func(name []byte) {
				if string(name) == "vehicleNumbers" {
					t.Service.VehicleNumbers = r.strings()
				} else {
					r.skip()
				}
			})
		default:
			r.skip()
		}
	})
}

func (s *answerServiceTime) read(r *jsonReader) {
	r.object(func(name []byte) {
		if string(name) == "timetabledTime" {
			s.TimetabledTime = r.time()
		} else {
			r.skip()
		}
	})
}

func readPrice(p *osdm.Price, r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "currency":
			p.Currency = r.str()
		case "amount":
			p.Amount = r.int64()
		case "scale":
			p.Scale = r.intPtr()
		default:
			r.skip()
		}
	})
}

func readTripCoverage(c *osdm.TripCoverage, r *jsonReader) {
	r.object(func(name []byte) {
		switch string(name) {
		case "coveredTripId":
			c.CoveredTripID = r.str()
		case "coveredLegIds":
			c.CoveredLegIDs = r.strings()
		default:
			r.skip()
		}
	})
}
