package osdmlegacy

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// offerRequest is an OSDM offer search (OfferCollectionRequest) as read,
// every member checked against the spec and the restrictions; what needs
// a station's time zone or the timetable is resolved by the search.
type offerRequest struct {
	// origin and destination are 7-digit UIC codes, with their pointers.
	origin, destination       string
	originPtr, destinationPtr string
	// at is the departure (or, with arrival, the arrival) time asked.
	at      *localTime
	arrival bool
	// named lists trains the search names (vehicle filter kept or a trip
	// specification's leg); excluded those a vehicle filter drops.
	named    []namedTrain
	excluded map[string]bool
	// spec is set for a search by trip specification.
	spec bool
	// legs are the timed legs of a trip specification with changes, in
	// order (nil for one train: named[0] is it).
	legs []specLeg
	// after and before are numberOfResultsAfter/Before (spec defaults 5, 0).
	after, before int
	// classes are legacy travel classes asked, in order.
	classes []int
	// currency is the currency asked, "" for any.
	currency string
	// passengers are the travellers, with their pointers.
	passengers []passengerArg
}

// namedTrain is a train the search names.
type namedTrain struct {
	train string
	ptr   string
	// departure and arrival are a trip specification's times (nil from a
	// vehicle filter).
	departure, arrival *localTime
	// carrier is the RICS code of the trip specification's first carrier
	// named urn:uic:rics:NNNN, "" when none is.
	carrier string
}

// specLeg is one timed leg of a trip specification with changes.
type specLeg struct {
	// origin and destination are where the train is boarded and left,
	// 7-digit UIC codes, with the pointer of the leg's start.
	origin, destination string
	ptr                 string
	train               namedTrain
}

// passengerArg is one anonymousPassengerSpecifications item.
type passengerArg struct {
	ref  string
	typ  osdm.PassengerType
	age  *int
	dob  string
	ptr  string
	tPtr string // pointer of its type
}

// uicStation returns the 7-digit code of a UIC station reference
// ("urn:uic:stn:8500010" or "8500010"), and whether it is one.
func uicStation(s string) (string, bool) {
	s = strings.TrimPrefix(s, "urn:uic:stn:")
	if len(s) != 7 || !allDigits(s) {
		return "", false
	}
	return s, true
}

// readOfferRequest reads an OfferCollectionRequest body strictly.
func readOfferRequest(body []byte) (*offerRequest, *osdm.ProblemError) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, osdm.Invalid(osdm.CodeOfferInvalid, "", "an offer search needs a JSON body (OfferCollectionRequest)")
	}
	root, err := parseJSONTree(body)
	if err != nil {
		je := err.(*jsonError)
		return nil, osdm.Invalid(osdm.CodeOfferInvalid, je.pointer, je.msg)
	}
	r := &treeReader{code: osdm.CodeOfferInvalid, outCode: osdm.CodeOfferOutOfBounds}
	q := &offerRequest{after: 5}
	var tsc, specs, pax *jnode
	var tscPtr, specsPtr string
	r.members(root, "#", "OfferCollectionRequest", func(name string, v *jnode, p string) bool {
		switch name {
		case "tripSearchCriteria":
			tsc, tscPtr = v, p
		case "tripSpecifications":
			specs, specsPtr = v, p
		case "anonymousPassengerSpecifications":
			pax = v
		case "offerSearchCriteria":
			if given(v) {
				q.readOfferCriteria(r, v, p)
			}
		case "tripIds":
			if len(r.array(v, p)) > 0 {
				r.restricted(RestrictKnownTrain, p, "trips of a trip search are not offered; name the train in tripSearchCriteria or tripSpecifications")
			}
		case "inboundTripIds", "inboundTripSpecifications":
			if len(r.array(v, p)) > 0 {
				r.restricted(RestrictDirect, p, "return trips are not offered; search each direction on its own")
			}
		case "nonTripSearchCriteria":
			if given(v) {
				r.restricted(RestrictReservations, p, "only reservations on a train are offered, no products without a trip")
			}
		case "requestedSections":
			if len(r.array(v, p)) > 0 {
				r.restricted(RestrictDirect, p, "sections of a trip are not offered: a trip is one direct train")
			}
		case "corporateCodes", "promotionCodes":
			if len(r.array(v, p)) > 0 {
				r.restricted(RestrictReservations, p, "prices are the reservation system's tariffs; corporate and promotion codes are not applied")
			}
		case "tripResponseParameters", "requestedFulfillmentOptions", "embed":
			// Presentation preferences: what is answered does not change.
		default:
			return false
		}
		return true
	})
	if !r.ok() {
		return nil, r.err
	}
	switch {
	case given(tsc) && given(specs):
		r.restricted(RestrictDirect, specsPtr, "give either tripSearchCriteria or tripSpecifications, not both")
	case given(tsc):
		q.readTripSearch(r, tsc, tscPtr)
	case given(specs):
		q.readTripSpecifications(r, specs, specsPtr)
	default:
		r.restricted(RestrictKnownTrain, "#", "an offer search needs tripSearchCriteria or one tripSpecifications item")
	}
	q.readPassengers(r, pax)
	if !r.ok() {
		return nil, r.err
	}
	if len(q.classes) == 0 {
		q.classes = []int{legacy.SecondClass, legacy.FirstClass}
	}
	return q, nil
}

// readPlace reads a PlaceRef that must be a UIC station (restriction 3).
func (q *offerRequest) readPlace(r *treeReader, v *jnode, ptr string) string {
	if !r.ok() {
		return ""
	}
	if !given(v) {
		r.invalid(ptr, "is required")
		return ""
	}
	if !r.object(v, ptr, "PlaceRef") {
		return ""
	}
	var objectType, ref string
	var refPtr string
	var others bool
	for _, m := range v.Members {
		switch m.Name {
		case "objectType":
			objectType = r.str(m.Value, ptr+"/objectType", 64)
		case "stopPlaceRef":
			refPtr = ptr + "/stopPlaceRef"
			ref = r.str(m.Value, refPtr, 64)
		default:
			others = true
		}
	}
	if !r.ok() {
		return ""
	}
	switch {
	case objectType == "":
		r.invalid(ptr+"/objectType", "is required")
	case objectType != osdm.ObjectTypeStopPlaceRef:
		r.err = restricted(RestrictUICStations, osdm.CodeOfferPlaceUnknown, ptr+"/objectType",
			"places must be StopPlaceRef stations, not "+strconv.Quote(shorten(objectType, 40)))
	case others:
		for _, m := range v.Members {
			if m.Name != "objectType" && m.Name != "stopPlaceRef" {
				r.invalid(ptr+"/"+jsontree.EscapePointer(m.Name), "member "+strconv.Quote(shorten(m.Name, 64))+" is not in OSDM's StopPlaceRef")
				break
			}
		}
	case ref == "":
		r.invalid(ptr+"/stopPlaceRef", "is required")
	default:
		code, ok := uicStation(ref)
		if !ok {
			r.err = restricted(RestrictUICStations, osdm.CodeOfferPlaceUnknown, refPtr,
				strconv.Quote(shorten(ref, 40))+" is not a UIC station code (urn:uic:stn:NNNNNNN or 7 digits)")
			return ""
		}
		return code
	}
	return ""
}

// readTripSearch reads tripSearchCriteria.
func (q *offerRequest) readTripSearch(r *treeReader, v *jnode, ptr string) {
	var origin, destination *jnode
	var dep, arr *localTime
	r.members(v, ptr, "TripSearchCriteria", func(name string, m *jnode, p string) bool {
		switch name {
		case "origin":
			origin = m
		case "destination":
			destination = m
		case "departureTime":
			dep = r.dateTime(m, p)
		case "arrivalTime":
			arr = r.dateTime(m, p)
		case "vias":
			if len(r.array(m, p)) > 0 {
				r.restricted(RestrictDirect, p, "vias are not offered: a trip is one direct train")
			}
		case "notVias":
			if len(r.array(m, p)) > 0 {
				r.restricted(RestrictDirect, p, "notVias are not offered: a trip is one direct train, whatever it passes")
			}
		case "returnSearchParameters":
			if given(m) {
				r.restricted(RestrictDirect, p, "return trips are not offered; search each direction on its own")
			}
		case "parameters":
			if given(m) {
				q.readParameters(r, m, p)
			}
		case "embed":
		default:
			return false
		}
		return true
	})
	q.originPtr, q.destinationPtr = ptr+"/origin", ptr+"/destination"
	q.origin = q.readPlace(r, origin, q.originPtr)
	q.destination = q.readPlace(r, destination, q.destinationPtr)
	if r.ok() && q.origin == q.destination {
		r.restricted(RestrictDirect, q.destinationPtr, "origin and destination are the same station")
	}
	switch {
	case !r.ok():
	case dep != nil && arr != nil:
		r.restricted(RestrictKnownTrain, arr.ptr, "give departureTime or arrivalTime, not both")
	case dep != nil:
		q.at = dep
	case arr != nil:
		q.at, q.arrival = arr, true
	default:
		r.restricted(RestrictKnownTrain, ptr, "a search needs a departureTime or an arrivalTime: it says which day the train runs")
	}
}

// readParameters reads tripSearchCriteria.parameters.
func (q *offerRequest) readParameters(r *treeReader, v *jnode, ptr string) {
	r.members(v, ptr, "TripParameters", func(name string, m *jnode, p string) bool {
		switch name {
		case "dataFilter":
			if given(m) {
				q.readDataFilter(r, m, p)
			}
		case "numberOfResultsAfter":
			q.after = r.integer(m, p, 0, 100, 5)
		case "numberOfResultsBefore":
			q.before = r.integer(m, p, 0, 100, 0)
		case "numberOfResults":
			// Deprecated in 3.7: the same as numberOfResultsAfter.
			q.after = r.integer(m, p, 0, 100, q.after)
		case "transferLimit":
			// Every trip here has 0 transfers, within any limit.
			r.integer(m, p, 0, 100, 0)
		case "ignoreRealtimeData":
			r.boolean(m, p, false)
		case "policyFilter", "mobilityFilter", "itModesToCover":
			if given(m) {
				r.restricted(RestrictKnownTrain, p, "only the vehicle filter is applied: trips are direct trains of the timetable")
			}
		default:
			return false
		}
		return true
	})
}

// readDataFilter reads parameters.dataFilter: only vehicleFilter applies.
func (q *offerRequest) readDataFilter(r *treeReader, v *jnode, ptr string) {
	r.members(v, ptr, "TripDataFilter", func(name string, m *jnode, p string) bool {
		switch name {
		case "vehicleFilter":
			if given(m) {
				q.readVehicleFilter(r, m, p)
			}
		case "ptModeFilter", "carrierFilter", "serviceBrandFilter":
			if given(m) {
				r.restricted(RestrictKnownTrain, p, "only the vehicle filter is applied: trips are direct trains of the reservation system")
			}
		default:
			return false
		}
		return true
	})
}

// readVehicleFilter reads a vehicle filter: exclude false names the
// trains to ask; exclude true (the spec's default) drops them from a
// timetable search.
func (q *offerRequest) readVehicleFilter(r *treeReader, v *jnode, ptr string) {
	exclude := true
	var numbers []*jnode
	var numbersPtr string
	r.members(v, ptr, "VehicleFilter", func(name string, m *jnode, p string) bool {
		switch name {
		case "exclude":
			exclude = r.boolean(m, p, true)
		case "vehicleNumbers":
			numbers, numbersPtr = r.array(m, p), p
		case "lineNumbers":
			if len(r.array(m, p)) > 0 {
				r.restricted(RestrictKnownTrain, p, "trains are named by vehicle number, not line number")
			}
		default:
			return false
		}
		return true
	})
	for i, n := range numbers {
		p := item(numbersPtr, i)
		s := r.str(n, p, 64)
		if !r.ok() {
			return
		}
		if !given(n) {
			r.invalid(p, "must be a train number")
			return
		}
		if !legacy.ValidTrainNumber(s) {
			r.restricted(RestrictKnownTrain, p, "train number "+strconv.Quote(shorten(s, 20))+" is not 1..5 letters or digits (the Hermes limit)")
			return
		}
		if exclude {
			if q.excluded == nil {
				q.excluded = map[string]bool{}
			}
			q.excluded[s] = true
			continue
		}
		dup := false
		for _, t := range q.named {
			dup = dup || t.train == s
		}
		if !dup {
			q.named = append(q.named, namedTrain{train: s, ptr: p})
		}
	}
	if r.ok() && !exclude && len(numbers) == 0 {
		r.restricted(RestrictKnownTrain, numbersPtr, "a vehicle filter that keeps trains must name at least one")
	}
}

// readTripSpecifications reads tripSpecifications: one trip of one timed leg.
func (q *offerRequest) readTripSpecifications(r *treeReader, v *jnode, ptr string) {
	specs := r.array(v, ptr)
	if !r.ok() {
		return
	}
	if len(specs) != 1 {
		r.restricted(RestrictDirect, ptr, "give exactly one trip specification (one direct train), not "+strconv.Itoa(len(specs)))
		return
	}
	q.spec = true
	sp := item(ptr, 0)
	var legs []*jnode
	legsPtr := sp + "/legs"
	r.members(specs[0], sp, "TripSpecification", func(name string, m *jnode, p string) bool {
		switch name {
		case "externalRef":
			r.str(m, p, 256)
		case "legs":
			legs = r.array(m, p)
		case "isPartOfInternationalTrip":
			r.boolean(m, p, false)
		case "returnSearchParameters":
			if given(m) {
				r.restricted(RestrictDirect, p, "return trips are not offered; search each direction on its own")
			}
		default:
			return false
		}
		return true
	})
	if !r.ok() {
		return
	}
	if len(legs) == 0 {
		r.invalid(legsPtr, "a trip specification needs at least one leg")
		return
	}
	var timed []specLeg
	lastTransfer := false
	for i, leg := range legs {
		lp := item(legsPtr, i)
		var tl *jnode
		var transfer bool
		r.members(leg, lp, "TripLegSpecification", func(name string, m *jnode, p string) bool {
			switch name {
			case "externalRef":
				r.str(m, p, 256)
			case "timedLeg":
				tl = m
			case "transferLeg":
				if given(m) {
					// A walk between the trains: the change is checked
					// from the trains' times and the station's minimum
					// transfer time, whatever the walk says.
					transfer = r.object(m, p, "TransferLegSpecification")
				}
			default:
				return false
			}
			return true
		})
		if !r.ok() {
			return
		}
		switch {
		case given(tl) && transfer:
			r.invalid(lp, "a leg is a timedLeg or a transferLeg, not both")
		case transfer && (i == 0 || i == len(legs)-1 || lastTransfer):
			r.restricted(RestrictDirect, lp, "a transfer leg stands between two timed legs (trains)")
		case transfer:
			lastTransfer = true
			continue
		case !given(tl):
			r.restricted(RestrictDirect, lp, "the leg must be a timedLeg (a train) or a transferLeg between two")
		}
		if !r.ok() {
			return
		}
		lastTransfer = false
		sl := q.readTimedLeg(r, tl, lp+"/timedLeg")
		if !r.ok() {
			return
		}
		if n := len(timed); n > 0 && timed[n-1].destination != sl.origin {
			r.restricted(RestrictDirect, sl.ptr+"/stopPlaceRef", "the leg starts at "+sl.origin+", not where the leg before ends ("+timed[n-1].destination+"): a change is at one station")
			return
		}
		timed = append(timed, sl)
	}
	first, last := timed[0], timed[len(timed)-1]
	q.originPtr, q.destinationPtr = first.ptr+"/stopPlaceRef", last.ptr[:len(last.ptr)-len("/start")]+"/end/stopPlaceRef"
	q.origin, q.destination = first.origin, last.destination
	if q.origin == q.destination {
		r.restricted(RestrictDirect, q.destinationPtr, "start and end are the same station")
		return
	}
	q.at = first.train.departure
	q.named = nil
	for _, l := range timed {
		q.named = append(q.named, l.train)
	}
	if len(timed) > 1 {
		q.legs = timed
	}
}

// readTimedLeg reads a TimedLegSpecification.
func (q *offerRequest) readTimedLeg(r *treeReader, v *jnode, ptr string) specLeg {
	var start, end, service *jnode
	r.members(v, ptr, "TimedLegSpecification", func(name string, m *jnode, p string) bool {
		switch name {
		case "start":
			start = m
		case "end":
			end = m
		case "service":
			service = m
		case "intermediates":
			// The stops passed: a direct train passes them anyway.
			for i, it := range r.array(m, p) {
				r.object(it, item(p, i), "IntermediateSpecification")
			}
		default:
			return false
		}
		return true
	})
	var sl specLeg
	if !r.ok() {
		return sl
	}
	for _, req := range []struct {
		n    *jnode
		name string
	}{{start, "start"}, {end, "end"}, {service, "service"}} {
		if !given(req.n) {
			r.invalid(ptr+"/"+req.name, "is required")
			return sl
		}
	}
	sl.ptr = ptr + "/start"
	sl.origin, sl.train.departure = q.readStop(r, start, ptr+"/start", "BoardSpecification", "serviceDeparture")
	sl.destination, sl.train.arrival = q.readStop(r, end, ptr+"/end", "AlightSpecification", "serviceArrival")
	if r.ok() && sl.origin == sl.destination {
		r.restricted(RestrictDirect, ptr+"/end/stopPlaceRef", "start and end are the same station")
	}
	sl.train.train, sl.train.ptr, sl.train.carrier = q.readService(r, service, ptr+"/service")
	return sl
}

// readStop reads a Board/AlightSpecification: the station and its time.
func (q *offerRequest) readStop(r *treeReader, v *jnode, ptr, schema, timeName string) (string, *localTime) {
	var place, st *jnode
	r.members(v, ptr, schema, func(name string, m *jnode, p string) bool {
		switch name {
		case "stopPlaceRef":
			place = m
		case timeName:
			st = m
		case "replacedPlaceRef":
			if given(m) {
				r.restricted(RestrictUICStations, p, "replaced stops are not offered")
			}
		default:
			return false
		}
		return true
	})
	code := q.readPlace(r, place, ptr+"/stopPlaceRef")
	if !r.ok() {
		return "", nil
	}
	tp := ptr + "/" + timeName
	if !given(st) {
		r.invalid(tp, "is required")
		return "", nil
	}
	var at *localTime
	r.members(st, tp, "ServiceTime", func(name string, m *jnode, p string) bool {
		switch name {
		case "timetabledTime":
			at = r.dateTime(m, p)
		case "estimatedTime", "observedTime":
			r.dateTime(m, p)
		default:
			return false
		}
		return true
	})
	if r.ok() && at == nil {
		r.invalid(tp+"/timetabledTime", "is required")
	}
	return code, at
}

// readService reads a DatedJourney: one vehicle number of 1..5 characters
// and its carriers; it returns the train, its pointer and the RICS code of
// the first carrier named urn:uic:rics:NNNN (the legacy Carrier).
func (q *offerRequest) readService(r *treeReader, v *jnode, ptr string) (string, string, string) {
	var numbers []*jnode
	var carriers bool
	var carrier string
	r.members(v, ptr, "DatedJourney", func(name string, m *jnode, p string) bool {
		switch name {
		case "vehicleNumbers":
			numbers = r.array(m, p)
		case "carriers":
			for i, c := range r.array(m, p) {
				ip := item(p, i)
				r.members(c, ip, "NamedCompany", func(name string, m *jnode, p string) bool {
					switch name {
					case "ref":
						if rics, ok := ricsOf(r.str(m, p, 256)); ok && carrier == "" {
							carrier = rics
						}
					case "name":
						r.str(m, p, 256)
					default:
						return false
					}
					return true
				})
				carriers = true
			}
		case "operatingDayRef", "publishedServiceName", "productCategory", "mode",
			"lineNumbers", "serviceStatus", "situationFullRefs", "attributes":
			// Descriptions of the train; the vehicle number names it.
		default:
			return false
		}
		return true
	})
	if !r.ok() {
		return "", "", ""
	}
	np := ptr + "/vehicleNumbers"
	if !carriers {
		r.invalid(ptr+"/carriers", "is required (at least one carrier)")
		return "", "", ""
	}
	if len(numbers) != 1 {
		r.restricted(RestrictKnownTrain, np, "name exactly one train number, not "+strconv.Itoa(len(numbers)))
		return "", "", ""
	}
	p := item(np, 0)
	s := r.str(numbers[0], p, 64)
	if r.ok() && !legacy.ValidTrainNumber(s) {
		r.restricted(RestrictKnownTrain, p, "train number "+strconv.Quote(shorten(s, 20))+" is not 1..5 letters or digits (the Hermes limit)")
	}
	return s, p, carrier
}

// ricsOf is the 4-digit RICS code of an OSDM company code
// "urn:uic:rics:NNNN".
func ricsOf(ref string) (string, bool) {
	code, ok := strings.CutPrefix(ref, ricsPrefix)
	if !ok || len(code) != 4 || strings.Trim(code, "0123456789") != "" {
		return "", false
	}
	return code, true
}

// readOfferCriteria reads offerSearchCriteria.
func (q *offerRequest) readOfferCriteria(r *treeReader, v *jnode, ptr string) {
	r.members(v, ptr, "OfferSearchCriteria", func(name string, m *jnode, p string) bool {
		switch name {
		case "requestedOfferParts":
			parts := r.array(m, p)
			reservation := len(parts) == 0
			for i, it := range parts {
				s := r.str(it, item(p, i), 32)
				switch osdm.OfferPartType(s) {
				case osdm.OfferPartReservation, osdm.OfferPartAll:
					reservation = true
				case osdm.OfferPartAdmission, osdm.OfferPartAncillary, "FARE_ADMISSION", "FARE_RESERVATION", "FARE_ANCILLARY", "CONTINUOUS_SERVICE":
				default:
					r.invalid(item(p, i), "is not an OSDM offer part type")
				}
			}
			if r.ok() && !reservation {
				r.restricted(RestrictReservations, p, "only reservations are offered: ask for RESERVATION or ALL")
			}
		case "travelClasses":
			for i, it := range r.array(m, p) {
				ip := item(p, i)
				switch s := r.str(it, ip, 32); osdm.TravelClass(s) {
				case osdm.TravelClassFirst:
					q.addClass(legacy.FirstClass)
				case osdm.TravelClassSecond:
					q.addClass(legacy.SecondClass)
				case osdm.TravelClassAny:
					q.addClass(legacy.SecondClass)
					q.addClass(legacy.FirstClass)
				default:
					if r.ok() {
						r.restricted(RestrictReservations, ip, "travel classes are FIRST and SECOND, not "+strconv.Quote(shorten(s, 32)))
					}
				}
			}
		case "offerMode":
			if s := r.str(m, p, 32); r.ok() && s != "" && osdm.OfferMode(s) != osdm.OfferModeCollective {
				if osdm.OfferMode(s) == osdm.OfferModeIndividual {
					r.restricted(RestrictOneOffer, p, "an offer covers all passengers together (COLLECTIVE)")
				} else {
					r.invalid(p, "must be COLLECTIVE or INDIVIDUAL")
				}
			}
		case "currency":
			if s := r.str(m, p, 3); r.ok() && s != "" {
				if len(s) != 3 || !allLetters(s) || strings.ToUpper(s) != s {
					r.invalid(p, "must be an ISO 4217 currency code")
				}
				q.currency = s
			}
		case "flexibilities", "serviceClassTypes", "productTags":
			// Preferences; every offer here is one reservation per class.
			for i, it := range r.array(m, p) {
				r.str(it, item(p, i), 64)
			}
		case "productSelections":
			if len(r.array(m, p)) > 0 {
				r.restricted(RestrictReservations, p, "products are not selectable: an offer is the reservation of a class")
			}
		case "inboundDate":
			if given(m) {
				r.restricted(RestrictDirect, p, "return trips are not offered; search each direction on its own")
			}
		default:
			return false
		}
		return true
	})
}

func (q *offerRequest) addClass(c int) {
	for _, k := range q.classes {
		if k == c {
			return
		}
	}
	q.classes = append(q.classes, c)
}

// readPassengers reads anonymousPassengerSpecifications: 1..9 travellers
// (restriction 5) with distinct externalRefs.
func (q *offerRequest) readPassengers(r *treeReader, v *jnode) {
	const ptr = "#/anonymousPassengerSpecifications"
	if !r.ok() {
		return
	}
	if !given(v) {
		r.invalid(ptr, "is required: the passengers of the search")
		return
	}
	items := r.array(v, ptr)
	if !r.ok() {
		return
	}
	if len(items) == 0 {
		r.restricted(RestrictPassengers, ptr, "at least one passenger is needed")
		return
	}
	if len(items) > maxPassengers {
		r.restricted(RestrictPassengers, item(ptr, maxPassengers), "at most 9 passengers travel on one offer, not "+strconv.Itoa(len(items)))
		return
	}
	for i, it := range items {
		p := item(ptr, i)
		pa := passengerArg{ptr: p}
		var hasType bool
		r.members(it, p, "AnonymousPassengerSpecification", func(name string, m *jnode, mp string) bool {
			switch name {
			case "externalRef":
				pa.ref = r.str(m, mp, 64)
			case "type":
				pa.typ, pa.tPtr, hasType = osdm.PassengerType(r.str(m, mp, 32)), mp, true
			case "age":
				if given(m) {
					a := r.integer(m, mp, 0, 150, 0)
					pa.age = &a
				}
			case "dateOfBirth":
				pa.dob = r.date(m, mp)
			case "gender", "residency":
				r.str(m, mp, 32)
			case "prmNeeds", "cards":
				if len(r.array(m, mp)) > 0 {
					r.restricted(RestrictPassengers, mp, "reduction cards and PRM needs have no legacy tariff")
				}
			case "transportable":
				if given(m) {
					r.restricted(RestrictPassengers, mp, "transportables have no legacy tariff")
				}
			default:
				return false
			}
			return true
		})
		if !r.ok() {
			return
		}
		if pa.ref == "" {
			r.invalid(p+"/externalRef", "is required")
			return
		}
		if !hasType || pa.typ == "" {
			r.invalid(p+"/type", "is required")
			return
		}
		for _, o := range q.passengers {
			if o.ref == pa.ref {
				r.invalid(p+"/externalRef", "externalRef "+strconv.Quote(shorten(pa.ref, 40))+" is given to two passengers")
				return
			}
		}
		q.passengers = append(q.passengers, pa)
	}
}
