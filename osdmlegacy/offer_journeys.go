package osdmlegacy

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// A journey with changes is offered as one trip of several timed legs,
// each train asked about once (whatever number of journeys it is part
// of), and one offer per class and service code whose reservation offer
// parts are the legs' own legacy offers: offered only when every leg has
// one.

// journey is a trip with changes an offer search asks about.
type journey struct {
	// legs index the search's leg candidates, in order of travel.
	legs []int
}

// tripSet is what an offer search asks the legacy system about: direct
// trains, and the trains of journeys with changes (each once).
type tripSet struct {
	direct   []candidate
	legs     []candidate
	journeys []journey
}

// first is the first train of the set, for the travel day of tariffs.
func (ts *tripSet) first() *candidate {
	if len(ts.direct) > 0 {
		return &ts.direct[0]
	}
	return &ts.legs[ts.journeys[0].legs[0]]
}

// addLeg returns the index of run among the leg candidates, adding it.
func (ts *tripSet) addLeg(run TrainRun, ptr string) int {
	for i, c := range ts.legs {
		if c.run.Train == run.Train && c.run.ServiceDate == run.ServiceDate && c.run.Origin == run.Origin && c.run.Destination == run.Destination {
			return i
		}
	}
	ts.legs = append(ts.legs, candidate{run: run, ptr: ptr})
	return len(ts.legs) - 1
}

// trainKey names a train's run on one service date, for counting the
// trains a search asks about.
func trainKey(r *TrainRun) string { return r.Train + "/" + r.ServiceDate }

// trips returns the trains and journeys of a search: the direct trains
// of candidates, and the journeys with changes of a trip specification or
// of the timetable's planner (when it is one and max_changes allows).
func (o *offers) trips(q *offerRequest) (*tripSet, *osdm.ProblemError) {
	if q.legs != nil {
		return o.specJourney(q)
	}
	direct, p := o.candidates(q)
	ts := &tripSet{direct: direct}
	if q.spec || len(q.named) > 0 || o.cfg.maxChanges() == 0 {
		return ts, p
	}
	if p != nil && p.Code != osdm.CodeOfferNoResults {
		return nil, p
	}
	o.plannedJourneys(q, ts)
	if len(ts.journeys) == 0 && p != nil {
		changes := strconv.Itoa(o.cfg.maxChanges()) + " changes"
		if o.cfg.maxChanges() == 1 {
			changes = "1 change"
		}
		p.Detail = "the timetable has no train from " + q.origin + " to " + q.destination + ", direct or with at most " +
			changes + ", within " + o.cfg.Window.String() + " of " + q.at.text
		return nil, p
	}
	return ts, nil
}

// plannedJourneys adds to ts the journeys with changes the planner finds
// for q, best first (by arrival; for a search by arrival time, those
// arriving closest to it first), as long as the trips stay within
// max_trips and the trains asked within max_trains (each train counted
// once).
func (o *offers) plannedJourneys(q *offerRequest, ts *tripSet) {
	pl, ok := o.tt.(planner)
	if !ok {
		return
	}
	loc := stationLocation(o.tt, q.origin, o.cfg.Location)
	if q.arrival {
		loc = stationLocation(o.tt, q.destination, o.cfg.Location)
	}
	found := pl.Journeys(journeyQuery{
		Origin: q.origin, Destination: q.destination, At: q.at.in(loc), Arrival: q.arrival,
		Window: o.cfg.Window, MaxChanges: o.cfg.maxChanges(), MinTransfer: o.cfg.MinTransfer, MaxTrips: o.cfg.MaxTrips,
	})
	if q.arrival {
		slices.Reverse(found)
	}
	trains := map[string]bool{}
	for i := range ts.direct {
		trains[trainKey(&ts.direct[i].run)] = true
	}
	for _, j := range found {
		if len(ts.direct)+len(ts.journeys) >= o.cfg.MaxTrips {
			return
		}
		if len(j) < 2 || len(j) > o.cfg.maxChanges()+1 || !usable(j, q.excluded) {
			continue
		}
		added := 0
		for i := range j {
			if !trains[trainKey(&j[i])] {
				added++
			}
		}
		if len(trains)+added > o.cfg.MaxTrains {
			continue // a later journey may share trains already asked
		}
		var jr journey
		for _, run := range j {
			trains[trainKey(&run)] = true
			jr.legs = append(jr.legs, ts.addLeg(run, ""))
		}
		ts.journeys = append(ts.journeys, jr)
	}
}

// usable reports whether every train of j can be asked about: a train
// number the legacy protocol carries, none a vehicle filter excludes.
func usable(j timetableJourney, excluded map[string]bool) bool {
	for _, r := range j {
		if excluded[r.Train] || !legacy.ValidTrainNumber(r.Train) {
			return false
		}
	}
	return true
}

// specJourney is the journey of a trip specification with changes,
// checked against the timetable: each leg a run of its train from its
// start to its end at the times given, each change at least the station's
// minimum transfer time. Without a timetable the specification must give
// every arrival, and changes are checked against min_transfer.
func (o *offers) specJourney(q *offerRequest) (*tripSet, *osdm.ProblemError) {
	if n := len(q.legs) - 1; n > o.cfg.maxChanges() {
		return nil, restricted(RestrictDirect, osdm.CodeOfferOutOfBounds, q.legs[n].ptr[:len(q.legs[n].ptr)-len("/timedLeg/start")],
			"a journey has at most "+strconv.Itoa(o.cfg.maxChanges())+" changes (max_changes), not "+strconv.Itoa(n))
	}
	ts := &tripSet{}
	var jr journey
	var prev *TrainRun
	for _, l := range q.legs {
		oloc := stationLocation(o.tt, l.origin, o.cfg.Location)
		dloc := stationLocation(o.tt, l.destination, o.cfg.Location)
		run := TrainRun{Train: l.train.train, Carrier: l.train.carrier, Origin: l.origin, Destination: l.destination}
		run.Departure = l.train.departure.in(oloc)
		run.ServiceDate = run.Departure.In(oloc).Format(time.DateOnly)
		if l.train.arrival != nil {
			run.Arrival = l.train.arrival.in(dloc)
		}
		subject := "train " + run.Train + " from " + run.Origin + " at " + l.train.departure.text + " to " + run.Destination
		if o.tt != nil {
			tr, ok := o.tt.Run(run.Train, run.ServiceDate, run.Origin, run.Destination)
			if !ok || !tr.Departure.Equal(run.Departure) || !run.Arrival.IsZero() && !tr.Arrival.Equal(run.Arrival) {
				return nil, restricted(RestrictKnownTrain, osdm.CodeOfferOutOfBounds, l.train.ptr,
					"the timetable has no "+subject+(map[bool]string{true: " arriving at " + l.train.arrival.text}[l.train.arrival != nil]))
			}
			run.OriginName, run.DestinationName, run.Arrival = tr.OriginName, tr.DestinationName, tr.Arrival
			if run.Carrier == "" {
				run.Carrier = tr.Carrier
			}
		} else if run.Arrival.IsZero() {
			return nil, osdm.Invalid(osdm.CodeOfferInvalid, l.ptr[:len(l.ptr)-len("/start")]+"/end/serviceArrival/timetabledTime",
				"without a timetable a journey with changes gives each leg's arrival, so that its changes can be checked")
		}
		if prev != nil {
			if p := o.checkChange(prev, &run, l.ptr); p != nil {
				return nil, p
			}
		}
		jr.legs = append(jr.legs, ts.addLeg(run, l.train.ptr))
		prev = &ts.legs[len(ts.legs)-1].run
	}
	ts.journeys = []journey{jr}
	return ts, nil
}

// checkChange refuses a change from a to b shorter than the timetable's
// minimum transfer time for it (the rule for those trains, else the
// station's), or one the timetable does not allow: the rules the planner
// applies.
func (o *offers) checkChange(a, b *TrainRun, ptr string) *osdm.ProblemError {
	at := b.Origin
	min, ok := o.cfg.MinTransfer, true
	if pl, is := o.tt.(planner); is {
		min, ok = pl.Change(a, b, o.cfg.MinTransfer)
	}
	if !ok {
		return restricted(RestrictDirect, osdm.CodeOfferOutOfBounds, ptr, "the timetable allows no change from train "+a.Train+" to train "+b.Train+" at "+at)
	}
	if gap := b.Departure.Sub(a.Arrival); gap < min {
		return restricted(RestrictDirect, osdm.CodeOfferOutOfBounds, ptr,
			"the change at "+at+" from train "+a.Train+" to train "+b.Train+" leaves "+minutes(gap)+", less than the "+minutes(min)+" it needs")
	}
	return nil
}

// minutes is d in problem texts: "7 minutes".
func minutes(d time.Duration) string {
	m := int(d / time.Minute)
	if m == 1 {
		return "1 minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// inSaleWindowSet keeps the direct trains and the journeys whose first
// train can be sold at now (inSaleWindow), or answers why none can.
func (o *offers) inSaleWindowSet(q *offerRequest, ts *tripSet, now time.Time) *osdm.ProblemError {
	var first *osdm.ProblemError
	if len(ts.direct) > 0 {
		ts.direct, first = o.inSaleWindow(q, ts.direct, now)
	}
	kept := ts.journeys[:0]
	for _, j := range ts.journeys {
		if _, p := o.inSaleWindow(q, []candidate{ts.legs[j.legs[0]]}, now); p != nil {
			if first == nil {
				first = p
			}
			continue
		}
		kept = append(kept, j)
	}
	ts.journeys = kept
	if len(ts.direct) == 0 && len(ts.journeys) == 0 {
		return first
	}
	return nil
}

// journeyProbes are the probes of one leg candidate, by class and service.
type journeyProbes map[*candidate][]*probe

// of returns the probe of c for class and service, nil when none.
func (jp journeyProbes) of(c *candidate, class, service int) *probe {
	for _, p := range jp[c] {
		if p.class == class && p.service == service {
			return p
		}
	}
	return nil
}

// addJourneys adds the trips and offers of the journeys with changes: per
// class and service code, one offer when every leg has one, else the
// reason in the problems (a train another system sells drops the trip).
func (sa *searchAnswer) addJourneys(q *offerRequest, ts *tripSet, probes []*probe) {
	f := sa.f
	byCand := journeyProbes{}
	results := map[*probe]probeResult{}
	for _, p := range probes {
		byCand[p.cand] = append(byCand[p.cand], p)
		results[p] = f.read(p, len(sa.pax), q.currency)
	}
	// A train of several journeys is told about once.
	noted := map[*probe]bool{}
	note := func(p *probe, code, why string) {
		if !noted[p] {
			noted[p] = true
			sa.note(p, code, why)
		}
	}
	for _, j := range ts.journeys {
		legs := make([]*candidate, len(j.legs))
		for i, li := range j.legs {
			legs[i] = &ts.legs[li]
		}
		if alt := sa.journeyAlternative(legs, byCand, results); alt {
			continue
		}
		trip := -1
		for _, class := range q.classes {
			for _, service := range f.cfg.ServiceCodes {
				offers := make([]*legacy.Offer, len(legs))
				ok := true
				for i, c := range legs {
					p := byCand.of(c, class, service)
					if p == nil {
						ok = false
						break
					}
					res := results[p]
					switch {
					case res.offer != nil:
						offers[i] = res.offer
						continue
					case res.soldOut:
						sa.soldOut++
						note(p, osdm.CodeInsufficientAvailability, "no places left for "+strconv.Itoa(len(sa.pax))+" passengers; the journeys with this train are not offered in this class")
					case res.problem != nil && res.problem.Code == osdm.CodeTripNotFound:
						sa.notRun++
						note(p, osdm.CodeTripNotFound, "the reservation system does not run this train between these stations on this date")
					case res.problem != nil:
						sa.failures = append(sa.failures, res.problem)
						note(p, res.problem.Code, strings.TrimPrefix(res.problem.Detail, probeSubject(p)+": "))
					}
					ok = false
					break
				}
				if !ok {
					continue
				}
				if trip < 0 {
					if trip = sa.journeyTrip(legs); trip < 0 {
						break
					}
				}
				sa.addJourneyOffer(trip, legs, offers, class, service)
			}
		}
	}
}

// journeyAlternative reports whether a train of the journey is sold by
// another reservation system: the journey is then not offered, and the
// proposal is told in the problems (once per train).
func (sa *searchAnswer) journeyAlternative(legs []*candidate, byCand journeyProbes, results map[*probe]probeResult) bool {
	found := false
	for _, c := range legs {
		var alts []legacy.Alternative
		for _, p := range byCand[c] {
			for _, a := range results[p].alt {
				if a.TravelClass == 0 {
					a.TravelClass = p.class
				}
				alts = appendAlternative(alts, a, c.run.Train)
			}
		}
		if len(alts) == 0 {
			continue
		}
		found = true
		if sa.altTold == nil {
			sa.altTold = map[*candidate]bool{}
		}
		if !sa.altTold[c] {
			sa.altTold[c] = true
			sa.altJourney++
			sa.resp.Problems = append(sa.resp.Problems, aspProblem(c, alts, ""))
		}
	}
	return found
}

// journeyTrip adds the trip of a journey: its timed legs with a transfer
// leg between each two. It returns the trip's index, -1 when a train's
// times are unknown.
func (sa *searchAnswer) journeyTrip(legs []*candidate) int {
	for _, c := range legs {
		if c.run.Departure.IsZero() || c.run.Arrival.IsZero() {
			return -1
		}
	}
	id := "trip-" + strconv.Itoa(len(sa.resp.Trips)+1)
	runs := make([]TrainRun, len(legs))
	for i, c := range legs {
		runs[i] = c.run
	}
	sa.resp.Trips = append(sa.resp.Trips, journeyTripView(id, runs))
	sa.changes = true
	return len(sa.resp.Trips) - 1
}

// timedLegID and transferLegID are the stable ids of a journey's legs:
// "<trip>-leg-<n>" for its n-th train, "<trip>-transfer-<n>" for the
// change after it.
func timedLegID(tripID string, n int) string    { return tripID + "-leg-" + strconv.Itoa(n) }
func transferLegID(tripID string, n int) string { return tripID + "-transfer-" + strconv.Itoa(n) }

// journeyTripView is the OSDM trip of a journey's runs.
func journeyTripView(id string, runs []TrainRun) osdm.Trip {
	first, last := runs[0], runs[len(runs)-1]
	origin, dest := osdm.NewStopPlaceRef(osdm.UICStation(first.Origin)), osdm.NewStopPlaceRef(osdm.UICStation(last.Destination))
	t := osdm.Trip{
		ID: id, Duration: isoDuration(last.Arrival.Sub(first.Departure)), Origin: &origin, Destination: &dest,
		StartTime: first.Departure, EndTime: last.Arrival, Transfers: len(runs) - 1,
	}
	for i, run := range runs {
		if i > 0 {
			prev := runs[i-1]
			at := osdm.NewStopPlaceRef(osdm.UICStation(run.Origin))
			t.Legs = append(t.Legs, osdm.TripLeg{ID: transferLegID(id, i), TransferLeg: &osdm.TransferLeg{
				TransferMode: osdm.TransferModeWalk,
				Start:        at, End: at,
				Duration: isoDuration(run.Departure.Sub(prev.Arrival)),
			}})
		}
		t.Legs = append(t.Legs, osdm.TripLeg{ID: timedLegID(id, i+1), TimedLeg: timedLegView(run)})
	}
	return t
}

// timedLegView is the OSDM timed leg of one train's run.
func timedLegView(run TrainRun) *osdm.TimedLeg {
	origin, dest := osdm.NewStopPlaceRef(osdm.UICStation(run.Origin)), osdm.NewStopPlaceRef(osdm.UICStation(run.Destination))
	return &osdm.TimedLeg{
		Start: osdm.Board{StopPlaceRef: origin, StopPlaceName: nameOr(run.OriginName, run.Origin),
			ServiceDeparture: osdm.ServiceTime{TimetabledTime: run.Departure}},
		End: osdm.Alight{StopPlaceRef: dest, StopPlaceName: nameOr(run.DestinationName, run.Destination),
			ServiceArrival: osdm.ServiceTime{TimetabledTime: run.Arrival}},
		Service:  osdm.DatedJourney{VehicleNumbers: []string{run.Train}, Carriers: []osdm.NamedCompany{{Ref: carrierRef(run.Carrier)}}},
		Duration: isoDuration(run.Arrival.Sub(run.Departure)),
	}
}

// addJourneyOffer adds the offer of a journey's trip in one class and
// service code: one reservation offer part per leg, priced from that
// train's legacy offer, bookable until the first of them expires.
func (sa *searchAnswer) addJourneyOffer(ti int, legs []*candidate, offers []*legacy.Offer, class, service int) {
	f := sa.f
	created := sa.now.Truncate(time.Second)
	until := sa.now.Add(f.cfg.OfferTTL)
	for _, lo := range offers {
		if !lo.ValidUntil.IsZero() && lo.ValidUntil.Before(until) {
			until = lo.ValidUntil
		}
	}
	if legs[0].run.Departure.Before(until) {
		until = legs[0].run.Departure
	}
	until = until.Truncate(time.Second)
	trip := &sa.resp.Trips[ti]
	if !until.After(sa.now) {
		sa.soldOut++
		sa.pointers = append(sa.pointers, osdm.ProblemPointer{Code: osdm.CodeInsufficientAvailability,
			Detail: "journey " + trip.ID + ": the first train has left or an offer expired"})
		return
	}
	jo := &journeyOffer{Partner: f.cfg.Partner}
	for i, c := range legs {
		lo := offers[i]
		price, _ := osdmPrice(*lo.Price)
		if i > 0 && price.Currency != jo.Legs[0].OSDMPrice.Currency {
			sa.pointers = append(sa.pointers, osdm.ProblemPointer{Code: osdm.CodeOfferOutOfBounds,
				Detail: "journey " + trip.ID + ": its trains are priced in " + jo.Legs[0].OSDMPrice.Currency + " and " + price.Currency + ", which one offer cannot add up"})
			return
		}
		n := i + 1
		rec := offerRecord{
			Train: c.run.Train, ServiceDate: c.run.ServiceDate, Origin: c.run.Origin, Destination: c.run.Destination,
			OriginName: c.run.OriginName, DestinationName: c.run.DestinationName,
			Departure: c.run.Departure, Arrival: c.run.Arrival,
			DepartureClock: c.clock(stationLocation(f.tt, c.run.Origin, f.cfg.Location)), Carrier: c.run.Carrier,
			TravelClass: class, ServiceCode: service, ServiceLevel: lo.ServiceLevel,
			Passengers: sa.pax, Price: *lo.Price, OSDMPrice: price, AvailablePlaces: lo.AvailablePlaces,
			LegacyOfferRef: lo.OfferRef, TripID: trip.ID, LegID: timedLegID(trip.ID, n),
			CreatedOn: created, ExpiresAt: until,
		}
		part, product := offerPartIDs(trip.ID, class, service)
		rec.PartID, rec.ProductID = part+"-"+strconv.Itoa(n), product+"-"+strconv.Itoa(n)
		jo.Legs = append(jo.Legs, rec)
	}
	jo.ID = sa.signer.sealJourney(jo, sa.c.client)
	sa.resp.Offers = append(sa.resp.Offers, f.journeyOffer(jo))
}

// journeyOffer is the OSDM offer of a journey: a reservation offer part
// per leg (the leg's alone in its trip coverage), its minimal price their
// sum.
func (o *offers) journeyOffer(jo *journeyOffer) osdm.Offer {
	var parts []osdm.ReservationOfferPart
	var products []osdm.Product
	for i := range jo.Legs {
		rec := jo.Legs[i]
		rec.ID = jo.ID
		legOffer := o.osdmOffer(&rec)
		parts = append(parts, legOffer.ReservationOfferParts...)
		products = append(products, legOffer.Products...)
	}
	first := o.osdmOffer(&jo.Legs[0])
	sum := jo.Price()
	first.OfferSummary.MinimalPrice = sum
	first.OfferID = jo.ID
	first.Summary = jo.summary()
	first.ReservationOfferParts = parts
	first.Products = products
	return first
}

// summary describes a journey offer: "Reservations, trains 9203 and 456,
// 2nd class seat".
func (jo *journeyOffer) summary() string {
	trains := ""
	for i, l := range jo.Legs {
		switch {
		case i == 0:
		case i == len(jo.Legs)-1:
			trains += " and "
		default:
			trains += ", "
		}
		trains += l.Train
	}
	l := jo.Legs[0]
	return "Reservations, trains " + trains + ", " + legacy.ClassName(l.TravelClass) + " " + legacy.ServiceName(l.ServiceCode)
}

// sortTrips orders the trips of an answer with journeys with changes by
// arrival, then changes, then departure (the best first), keeping the
// trips' ids.
func (sa *searchAnswer) sortTrips() {
	trips := sa.resp.Trips
	moved := make([]osdm.Trip, len(trips))
	copy(moved, trips)
	better := func(a, b *osdm.Trip) bool {
		switch {
		case !a.EndTime.Equal(b.EndTime):
			return a.EndTime.Before(b.EndTime)
		case a.Transfers != b.Transfers:
			return a.Transfers < b.Transfers
		}
		return a.StartTime.Before(b.StartTime)
	}
	// insertion sort: a stable order of at most max_trips trips
	for i := 1; i < len(moved); i++ {
		for j := i; j > 0 && better(&moved[j], &moved[j-1]); j-- {
			moved[j], moved[j-1] = moved[j-1], moved[j]
		}
	}
	at := map[string]int{}
	for i := range moved {
		at[moved[i].ID] = i
	}
	for c, i := range sa.tripOf {
		sa.tripOf[c] = at[trips[i].ID]
	}
	sa.resp.Trips = moved
}
