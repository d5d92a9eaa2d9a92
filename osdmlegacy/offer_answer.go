package osdmlegacy

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// probeResult is what one probe's reply means for the answer.
type probeResult struct {
	offer   *legacy.Offer      // a bookable offer
	soldOut bool               // no places (no offer, too few, NO_AVAILABILITY)
	problem *osdm.ProblemError // why there is no offer otherwise
	alt     []legacy.Alternative
}

// probeSubject names a probe: "train 9203 on 2026-12-01, 2nd class seat".
func probeSubject(p *probe) string {
	return p.cand.subject() + ", " + legacy.ClassName(p.class) + " " + legacy.ServiceName(p.service)
}

// read interprets a probe's reply.
func (o *offers) read(p *probe, passengers int, currency string) probeResult {
	subject := probeSubject(p)
	if p.err != nil {
		return probeResult{problem: sendProblem(o.cfg.Partner, p.err, subject)}
	}
	switch r := p.reply.(type) {
	case *legacy.AvailabilityReply:
		o.learnTimes(p.cand, r.Journey)
		var best *legacy.Offer
		for i := range r.Offers {
			offer := &r.Offers[i]
			if offer.TravelClass != p.class || offer.ServiceCode != p.service || offer.Price == nil {
				continue
			}
			if offer.AvailablePlaces != nil && *offer.AvailablePlaces < passengers {
				continue
			}
			if best == nil || cheaper(offer.Price, best.Price) {
				best = offer
			}
		}
		if best == nil {
			return probeResult{soldOut: true}
		}
		if currency != "" && best.Price.Currency != currency {
			return probeResult{problem: restricted(RestrictReservations, osdm.CodeOfferOutOfBounds, "#/offerSearchCriteria/currency",
				subject+": prices are in "+best.Price.Currency+", not "+currency)}
		}
		if _, err := osdmPrice(*best.Price); err != nil {
			return probeResult{problem: sendProblem(o.cfg.Partner, &SendError{Kind: ErrLegacyGarbage, Err: err}, subject)}
		}
		return probeResult{offer: best}
	case *legacy.ReplacementProposal:
		if len(r.Alternatives) == 0 {
			break
		}
		return probeResult{alt: r.Alternatives}
	case *legacy.NegativeReply:
		if r.Code == legacy.CodeNoAvailability {
			return probeResult{soldOut: true}
		}
		return probeResult{problem: NegativeProblem(r, subject)}
	}
	return probeResult{problem: sendProblem(o.cfg.Partner, &SendError{Kind: ErrLegacyGarbage,
		Err: errors.New("an unusable " + string(p.reply.Kind()) + " to an offer search")}, subject)}
}

// cheaper compares two legacy prices of one currency.
func cheaper(a, b *legacy.Price) bool {
	pa, errA := osdmPrice(*a)
	pb, errB := osdmPrice(*b)
	return errA == nil && (errB != nil || pa.Amount*pow10(pb.EffectiveScale()) < pb.Amount*pow10(pa.EffectiveScale()))
}

func pow10(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

// learnTimes fills a candidate's unknown times from a reply's journey
// (HH:MM local at each station on the departure date; an arrival clock
// not after the departure's is on a later day).
func (o *offers) learnTimes(c *candidate, j legacy.ReplyJourney) {
	oloc := stationLocation(o.tt, c.run.Origin, o.cfg.Location)
	day, err := time.ParseInLocation(time.DateOnly, c.run.ServiceDate, oloc)
	if err != nil {
		return
	}
	if c.run.Departure.IsZero() {
		if t, ok := atClock(day, j.DepartureTime, oloc); ok {
			c.run.Departure = t
		}
	}
	if c.run.Arrival.IsZero() && !c.run.Departure.IsZero() {
		dloc := stationLocation(o.tt, c.run.Destination, o.cfg.Location)
		if t, ok := atClock(day, j.ArrivalTime, dloc); ok {
			for i := 0; i < 3 && !t.After(c.run.Departure); i++ {
				t = t.AddDate(0, 0, 1)
			}
			if t.After(c.run.Departure) {
				c.run.Arrival = t
			}
		}
	}
	if c.run.Carrier == "" && j.Carrier != "" {
		c.run.Carrier = j.Carrier
	}
}

// atClock is day's date at clock "HH:MM" in loc.
func atClock(day time.Time, clock string, loc *time.Location) (time.Time, bool) {
	t, err := time.Parse("15:04", clock)
	if err != nil {
		return time.Time{}, false
	}
	y, m, d := day.Date()
	return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, loc), true
}

// osdmPrice converts a legacy price ("49.90" EUR) to OSDM's (4990, scale 2).
func osdmPrice(p legacy.Price) (osdm.Price, error) {
	whole, frac, _ := strings.Cut(p.Amount, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) || len(frac) > 6 || len(whole)+len(frac) > 9 {
		return osdm.Price{}, errors.New("price " + strconv.Quote(shorten(p.Amount, 20)) + " is not a decimal amount OSDM can carry")
	}
	if len(p.Currency) != 3 || !allLetters(p.Currency) {
		return osdm.Price{}, errors.New("currency " + strconv.Quote(shorten(p.Currency, 10)) + " is not ISO 4217")
	}
	n, err := strconv.ParseInt(whole+frac, 10, 32)
	if err != nil {
		return osdm.Price{}, err
	}
	scale := len(frac)
	if scale < osdm.DefaultScale {
		n *= pow10(osdm.DefaultScale - scale)
		scale = osdm.DefaultScale
	}
	return osdm.NewPrice(n, scale, p.Currency), nil
}

// searchAnswer assembles the OSDM answer of an offer search from its
// probes: an offerRecord per offer, sealed into its offer id.
type searchAnswer struct {
	f      *offers
	c      *call
	now    time.Time
	pax    []offerPassenger
	refs   []string
	resp   osdm.OfferCollectionResponse
	tripOf map[*candidate]int
	// signer signs the offer ids (offer_id.go).
	signer *offerSigner
	// failures are the probes without an offer that are not sold out or
	// not run, worst first when the answer fails.
	failures []*osdm.ProblemError
	soldOut  int
	notRun   int
	pointers []osdm.ProblemPointer
	// changes is set once a journey with changes has a trip.
	changes bool
	// altTold are the journeys' trains whose proposal is told, altJourney
	// their count.
	altTold    map[*candidate]bool
	altJourney int
}

// answer builds the answer to q from probes, its offer ids signed by
// signer.
func (o *offers) answer(c *call, q *offerRequest, probes []*probe, pax []offerPassenger, signer *offerSigner, ts *tripSet, legProbes []*probe) *Answer {
	sa, p := o.collect(c, q, probes, pax, signer, ts, legProbes)
	if p != nil {
		return problemAnswer(p)
	}
	return o.json(c, http.StatusOK, sa.resp)
}

// collect builds the offers, trips and problems of q from probes (of the
// direct trains) and legProbes (of the trains of ts's journeys with
// changes; ts may be nil when there are none), or the problem that no
// train gave an offer or a proposal.
func (o *offers) collect(c *call, q *offerRequest, probes []*probe, pax []offerPassenger, signer *offerSigner, ts *tripSet, legProbes []*probe) (*searchAnswer, *osdm.ProblemError) {
	sa := &searchAnswer{f: o, c: c, now: c.now, pax: pax, tripOf: map[*candidate]int{}, signer: signer}
	for _, p := range pax {
		sa.refs = append(sa.refs, p.Ref)
		sa.resp.AnonymousPassengerSpecifications = append(sa.resp.AnonymousPassengerSpecifications, p.spec())
	}
	alts := map[*candidate][]legacy.Alternative{}
	var altOrder []*candidate
	for _, p := range probes {
		res := o.read(p, len(pax), q.currency)
		switch {
		case res.offer != nil:
			sa.addOffer(p, res.offer)
		case res.alt != nil:
			if _, seen := alts[p.cand]; !seen {
				// The trip now, so trips stay in order of departure; the
				// problem once every class's proposal is in.
				altOrder = append(altOrder, p.cand)
				if !p.cand.run.Departure.IsZero() && !p.cand.run.Arrival.IsZero() {
					sa.trip(p.cand)
				}
			}
			for _, a := range res.alt {
				if a.TravelClass == 0 && len(q.classes) == 1 {
					a.TravelClass = p.class
				}
				alts[p.cand] = appendAlternative(alts[p.cand], a, p.cand.run.Train)
			}
		case res.soldOut:
			sa.soldOut++
			sa.note(p, osdm.CodeInsufficientAvailability, "no places left for "+strconv.Itoa(len(pax))+" passengers")
		case res.problem.Code == osdm.CodeTripNotFound:
			sa.notRun++
			sa.note(p, osdm.CodeTripNotFound, "the reservation system does not run this train between these stations on this date")
		default:
			sa.failures = append(sa.failures, res.problem)
			sa.note(p, res.problem.Code, strings.TrimPrefix(res.problem.Detail, probeSubject(p)+": "))
		}
	}
	if ts != nil && len(ts.journeys) > 0 {
		sa.addJourneys(q, ts, legProbes)
		if sa.changes {
			sa.sortTrips()
		}
	}
	for _, cand := range altOrder {
		sa.addAlternative(cand, alts[cand])
	}
	if len(sa.resp.Offers) == 0 && len(altOrder) == 0 && sa.altJourney == 0 {
		return nil, sa.failure(q)
	}
	// Trains without an offer are told about in the problems, one per
	// train, class and service code.
	for _, ptr := range sa.pointers {
		sa.resp.Problems = append(sa.resp.Problems, osdm.Problem{
			Code: ptr.Code, Type: osdm.ProblemType(ptr.Code), Title: osdm.ProblemTitle(ptr.Code), Detail: ptr.Detail,
			Pointers: pointerList(ptr.RequestPointer),
		})
	}
	return sa, nil
}

func pointerList(requestPointer string) []osdm.ProblemPointer {
	if requestPointer == "" {
		return nil
	}
	return []osdm.ProblemPointer{{RequestPointer: requestPointer}}
}

// note records why a probe gave no offer.
func (sa *searchAnswer) note(p *probe, code, why string) {
	sa.pointers = append(sa.pointers, osdm.ProblemPointer{
		Code: code, Detail: probeSubject(p) + ": " + why, RequestPointer: p.cand.ptr,
	})
}

// failure is the problem of a search without any offer: the first failure
// of the legacy system (retry later), else insufficient availability when
// a train was sold out, else no results; its pointers tell every train's
// fate.
func (sa *searchAnswer) failure(q *offerRequest) *osdm.ProblemError {
	var p *osdm.ProblemError
	switch {
	case len(sa.failures) > 0:
		p = worst(sa.failures)
		cp := *p
		p = &cp
		p.Detail = "no offer: " + p.Detail
	case sa.soldOut > 0:
		p = osdm.NewProblem(http.StatusConflict, osdm.CodeInsufficientAvailability, "no train asked has places left for "+passengerCount(len(sa.pax)))
	default:
		p = osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNoResults, "the reservation system runs none of the trains asked between "+q.origin+" and "+q.destination+" on that date")
	}
	p.Pointers = append([]osdm.ProblemPointer(nil), sa.pointers...)
	return p
}

// worst picks the failure to answer: a timeout, then unavailability, then
// the rest in order.
func worst(ps []*osdm.ProblemError) *osdm.ProblemError {
	for _, status := range []int{http.StatusGatewayTimeout, http.StatusServiceUnavailable} {
		for _, p := range ps {
			if p.Status == status {
				return p
			}
		}
	}
	return ps[0]
}

// appendAlternative adds a legacy alternative to a train's list, merging
// the same system and operator into one proposal's scopes.
func appendAlternative(list []legacy.Alternative, a legacy.Alternative, train string) []legacy.Alternative {
	if a.TrainNumber == "" {
		a.TrainNumber = train
	}
	for _, b := range list {
		if b == a {
			return list
		}
	}
	return append(list, a)
}

// trip returns the index of the candidate's trip in the answer, adding it.
func (sa *searchAnswer) trip(c *candidate) int {
	if i, ok := sa.tripOf[c]; ok {
		return i
	}
	run := c.run
	origin, dest := osdm.NewStopPlaceRef(osdm.UICStation(run.Origin)), osdm.NewStopPlaceRef(osdm.UICStation(run.Destination))
	carrier := carrierRef(run.Carrier)
	dur := isoDuration(run.Arrival.Sub(run.Departure))
	id := "trip-" + strconv.Itoa(len(sa.resp.Trips)+1)
	sa.resp.Trips = append(sa.resp.Trips, osdm.Trip{
		ID: id, Duration: dur, Origin: &origin, Destination: &dest,
		StartTime: run.Departure, EndTime: run.Arrival, Transfers: 0,
		Legs: []osdm.TripLeg{{ID: id + "-leg-1", TimedLeg: &osdm.TimedLeg{
			Start: osdm.Board{StopPlaceRef: origin, StopPlaceName: nameOr(run.OriginName, run.Origin),
				ServiceDeparture: osdm.ServiceTime{TimetabledTime: run.Departure}},
			End: osdm.Alight{StopPlaceRef: dest, StopPlaceName: nameOr(run.DestinationName, run.Destination),
				ServiceArrival: osdm.ServiceTime{TimetabledTime: run.Arrival}},
			Service:  osdm.DatedJourney{VehicleNumbers: []string{run.Train}, Carriers: []osdm.NamedCompany{{Ref: carrier}}},
			Duration: dur,
		}}},
	})
	sa.tripOf[c] = len(sa.resp.Trips) - 1
	return len(sa.resp.Trips) - 1
}

// addOffer adds the OSDM offer of a probe's legacy offer and its record.
func (sa *searchAnswer) addOffer(p *probe, lo *legacy.Offer) {
	f, c := sa.f, p.cand
	if c.run.Departure.IsZero() || c.run.Arrival.IsZero() {
		sa.failures = append(sa.failures, sendProblem(f.cfg.Partner, &SendError{Kind: ErrLegacyGarbage}, probeSubject(p)))
		sa.note(p, osdm.CodeBadGateway, "the reservation system gave no departure or arrival time")
		return
	}
	// Whole seconds: the id carries them in fewer bytes, and an offer
	// expires at most a second early.
	created := sa.now.Truncate(time.Second)
	until := sa.now.Add(f.cfg.OfferTTL)
	if !lo.ValidUntil.IsZero() && lo.ValidUntil.Before(until) {
		until = lo.ValidUntil
	}
	if c.run.Departure.Before(until) {
		until = c.run.Departure
	}
	until = until.Truncate(time.Second)
	if !until.After(sa.now) {
		sa.soldOut++
		sa.note(p, osdm.CodeInsufficientAvailability, "the train has left or the offer expired")
		return
	}
	price, _ := osdmPrice(*lo.Price)
	ti := sa.trip(c)
	trip := &sa.resp.Trips[ti]
	legID := trip.Legs[0].ID
	rec := &offerRecord{
		Partner: f.cfg.Partner,
		Train:   c.run.Train, ServiceDate: c.run.ServiceDate, Origin: c.run.Origin, Destination: c.run.Destination,
		OriginName: c.run.OriginName, DestinationName: c.run.DestinationName,
		Departure: c.run.Departure, Arrival: c.run.Arrival,
		DepartureClock: c.clock(stationLocation(f.tt, c.run.Origin, f.cfg.Location)), Carrier: c.run.Carrier,
		TravelClass: p.class, ServiceCode: p.service, ServiceLevel: lo.ServiceLevel,
		Passengers: sa.pax, Price: *lo.Price, OSDMPrice: price, AvailablePlaces: lo.AvailablePlaces,
		LegacyOfferRef: lo.OfferRef, TripID: trip.ID, LegID: legID,
		CreatedOn: created, ExpiresAt: until,
	}
	rec.PartID, rec.ProductID = offerPartIDs(trip.ID, p.class, p.service)
	rec.ID = sa.signer.seal(rec, sa.c.client)
	sa.resp.Offers = append(sa.resp.Offers, f.osdmOffer(rec))
}

// exchangeability is whether an offer can be exchanged: yes, under the
// condition of a fee when exchange_fee sets one.
func (o *offers) exchangeability() osdm.RefundType {
	if o.cfg.ExchangeFee.Amount == "" && o.cfg.ExchangeFee.BasisPoints == 0 {
		return osdm.RefundYes
	}
	return osdm.RefundWithCondition
}

// offerProduct is the product of an offer, listed the same in the offer
// and in the booking of it.
func (o *offers) offerProduct(rec *offerRecord) osdm.Product {
	flex, _ := o.flexibility()
	sc, tc := serviceClass(rec.TravelClass)
	return osdm.Product{
		ID: rec.ProductID, Code: "RESERVATION-" + strconv.Itoa(rec.TravelClass) + "-" + strings.ToUpper(legacy.ServiceName(rec.ServiceCode)),
		Summary: "Reservation " + legacy.ClassName(rec.TravelClass) + " " + legacy.ServiceName(rec.ServiceCode),
		Owner:   carrierRef(rec.Carrier), Flexibility: flex, ServiceClass: &sc, TravelClass: tc,
	}
}

// Flexibility and refundability of an offer: refunds cost refund_fee, so
// a fee makes the reservation semi-flexible, refundable with conditions.
func (o *offers) flexibility() (osdm.Flexibility, osdm.RefundType) {
	if o.cfg.RefundFee.Amount == "" && o.cfg.RefundFee.BasisPoints == 0 {
		return osdm.FlexibilityFull, osdm.RefundYes
	}
	return osdm.FlexibilitySemi, osdm.RefundWithCondition
}

// serviceClass is the OSDM service class of a legacy travel class.
func serviceClass(class int) (osdm.ServiceClass, osdm.TravelClass) {
	if class == legacy.FirstClass {
		return osdm.ServiceClass{Type: osdm.ServiceClassHigh, Name: "1st class"}, osdm.TravelClassFirst
	}
	return osdm.ServiceClass{Type: osdm.ServiceClassStandard, Name: "2nd class"}, osdm.TravelClassSecond
}

// osdmOffer is the OSDM offer of a record: one reservation offer part for
// all passengers. The booking side shows the same offer from the record.
func (o *offers) osdmOffer(rec *offerRecord) osdm.Offer {
	flex, refundable := o.flexibility()
	sc, tc := serviceClass(rec.TravelClass)
	acc := accommodation(rec.ServiceCode)
	refs := make([]string, len(rec.Passengers))
	for i, p := range rec.Passengers {
		refs[i] = p.Ref
	}
	until := rec.ExpiresAt
	cover := &osdm.TripCoverage{CoveredTripID: rec.TripID, CoveredLegIDs: []string{rec.LegID}}
	part := osdm.ReservationOfferPart{OfferPart: osdm.OfferPart{
		ObjectType: osdm.ObjectTypeReservationOfferPart, ID: rec.PartID,
		Summary:   "Reservation, train " + rec.Train + ", " + legacy.ClassName(rec.TravelClass) + " " + legacy.ServiceName(rec.ServiceCode),
		CreatedOn: rec.CreatedOn, ValidFrom: rec.CreatedOn, ValidUntil: &until, Price: rec.OSDMPrice,
		TripCoverage: cover, OfferMode: osdm.OfferModeCollective, PassengerRefs: refs,
		NumericAvailability: rec.AvailablePlaces, Refundable: refundable, Exchangeable: o.exchangeability(),
		Products:                    []osdm.ProductLegAssociation{{ProductID: rec.ProductID, LegIDs: []string{rec.LegID}}},
		AvailableFulfillmentOptions: []osdm.FulfillmentOption{{Type: osdm.FulfillmentETicket, Media: osdm.FulfillmentMediaPDFA4}},
	}}
	if acc == osdm.AccommodationSeat {
		part.AvailablePlaces = []osdm.AvailablePlace{{
			AccommodationType: acc, AccommodationSubType: osdm.AccommodationSubAnySeat,
			NumericAvailability: rec.AvailablePlaces, TripLegCoverage: osdm.TripLegCoverage{TripID: rec.TripID, LegID: rec.LegID},
		}}
	}
	return osdm.Offer{
		OfferID: rec.ID, Summary: part.Summary,
		OfferSummary: &osdm.OfferSummary{
			MinimalPrice: rec.OSDMPrice, OverallServiceClass: sc, OverallTravelClass: tc,
			OverallAccommodationType: acc, OverallFlexibility: flex,
		},
		CreatedOn: rec.CreatedOn, PreBookableUntil: rec.ExpiresAt, PassengerRefs: refs,
		Products:              []osdm.Product{o.offerProduct(rec)},
		TripCoverage:          &osdm.TripCoverage{CoveredTripID: rec.TripID},
		ReservationOfferParts: []osdm.ReservationOfferPart{part},
	}
}

// addAlternative answers a train the legacy system holds for another
// reservation system: OSDM's ALTERNATIVE_SYSTEM_PROPOSAL problem pointing
// at the train's trip leg (when its times were known to show a trip; the
// request pointer names it anyway), with one proposal per system.
func (sa *searchAnswer) addAlternative(c *candidate, alts []legacy.Alternative) {
	ptr := ""
	if ti, ok := sa.tripOf[c]; ok {
		ptr = "#/trips[" + strconv.Itoa(ti) + "]/legs[0]/id"
	}
	sa.resp.Problems = append(sa.resp.Problems, aspProblem(c, alts, ptr))
}

// aspProblem is the ALTERNATIVE_SYSTEM_PROPOSAL problem of a train.
func aspProblem(c *candidate, alts []legacy.Alternative, responsePointer string) osdm.Problem {
	status := http.StatusOK
	p := osdm.Problem{
		Code: osdm.CodeAlternativeSystemProposal, Type: osdm.ProblemTypeAlternativeSystemProposal,
		Title: "Alternative system proposal", Status: &status,
		Detail: c.subject() + " is sold by another reservation system",
	}
	if responsePointer != "" || c.ptr != "" {
		p.Pointers = []osdm.ProblemPointer{{ResponsePointer: responsePointer, RequestPointer: c.ptr}}
	}
	for _, a := range alts {
		prop := osdm.AlternativeSystemProposal{SystemOperatorCode: "urn:uic:rics:" + a.Operator}
		if a.ReservationSystem > 0 {
			id := a.ReservationSystem
			prop.ReservationSystemID = &id
		}
		if a.Priority > 0 {
			pr := a.Priority
			prop.Priority = &pr
		}
		scope := osdm.AlternativeSystemProposalScope{VehicleNumber: a.TrainNumber}
		if a.TravelClass > 0 {
			_, scope.TravelClass = serviceClass(a.TravelClass)
		}
		merged := false
		for i := range p.AlternativeSystemProposals {
			q := &p.AlternativeSystemProposals[i]
			if q.SystemOperatorCode == prop.SystemOperatorCode && eqIntPtr(q.ReservationSystemID, prop.ReservationSystemID) && eqIntPtr(q.Priority, prop.Priority) {
				q.Scope = append(q.Scope, scope)
				merged = true
			}
		}
		if !merged {
			prop.Scope = []osdm.AlternativeSystemProposalScope{scope}
			p.AlternativeSystemProposals = append(p.AlternativeSystemProposals, prop)
		}
	}
	return p
}

func eqIntPtr(a, b *int) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// passengerCount is "1 passenger" or "n passengers".
func passengerCount(n int) string {
	if n == 1 {
		return "1 passenger"
	}
	return strconv.Itoa(n) + " passengers"
}
