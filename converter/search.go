package converter

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// searchStep is the step of the route's offer search.
func (c *Converter) searchStep() Step {
	if c.offerSearch == OfferSearchTripOffers {
		return StepTripOffers
	}
	return StepOffers
}

// offerRequest is the POST /offers body for a legacy journey and places.
func offerRequest(j legacy.Journey, p legacy.PlaceRequest, departure time.Time, ts []traveller) *osdm.OfferCollectionRequest {
	return &osdm.OfferCollectionRequest{
		TripSearchCriteria: &osdm.TripSearchCriteria{
			DepartureTime: &departure,
			Origin:        osdm.NewStopPlaceRef(osdm.UICStation(j.From)),
			Destination:   osdm.NewStopPlaceRef(osdm.UICStation(j.To)),
			Parameters:    osdm.OnlyVehicles(j.TrainNumber),
		},
		OfferSearchCriteria: &osdm.OfferSearchCriteria{
			RequestedOfferParts: []osdm.OfferPartType{osdm.OfferPartReservation},
			TravelClasses:       []osdm.TravelClass{travelClass(p.TravelClass)},
		},
		AnonymousPassengerSpecifications: anonymous(ts),
	}
}

// travelClass is the OSDM travel class of a legacy one.
func travelClass(class int) osdm.TravelClass {
	if class == legacy.FirstClass {
		return osdm.TravelClassFirst
	}
	return osdm.TravelClassSecond
}

// search asks the partner for offers. A non-nil Result ends the exchange:
// a ReplacementProposal or a NegativeReply.
func (r *run) search(ctx context.Context, j legacy.Journey, p legacy.PlaceRequest, ts []traveller) (*offerAnswer, *Result) {
	departure, err := r.c.departureTime(j)
	if err != nil {
		return nil, r.invalid(err.Error())
	}
	step := r.c.searchStep()
	resp := new(offerAnswer)
	cl := call{step: step, out: resp}
	if step == StepTripOffers {
		cl.query = tripOffersQuery(j, p, departure, ts)
	} else {
		cl.body = offerRequest(j, p, departure, ts)
	}
	if f := r.do(ctx, cl); f != nil {
		if f.alternative() {
			return nil, r.replacement(f.problem)
		}
		return nil, r.fail(f)
	}
	if prob, code := firstProblem(step, resp.Problems); prob != nil {
		if prob.IsAlternativeSystemProposal() {
			return nil, r.replacement(prob)
		}
		if len(resp.Offers) == 0 {
			return nil, r.fail(&failure{step: step, code: code, problem: prob, status: 200,
				what: r.describeCall(step, "") + " answered 200 without offers" + describeProblem(prob)})
		}
	}
	return resp, nil
}

// candidate is an offer of the partner that matches the request, with its
// legacy form.
type candidate struct {
	offer  *answerOffer
	legacy legacy.Offer
	price  *osdm.Price // nil when unknown
}

// candidates returns the offers of resp that match the class and service
// code asked for, in the partner's order. An offer's class comes from its
// offerSummary or its reservation parts' products, its kind of place from
// its reservation parts' availablePlaces or its offerSummary; what the
// partner does not say is taken to be what was asked for (the search asked
// only for it). An offer whose parts include no reservation is not a place
// and is left out, as is one whose offerId a legacy OfferRef cannot carry.
func candidates(resp *offerAnswer, p legacy.PlaceRequest) []candidate {
	// Room for every offer: one allocation instead of growing 1, 2, 4...
	// (the slice lives only while the reply is made).
	out := make([]candidate, 0, len(resp.Offers))
	for i := range resp.Offers {
		o := &resp.Offers[i]
		if !legacy.ValidOfferRef(o.OfferID) {
			continue
		}
		if len(o.ReservationOfferParts) == 0 && len(o.AdmissionOfferParts) > 0 {
			continue
		}
		class := offerClass(o)
		if class == 0 {
			class = p.TravelClass
		}
		service := offerService(o)
		if service == 0 {
			service = p.ServiceCode
		}
		if class != p.TravelClass || service != p.ServiceCode {
			continue
		}
		price := offerPrice(o)
		out = append(out, candidate{offer: o, price: price, legacy: legacy.Offer{
			OfferRef:        o.OfferID,
			TravelClass:     class,
			ServiceCode:     service,
			Price:           legacyPrice(price),
			AvailablePlaces: offerAvailability(o),
			ValidUntil:      utc(o.PreBookableUntil),
		}})
	}
	return out
}

// offerClass is the legacy travel class of an offer: 1, 2, 0 when the
// partner does not say, -1 when it says something else.
func offerClass(o *answerOffer) int {
	tc := osdm.TravelClass("")
	if o.OfferSummary != nil {
		tc = o.OfferSummary.OverallTravelClass
	}
	for i := 0; tc == "" && i < len(o.ReservationOfferParts); i++ {
		for _, pl := range o.ReservationOfferParts[i].Products {
			if prod := o.product(pl.ProductID); prod != nil && prod.TravelClass != "" {
				tc = prod.TravelClass
				break
			}
		}
	}
	switch tc {
	case "":
		return 0
	case osdm.TravelClassFirst:
		return legacy.FirstClass
	case osdm.TravelClassSecond:
		return legacy.SecondClass
	}
	return -1
}

// offerService is the legacy service code of an offer: 1 seat, 2
// couchette, 3 berth, 0 when the partner does not say, -1 for another
// kind of place (a car, a bicycle space).
func offerService(o *answerOffer) int {
	at := osdm.AccommodationType("")
	for i := 0; at == "" && i < len(o.ReservationOfferParts); i++ {
		for _, ap := range o.ReservationOfferParts[i].AvailablePlaces {
			if ap.AccommodationType != "" {
				at = ap.AccommodationType
				break
			}
		}
	}
	if at == "" && o.OfferSummary != nil {
		at = o.OfferSummary.OverallAccommodationType
	}
	switch at {
	case "":
		return 0
	case osdm.AccommodationSeat:
		return legacy.ServiceSeat
	case osdm.AccommodationCouchette:
		return legacy.ServiceCouchette
	case osdm.AccommodationBerth, "SLEEPER":
		return legacy.ServiceBerth
	}
	return -1
}

// offerPrice is the offer's offerSummary.minimalPrice, else the sum of its
// parts' prices when they share currency and scale; nil when unknown.
func offerPrice(o *answerOffer) *osdm.Price {
	if o.OfferSummary != nil && o.OfferSummary.MinimalPrice.Currency != "" {
		p := o.OfferSummary.MinimalPrice
		return &p
	}
	var sum *osdm.Price
	add := func(p osdm.Price) bool {
		if sum == nil {
			sum = &osdm.Price{Currency: p.Currency, Amount: p.Amount, Scale: p.Scale}
			return true
		}
		if p.Currency != sum.Currency || p.EffectiveScale() != sum.EffectiveScale() {
			return false
		}
		total := sum.Amount + p.Amount
		if (p.Amount > 0 && total < sum.Amount) || (p.Amount < 0 && total > sum.Amount) {
			return false
		}
		sum.Amount = total
		return true
	}
	for i := range o.ReservationOfferParts {
		if !add(o.ReservationOfferParts[i].Price) {
			return nil
		}
	}
	for i := range o.AdmissionOfferParts {
		if !add(o.AdmissionOfferParts[i].Price) {
			return nil
		}
	}
	return sum
}

// legacyPrice is an OSDM price in legacy form; nil when it has none a
// legacy reply can carry: negative, an odd currency, more than 6 decimal
// places or 15 whole digits.
func legacyPrice(p *osdm.Price) *legacy.Price {
	if p == nil || p.Amount < 0 || !legacy.ValidCurrency(p.Currency) || p.EffectiveScale() > 6 {
		return nil
	}
	amount, err := p.Decimal()
	if err != nil {
		return nil
	}
	if whole, _, _ := strings.Cut(amount, "."); len(whole) > 15 {
		return nil
	}
	return &legacy.Price{Amount: amount, Currency: p.Currency}
}

// offerAvailability is the number of places left: the fewest over the
// offer's reservation parts, each its numericAvailability or else the sum
// over its availablePlaces; nil when the partner does not say.
func offerAvailability(o *answerOffer) *int {
	var least *int
	for i := range o.ReservationOfferParts {
		part := &o.ReservationOfferParts[i]
		n, known := 0, false
		if part.NumericAvailability != nil {
			n, known = *part.NumericAvailability, true
		} else {
			for _, ap := range part.AvailablePlaces {
				if ap.NumericAvailability != nil {
					n, known = n+*ap.NumericAvailability, true
				}
			}
		}
		if !known {
			continue
		}
		if n < 0 {
			n = 0
		}
		if least == nil || n < *least {
			v := n
			least = &v
		}
	}
	return least
}

// utc is t in UTC for a reply, or the zero time (left out) when t is zero
// or its UTC year is not one RFC 3339 can write.
func utc(t time.Time) time.Time {
	if t = t.UTC(); t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}
	}
	return t
}

// cheapest returns the candidate with the lowest price among those with
// enough places; priced offers before unpriced ones, and prices in
// different currencies are not compared (the earlier offer wins). ok is
// false when none has enough places.
func cheapest(cs []candidate, places int) (best candidate, ok bool) {
	var bestValue *big.Rat
	for _, c := range cs {
		if c.legacy.AvailablePlaces != nil && *c.legacy.AvailablePlaces < places {
			continue
		}
		if !ok {
			best, ok, bestValue = c, true, priceValue(c.price)
			continue
		}
		v := priceValue(c.price)
		if v == nil {
			continue
		}
		if bestValue == nil || (c.price.Currency == best.price.Currency && v.Cmp(bestValue) < 0) {
			best, bestValue = c, v
		}
	}
	return best, ok
}

// priceValue is the exact value of p, nil when unknown.
func priceValue(p *osdm.Price) *big.Rat {
	if p == nil || legacyPrice(p) == nil {
		return nil
	}
	denom := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p.EffectiveScale())), nil)
	return new(big.Rat).SetFrac(big.NewInt(p.Amount), denom)
}

// journeyTimes returns the HH:MM departure and arrival of the trip the
// offers cover, local at the request's stations: the first timed leg's
// boarding and the last timed leg's alighting (the trip's start and end
// when it has no timed leg). The trip is that of the first matching offer,
// else one that carries the train, else the only one; "" when unknown.
func (c *Converter) journeyTimes(resp *offerAnswer, cs []candidate, j legacy.Journey) (dep, arr string) {
	trip := findTrip(resp, cs, j.TrainNumber)
	if trip == nil {
		return "", ""
	}
	start, end := trip.StartTime, trip.EndTime
	var first, last *answerTimedLeg
	for i := range trip.Legs {
		if tl := trip.Legs[i].TimedLeg; tl != nil {
			if first == nil {
				first = tl
			}
			last = tl
		}
	}
	if first != nil {
		start, end = first.Start.ServiceDeparture.TimetabledTime, last.End.ServiceArrival.TimetabledTime
	}
	return c.localClock(start, j.From), c.localClock(end, j.To)
}

func findTrip(resp *offerAnswer, cs []candidate, train string) *answerTrip {
	byID := func(id string) *answerTrip {
		for i := range resp.Trips {
			if resp.Trips[i].ID == id {
				return &resp.Trips[i]
			}
		}
		return nil
	}
	for _, c := range cs {
		if tc := c.offer.TripCoverage; tc != nil {
			if t := byID(tc.CoveredTripID); t != nil {
				return t
			}
		}
	}
	for i := range resp.Trips {
		for _, leg := range resp.Trips[i].Legs {
			if leg.TimedLeg == nil {
				continue
			}
			for _, v := range leg.TimedLeg.Service.VehicleNumbers {
				if v == train {
					return &resp.Trips[i]
				}
			}
		}
	}
	if len(resp.Trips) == 1 {
		return &resp.Trips[0]
	}
	return nil
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
