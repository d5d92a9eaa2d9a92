package osdmsandbox

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/timetable"
)

// Limits of a search.
const (
	maxPassengers = 9  // the 918-1 limit of places in one request
	maxTrains     = 10 // vehicle numbers in one search
)

// search is an offer search, from POST /offers or GET /trip-offers.
type search struct {
	origin, dest string    // station numbers
	asked        time.Time // departure, or arrival when byArrival
	byArrival    bool
	trains       []string
	classes      []osdm.TravelClass
	passengers   []osdm.AnonymousPassengerSpecification
	// client is the client searching: the offers found are its own.
	client       string
	reservations bool // reservations asked for (or no offer part named)
	// named says that trains names the trains searched (a vehicle
	// filter keeping them); excluded are those a filter leaves out.
	named    bool
	excluded []string
	// specified are the trips of tripSpecifications; when there are any,
	// they are the search (origin, dest, asked and trains are unset).
	specified []specifiedTrip
}

// offer is a stored offer, what a booking of it needs: about 650 bytes
// for a trip of one train.
type offer struct {
	id        string
	createdOn time.Time
	expires   time.Time
	// route is the offer's trip; groups[i] are the places offered on
	// route[i], one reservation offer part each.
	route      route
	groups     []group
	passengers []osdm.AnonymousPassengerSpecification
	bookedBy   string // the booking that took it
	// client is the client that searched it: the only one that books it.
	client string
	// exchange makes it an exchange offer of a booking; nil for a sale.
	exchange *exchangeTerms
}

// passenger returns the offer's passenger with externalRef ref.
func (o *offer) passenger(ref string) (osdm.AnonymousPassengerSpecification, bool) {
	for _, p := range o.passengers {
		if p.ExternalRef == ref {
			return p, true
		}
	}
	return osdm.AnonymousPassengerSpecification{}, false
}

// offerDesk answers searches for offers (POST /offers and the older
// GET /trip-offers): it plans the trips on the trains it knows and holds
// the offers it makes in the ledger.
type offerDesk struct {
	led    *ledger
	trains *trains
}

// searchOffers serves POST /offers.
func (od *offerDesk) searchOffers(now time.Time, rq *request) *response {
	var req offerRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	sr, p := parseOfferRequest(&req)
	if p != nil {
		return problemResponse(p)
	}
	sr.client = rq.client
	return od.answerSearch(now, sr)
}

// notSupported is the 400 of a required part of the request the sandbox
// does not serve.
func notSupported(pointer, detail string) *osdm.ProblemError {
	return osdm.NewProblem(http.StatusBadRequest, osdm.CodeParameterNotSupported, detail).WithPointer(pointer)
}

// parseOfferRequest checks an offer request and makes it a search: by
// tripSearchCriteria (origin, destination, time, trains) or by
// tripSpecifications (trips of one or more trains, each with its times).
func parseOfferRequest(req *offerRequest) (*search, *osdm.ProblemError) {
	sr := &search{}
	if p := sr.setPassengers(req.AnonymousPassengerSpecifications, "#/anonymousPassengerSpecifications"); p != nil {
		return nil, p
	}
	switch {
	case len(req.TripIDs) > 0:
		return nil, notSupported("#/tripIds", "the sandbox serves no trip search (/trips), so it knows no tripIds; send tripSearchCriteria or tripSpecifications")
	case len(req.InboundTripIDs) > 0 || len(req.InboundTripSpecifications) > 0:
		at := "#/inboundTripIds"
		if len(req.InboundTripSpecifications) > 0 {
			at = "#/inboundTripSpecifications"
		}
		return nil, notSupported(at, "the sandbox sells single trips; search the return trip on its own")
	case len(req.NonTripSearchCriteria) > 0 && string(req.NonTripSearchCriteria) != "null":
		return nil, notSupported("#/nonTripSearchCriteria", "the sandbox sells seat reservations on trains only")
	case req.TripSearchCriteria != nil && len(req.TripSpecifications) > 0:
		return nil, osdm.Invalid(osdm.CodeValidationError, "#/tripSpecifications", "send tripSearchCriteria or tripSpecifications, not both")
	case len(req.TripSpecifications) > 0:
		legs, p := parseTripSpecifications(req.TripSpecifications)
		if p != nil {
			return nil, p
		}
		sr.specified = legs
	case req.TripSearchCriteria == nil:
		return nil, osdm.Invalid(osdm.CodeValidationError, "#/tripSearchCriteria", "tripSearchCriteria or tripSpecifications is required: the sandbox searches by origin, destination and time, or by the trains of specified trips")
	default:
		if p := sr.setCriteria(req.TripSearchCriteria); p != nil {
			return nil, p
		}
	}
	if c := req.OfferSearchCriteria; c != nil {
		if p := sr.setClasses(c.TravelClasses, "#/offerSearchCriteria/travelClasses"); p != nil {
			return nil, p
		}
		sr.setOfferParts(c.RequestedOfferParts)
	} else {
		sr.setClasses(nil, "")
		sr.reservations = true
	}
	if sr.specified != nil {
		return sr, nil
	}
	return sr, sr.check()
}

// setCriteria reads a tripSearchCriteria: times without an offset are
// local to the stop (the origin for departureTime, the destination for
// arrivalTime).
func (sr *search) setCriteria(tc *searchCriteria) *osdm.ProblemError {
	var ok bool
	if sr.origin, ok = stationOf(tc.Origin); !ok {
		return osdm.Invalid(osdm.CodeValidationError, "#/tripSearchCriteria/origin", "origin must be a StopPlaceRef with stopPlaceRef urn:uic:stn: and 7 digits")
	}
	if sr.dest, ok = stationOf(tc.Destination); !ok {
		return osdm.Invalid(osdm.CodeValidationError, "#/tripSearchCriteria/destination", "destination must be a StopPlaceRef with stopPlaceRef urn:uic:stn: and 7 digits")
	}
	if len(tc.Vias) > 0 {
		return notSupported("#/tripSearchCriteria/vias", "the sandbox plans no routes: a search through vias is not served; name the trains of the trip in tripSpecifications")
	}
	switch {
	case tc.DepartureTime != nil && tc.ArrivalTime != nil, tc.DepartureTime == nil && tc.ArrivalTime == nil:
		return osdm.Invalid(osdm.CodeValidationError, "#/tripSearchCriteria/departureTime", "exactly one of departureTime and arrivalTime is required")
	case tc.DepartureTime != nil:
		if sr.asked, ok = parseStopTime(*tc.DepartureTime, sr.origin); !ok {
			return stopTimeProblem("#/tripSearchCriteria/departureTime", "departureTime", *tc.DepartureTime)
		}
	default:
		if sr.asked, ok = parseStopTime(*tc.ArrivalTime, sr.dest); !ok {
			return stopTimeProblem("#/tripSearchCriteria/arrivalTime", "arrivalTime", *tc.ArrivalTime)
		}
		sr.byArrival = true
	}
	var vf *osdm.VehicleFilter
	if tc.Parameters != nil && tc.Parameters.DataFilter != nil {
		vf = tc.Parameters.DataFilter.VehicleFilter
	}
	return sr.setTrains(vf)
}

// stationOf returns the station number of a StopPlaceRef.
func stationOf(ref osdm.PlaceRef) (string, bool) {
	if ref.ObjectType != osdm.ObjectTypeStopPlaceRef {
		return "", false
	}
	return stationNumber(ref.StopPlaceRef)
}

func (sr *search) setPassengers(pax []osdm.AnonymousPassengerSpecification, pointer string) *osdm.ProblemError {
	if len(pax) == 0 {
		return osdm.Invalid(osdm.CodeValidationError, pointer, "at least one passenger is required")
	}
	if len(pax) > maxPassengers {
		return osdm.Invalid(osdm.CodeValidationError, pointer, fmt.Sprintf("at most %d passengers per search", maxPassengers))
	}
	seen := map[string]bool{}
	for i, p := range pax {
		at := pointer + "/" + strconv.Itoa(i)
		switch {
		case p.ExternalRef == "":
			return osdm.Invalid(osdm.CodeValidationError, at+"/externalRef", "externalRef is required")
		case seen[p.ExternalRef]:
			return osdm.Invalid(osdm.CodeValidationError, at+"/externalRef", "externalRef "+strconv.Quote(p.ExternalRef)+" is used twice")
		case p.Type == "":
			return osdm.Invalid(osdm.CodeValidationError, at+"/type", "type is required")
		case p.Age != nil && (*p.Age < 0 || *p.Age > 150):
			return osdm.Invalid(osdm.CodeValidationError, at+"/age", "age must be 0..150")
		}
		seen[p.ExternalRef] = true
	}
	sr.passengers = pax
	return nil
}

// setTrains reads the vehicle filter. Without one that keeps trains, the
// search finds one made-up train derived from the stations.
func (sr *search) setTrains(vf *osdm.VehicleFilter) *osdm.ProblemError {
	const at = "#/tripSearchCriteria/parameters/dataFilter/vehicleFilter/vehicleNumbers"
	if vf != nil && vf.Exclude != nil && !*vf.Exclude {
		sr.named = true
		if len(vf.VehicleNumbers) == 0 || len(vf.VehicleNumbers) > maxTrains {
			return osdm.Invalid(osdm.CodeValidationError, at, fmt.Sprintf("a vehicle filter with exclude false needs 1..%d vehicle numbers", maxTrains))
		}
		for i, t := range vf.VehicleNumbers {
			if !ValidTrainNumber(t) {
				return osdm.Invalid(osdm.CodeValidationError, at+"/"+strconv.Itoa(i), "train number "+strconv.Quote(t)+" must be 1..8 letters or digits")
			}
			if !slices.Contains(sr.trains, t) {
				sr.trains = append(sr.trains, t)
			}
		}
		return nil
	}
	if vf != nil {
		sr.excluded = vf.VehicleNumbers
	}
	n := 100 + trainHash(sr.origin+sr.dest)%800
	for slices.Contains(sr.excluded, strconv.Itoa(int(n))) {
		n++
	}
	sr.trains = []string{strconv.Itoa(int(n))}
	return nil
}

// setClasses reads the travel classes; none (or ANY_CLASS) means both.
func (sr *search) setClasses(classes []osdm.TravelClass, pointer string) *osdm.ProblemError {
	anyClass := len(classes) == 0
	for i, c := range classes {
		switch c {
		case osdm.TravelClassFirst, osdm.TravelClassSecond:
			if !slices.Contains(sr.classes, c) {
				sr.classes = append(sr.classes, c)
			}
		case osdm.TravelClassAny:
			anyClass = true
		default:
			return osdm.Invalid(osdm.CodeValidationError, pointer+"/"+strconv.Itoa(i), "travel class "+strconv.Quote(string(c))+" is not FIRST, SECOND or ANY_CLASS")
		}
	}
	if anyClass {
		sr.classes = []osdm.TravelClass{osdm.TravelClassFirst, osdm.TravelClassSecond}
	}
	return nil
}

// setOfferParts notes whether reservations are among the parts asked for.
func (sr *search) setOfferParts(parts []osdm.OfferPartType) {
	sr.reservations = len(parts) == 0 || slices.Contains(parts, osdm.OfferPartReservation) || slices.Contains(parts, osdm.OfferPartAll)
}

// check validates what both request forms share.
func (sr *search) check() *osdm.ProblemError {
	if sr.origin == sr.dest {
		return osdm.Invalid(osdm.CodeValidationError, "#/tripSearchCriteria/destination", "destination must differ from origin")
	}
	// Far dates would overflow the year 9999 of RFC 3339 in the answer.
	if y := sr.asked.Year(); y < 2000 || y > 2999 {
		return osdm.Invalid(osdm.CodeValidationError, "#/tripSearchCriteria/departureTime", "the travel date must be in the years 2000..2999")
	}
	return nil
}

// leg is one train a search looks for between two stations: by
// timetable (a search criteria) or with the times of a trip specification.
type leg struct {
	train        string
	origin, dest string
	specified    *specifiedLeg
	// ride is the train's ride in the GTFS timetable (Config.Feed): as
	// planned, or as found for a train named; nil without a Feed, or when
	// a train named does not ride there that day.
	ride *timetable.Leg
	// tripRef is the consumer's reference of the trip, on its first leg.
	tripRef string
}

// trips are the trips the search looks for, each its trains: those of a
// trip specification, those named (each a trip of its own), or without
// a name those planned on the GTFS timetable (journeys with changes) or
// the made-up train of the sandbox's own timetable. none says why a
// search of the GTFS timetable found nothing.
func (od *offerDesk) trips(sr *search) (out [][]leg, none string) {
	for _, st := range sr.specified {
		trip := make([]leg, len(st.legs))
		for i := range st.legs {
			sl := &st.legs[i]
			trip[i] = leg{train: sl.train, origin: sl.origin, dest: sl.dest, specified: sl}
		}
		trip[0].tripRef = st.externalRef
		out = append(out, trip)
	}
	feed := od.led.cfg.Feed
	switch {
	case sr.specified != nil:
		return out, ""
	case feed == nil:
		for _, train := range sr.trains {
			out = append(out, []leg{{train: train, origin: sr.origin, dest: sr.dest}})
		}
		return out, ""
	case sr.named:
		for _, train := range sr.trains {
			l := leg{train: train, origin: sr.origin, dest: sr.dest}
			if r, ok := feed.Ride(train, sr.origin, sr.dest, sr.asked.In(feed.Location())); ok {
				l.ride = &r
			}
			out = append(out, []leg{l})
		}
		return out, ""
	}
	js, err := feed.Plan(timetable.Query{
		Origin: sr.origin, Destination: sr.dest, Time: sr.asked, ArriveBy: sr.byArrival,
		MaxChanges: *od.led.cfg.MaxChanges, MinTransfer: od.led.cfg.MinTransfer, MaxTrips: od.led.cfg.MaxTrips,
	})
	if err != nil {
		return nil, err.Error() // the configuration is checked: not seen
	}
journeys:
	for _, j := range js {
		trip := make([]leg, len(j.Legs))
		for i := range j.Legs {
			r := &j.Legs[i]
			if slices.Contains(sr.excluded, r.Train) {
				continue journeys
			}
			trip[i] = leg{train: r.Train, origin: r.From.Station, dest: r.To.Station, ride: r}
		}
		out = append(out, trip)
	}
	if len(out) == 0 {
		how := "leaving within " + timetable.DefaultWindow.String() + " after " + sr.asked.Format(time.RFC3339)
		if sr.byArrival {
			how = "arriving within " + timetable.DefaultWindow.String() + " before " + sr.asked.Format(time.RFC3339)
		}
		none = fmt.Sprintf("the timetable has no journey from %s to %s %s with at most %d changes", stationPrefix+sr.origin, stationPrefix+sr.dest, how, *od.led.cfg.MaxChanges)
	}
	return out, none
}

// answerSearch finds the trains of a search and offers their places: per
// trip, an offer of each group asked for (one train), or of each class
// asked for with a reservation on every train (several trains). Callers
// hold the Sandbox's lock.
func (od *offerDesk) answerSearch(now time.Time, sr *search) *response {
	var out osdm.OfferCollectionResponse
	out.AnonymousPassengerSpecifications = sr.passengers
	trips, none := od.trips(sr)
	if none != "" {
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeNoResults, none))
	}
	short, swept := 0, false
	var past, notFound []string
	freeIn := func(j journey, g group) int {
		free := od.led.inventory.free(j.runKey(), g)
		if free < len(sr.passengers) && !swept {
			// Provisional bookings past their limit may still hold places.
			od.led.sweep(now, true)
			swept = true
			free = od.led.inventory.free(j.runKey(), g)
		}
		return free
	}
trips:
	for _, trip := range trips {
		var r route
		var prev *timetable.Leg // the ride of the train before, in the GTFS timetable
		for i, lg := range trip {
			train := lg.train
			if od.trains.unknownTrain(train) || od.led.cfg.Feed != nil && lg.ride == nil && lg.specified == nil {
				notFound = append(notFound, fmt.Sprintf("%s from %s to %s", train, lg.origin, lg.dest))
				continue trips
			}
			if ext, ok := od.trains.external[train]; ok {
				asp := alternativeSystemProposal(ext)
				if ext.Status != 0 {
					asp.Status = &ext.Status
					return problemBody(ext.Status, asp)
				}
				out.Problems = append(out.Problems, asp)
				continue trips
			}
			var dep, arr time.Time
			ride := lg.ride
			if sl := lg.specified; sl != nil {
				if i > *od.led.cfg.MaxChanges {
					return problemResponse(osdm.NewProblem(http.StatusBadRequest, osdm.CodeOfferOutOfBounds,
						fmt.Sprintf("a journey has at most %d changes of train here (max_changes)", *od.led.cfg.MaxChanges)).WithPointer(sl.at))
				}
				dep, arr = sl.dep, sl.arr
				var p *osdm.ProblemError
				if ride, p = od.scheduleMismatch(sl); p != nil {
					return problemResponse(p)
				}
				if i > 0 {
					if p := od.changeTooShort(&r[i-1], prev, sl, ride); p != nil {
						return problemResponse(p)
					}
				}
			} else if ride != nil {
				dep, arr = ride.From.Departure, ride.To.Arrival
			} else {
				dep, arr = od.trains.timetable(train, sr.asked, sr.byArrival)
			}
			if now.Sub(dep) > DepartureTolerance {
				// Gone: a real partner sells no seat on a train that left.
				past = append(past, train+" left at "+dep.Format(time.RFC3339))
				continue trips
			}
			j := journey{train: train, origin: lg.origin, dest: lg.dest, departure: dep, arrival: arr, tripRef: lg.tripRef}
			if ride != nil {
				j.originName, j.destName = ride.From.Name, ride.To.Name
				j.serviceDate = ride.ServiceDate.Format(time.DateOnly)
			}
			if i > 0 {
				j.change = transfer{duration: min(od.minTransfer(lg.origin), dep.Sub(r[i-1].arrival)), shown: true}
			}
			if sl := lg.specified; sl != nil {
				j.carrier, j.externalRef = sl.carrier, sl.externalRef
				// The consumer's legs, as it gave them.
				j.change.shown = sl.hasChange
				if sl.hasChange {
					j.change.externalRef = sl.change.externalRef
					if sl.change.duration >= 0 {
						j.change.duration = sl.change.duration
					}
				}
			}
			r = append(r, j)
			prev = ride
		}
		out.Trips = append(out.Trips, r.trip(od.led.cfg.Operator))
		if !sr.reservations {
			continue
		}
		if len(r) == 1 {
			for _, g := range groupsOf(r[0].train) {
				if !slices.Contains(sr.classes, g.class) {
					continue
				}
				free := freeIn(r[0], g)
				if free < len(sr.passengers) {
					short++
					continue
				}
				out.Offers = append(out.Offers, od.newOffer(now, sr.client, r, []group{g}, sr.passengers, []int{free}))
			}
			continue
		}
	classes:
		for _, class := range sr.classes {
			groups := make([]group, len(r))
			free := make([]int, len(r))
			for i, j := range r {
				found := false
				for _, g := range groupsOf(j.train) {
					if g.class != class {
						continue
					}
					if n := freeIn(j, g); n >= len(sr.passengers) {
						groups[i], free[i], found = g, n, true
						break
					}
				}
				if !found {
					short++
					continue classes
				}
			}
			out.Offers = append(out.Offers, od.newOffer(now, sr.client, r, groups, sr.passengers, free))
		}
	}
	switch {
	case len(past) > 0 && len(notFound)+len(past) == len(trips):
		return problemResponse(osdm.NewProblem(http.StatusBadRequest, osdm.CodeOfferOutOfBounds,
			"the departure is in the past ("+strings.Join(past, ", ")+", now "+now.Format(time.RFC3339)+"); the sandbox sells no departure more than "+DepartureTolerance.String()+" ago"))
	case len(notFound) == len(trips):
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeNoResults,
			"no train runs: "+strings.Join(notFound, ", ")))
	case !sr.reservations && len(out.Trips) > 0:
		out.Problems = append(out.Problems, osdm.Fail(osdm.CodeParameterNotSupported, "the sandbox sells seat reservations only; ask for RESERVATION or ALL offer parts").WithPointer("#/offerSearchCriteria/requestedOfferParts").Inline())
	case len(out.Offers) == 0 && short > 0:
		out.Problems = append(out.Problems, osdm.Fail(osdm.CodeInsufficientAvailability,
			fmt.Sprintf("fewer than %d places left in the classes asked for", len(sr.passengers))).Inline())
	}
	return jsonResponse(http.StatusOK, &out)
}

// scheduleMismatch compares a specified leg with the GTFS timetable
// (Config.Feed), and returns the train's ride there, or with the train's
// configured schedule, if it has one: a consumer naming other times has
// another timetable than the partner.
func (od *offerDesk) scheduleMismatch(sl *specifiedLeg) (*timetable.Leg, *osdm.ProblemError) {
	if feed := od.led.cfg.Feed; feed != nil {
		r, ok := feed.Ride(sl.train, sl.origin, sl.dest, sl.dep.In(feed.Location()))
		if !ok {
			return nil, osdm.NewProblem(http.StatusBadRequest, osdm.CodeScheduleMismatch, fmt.Sprintf("train %s does not run from %s to %s on %s in the timetable", sl.train, stationPrefix+sl.origin, stationPrefix+sl.dest, sl.dep.In(feed.Location()).Format(time.DateOnly))).WithPointer(sl.at)
		}
		if !r.From.Departure.Equal(sl.dep) || !r.To.Arrival.Equal(sl.arr) {
			return nil, osdm.NewProblem(http.StatusBadRequest, osdm.CodeScheduleMismatch, fmt.Sprintf("train %s runs %s to %s that day, not %s to %s", sl.train, r.From.Departure.Format(time.RFC3339), r.To.Arrival.Format(time.RFC3339), sl.dep.Format(time.RFC3339), sl.arr.Format(time.RFC3339))).WithPointer(sl.at)
		}
		return &r, nil
	}
	if _, ok := od.trains.schedules[sl.train]; !ok {
		return nil, nil
	}
	dep, arr := od.trains.timetable(sl.train, sl.dep, false)
	if dep.Equal(sl.dep) && arr.Equal(sl.arr) {
		return nil, nil
	}
	return nil, osdm.NewProblem(http.StatusBadRequest, osdm.CodeScheduleMismatch, fmt.Sprintf("train %s runs %s to %s that day, not %s to %s", sl.train, dep.Format(time.RFC3339), arr.Format(time.RFC3339), sl.dep.Format(time.RFC3339), sl.arr.Format(time.RFC3339))).WithPointer(sl.at)
}

// minTransfer is the shortest change of train at station: the GTFS
// timetable's (transfers.txt) or min_transfer.
func (od *offerDesk) minTransfer(station string) time.Duration {
	if od.led.cfg.Feed != nil {
		if d, ok := od.led.cfg.Feed.MinTransfer(station, od.led.cfg.MinTransfer); ok {
			return d
		}
	}
	return od.led.cfg.MinTransfer
}

// changeTooShort checks the change from the train before (before; its
// ride in the GTFS timetable, when there is one) to the specified leg
// sl (ride, likewise): no shorter than the station's minimum transfer
// time, and allowed there.
func (od *offerDesk) changeTooShort(before *journey, beforeRide *timetable.Leg, sl *specifiedLeg, ride *timetable.Leg) *osdm.ProblemError {
	at := sl.at + "/start/serviceDeparture/timetabledTime"
	station := stationPrefix + sl.origin
	if beforeRide != nil && ride != nil {
		need, ok := od.led.cfg.Feed.Change(*beforeRide, *ride, od.led.cfg.MinTransfer)
		switch {
		case !ok:
			return osdm.NewProblem(http.StatusBadRequest, osdm.CodeScheduleMismatch, fmt.Sprintf("the timetable allows no change at %s from train %s to train %s (transfers.txt)", station, before.train, sl.train)).WithPointer(at)
		case sl.dep.Sub(before.arrival) < need:
			return osdm.NewProblem(http.StatusBadRequest, osdm.CodeScheduleMismatch, fmt.Sprintf("the change at %s from train %s (arriving %s) to train %s (leaving %s) takes at least %s (the timetable's transfers.txt, else min_transfer)",
				station, before.train, before.arrival.Format(time.RFC3339), sl.train, sl.dep.Format(time.RFC3339), need)).WithPointer(at)
		}
		return nil
	}
	if need := od.led.cfg.MinTransfer; sl.dep.Sub(before.arrival) < need {
		return osdm.NewProblem(http.StatusBadRequest, osdm.CodeScheduleMismatch, fmt.Sprintf("the change at %s from train %s (arriving %s) to train %s (leaving %s) takes at least %s (min_transfer)",
			station, before.train, before.arrival.Format(time.RFC3339), sl.train, sl.dep.Format(time.RFC3339), need)).WithPointer(at)
	}
	return nil
}

// alternativeSystemProposal is the v3.10 problem that sends a train's
// search to another reservation system.
func alternativeSystemProposal(ext ExternalInventory) osdm.Problem {
	system, priority := ext.ReservationSystemID, 1
	return osdm.Problem{
		Code:   osdm.CodeAlternativeSystemProposal,
		Type:   osdm.ProblemTypeAlternativeSystemProposal,
		Title:  "Train " + ext.Train + " is sold by another reservation system",
		Detail: fmt.Sprintf("book train %s in reservation system %d of operator %s", ext.Train, system, ext.Operator),
		AlternativeSystemProposals: []osdm.AlternativeSystemProposal{{
			ReservationSystemID: &system,
			SystemOperatorCode:  ext.Operator,
			Scope:               []osdm.AlternativeSystemProposalScope{{VehicleNumber: ext.Train}},
			Priority:            &priority,
		}},
	}
}

// problemBody is an error answer with a ready-made Problem.
func problemBody(status int, p osdm.Problem) *response {
	resp := jsonResponse(status, &p)
	resp.problem = true
	return resp
}

// newOffer makes and stores the offer of groups[i] on each train r[i] of
// a trip for the passengers; free[i] is the number of places left there.
// The offer is client's. Callers hold the Sandbox's lock.
func (od *offerDesk) newOffer(now time.Time, client string, r route, groups []group, pax []osdm.AnonymousPassengerSpecification, free []int) osdm.Offer {
	o := &offer{
		id:         od.led.newID("o"),
		createdOn:  now,
		expires:    minTime(now.Add(od.led.cfg.OfferTTL), r[0].departure.Add(DepartureTolerance)),
		route:      r,
		groups:     groups,
		passengers: pax,
		client:     client,
	}
	od.led.addOffer(o)

	refs := make([]string, len(pax))
	for i, p := range pax {
		refs[i] = p.ExternalRef
	}
	tripID := r.tripID()
	coverage := &osdm.TripCoverage{CoveredTripID: tripID}
	out := osdm.Offer{
		OfferID:          o.id,
		CreatedOn:        now,
		PreBookableUntil: o.expires,
		PassengerRefs:    refs,
		TripCoverage:     coverage,
	}
	var total int64
	var names []string
	for i, g := range groups {
		j := &r[i]
		var legTotal int64
		for _, p := range pax {
			legTotal += passengerPrice(g, p, j.departure)
		}
		total += legTotal
		prod := product(g, od.led.cfg.Operator)
		if !slices.ContainsFunc(out.Products, func(p osdm.Product) bool { return p.ID == prod.ID }) {
			out.Products = append(out.Products, prod)
		}
		leg := legID(i)
		coverage.CoveredLegIDs = append(coverage.CoveredLegIDs, leg)
		names = append(names, fmt.Sprintf("%s %s %s", serviceName(j.train), serviceClass(g).Name, g.acc))
		n := free[i]
		arrival := j.arrival
		out.ReservationOfferParts = append(out.ReservationOfferParts, osdm.ReservationOfferPart{
			OfferPart: osdm.OfferPart{
				ObjectType:                  osdm.ObjectTypeReservationOfferPart,
				ID:                          offerPartID(o.id, i),
				CreatedOn:                   now,
				ValidFrom:                   j.departure,
				ValidUntil:                  &arrival,
				Price:                       price(legTotal),
				TripCoverage:                &osdm.TripCoverage{CoveredTripID: tripID, CoveredLegIDs: []string{leg}},
				OfferMode:                   osdm.OfferModeCollective,
				PassengerRefs:               refs,
				NumericAvailability:         &n,
				Refundable:                  refundable,
				Exchangeable:                exchangeable,
				Products:                    []osdm.ProductLegAssociation{{ProductID: prod.ID, LegIDs: []string{leg}}},
				AvailableFulfillmentOptions: fulfillmentOptions,
			},
			AvailablePlaces: []osdm.AvailablePlace{{
				AccommodationType:    g.acc,
				AccommodationSubType: subType(g),
				NumericAvailability:  &n,
				TripLegCoverage:      osdm.TripLegCoverage{TripID: tripID, LegID: leg},
			}},
		})
	}
	g := groups[0]
	out.Summary = strings.Join(names, ", ") + " reservation"
	out.OfferSummary = &osdm.OfferSummary{
		MinimalPrice:                price(total),
		OverallServiceClass:         serviceClass(g),
		OverallTravelClass:          g.class,
		OverallAccommodationType:    g.acc,
		OverallAccommodationSubType: subType(g),
		OverallFlexibility:          flexibility,
	}
	return out
}

// DepartureTolerance is how long after its departure a train can still be
// searched and booked, as in the converter: a search for a train that
// left longer ago is answered 400 OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS, and
// an offer cannot be booked past its train's departure plus this (its
// preBookableUntil says so).
const DepartureTolerance = 5 * time.Minute

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// offerPartID is the id of an offer's reservation offer part on leg i,
// and of the reservation that books it: a consumer matches the two by id
// (an offer is booked at most once).
func offerPartID(offerID string, i int) string {
	if i == 0 {
		return offerID + "-rop"
	}
	return offerID + "-rop" + strconv.Itoa(i+1)
}
