package osdmsandbox

import (
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// tripOffersParams are the query parameters of GET /trip-offers, the offer
// search of older partners (not part of OSDM 3.9):
//
//	originCode, destinationCode  urn:uic:stn:NNNNNNN (or the 7 digits)
//	departureTime                RFC 3339 with offset, or local to the origin without one
//	vehicleNumbers               train numbers (repeated or comma-separated)
//	travelClasses                FIRST, SECOND (optional; repeated or comma-separated)
//	requestedOfferParts          RESERVATION, ADMISSION, ALL... (optional)
//	passenger                    <externalRef>,<TYPE>[,<age>], once per passenger
var tripOffersParams = map[string]bool{
	"originCode": true, "destinationCode": true, "departureTime": true,
	"vehicleNumbers": true, "travelClasses": true, "requestedOfferParts": true,
	"passenger": true,
}

// searchTripOffers serves GET /trip-offers with the same answer as POST /offers.
func (od *offerDesk) searchTripOffers(now time.Time, rq *request) *response {
	sr, p := parseTripOffersQuery(rq.query)
	if p != nil {
		return problemResponse(p)
	}
	sr.client = rq.client
	return od.answerSearch(now, sr)
}

// parseTripOffersQuery makes a search of GET /trip-offers parameters. An
// unknown parameter is refused, so that a misspelt one is not silently
// ignored.
func parseTripOffersQuery(q map[string][]string) (*search, *osdm.ProblemError) {
	for name := range q {
		if !tripOffersParams[name] {
			return nil, osdm.Invalid(osdm.CodeValidationError, "", "unknown query parameter "+strconv.Quote(name)+"; GET /trip-offers takes originCode, destinationCode, departureTime, vehicleNumbers, travelClasses, requestedOfferParts and passenger")
		}
	}
	one := func(name string) (string, *osdm.ProblemError) {
		switch v := q[name]; len(v) {
		case 0:
			return "", osdm.Invalid(osdm.CodeValidationError, "", "query parameter "+name+" is required")
		case 1:
			return v[0], nil
		}
		return "", osdm.Invalid(osdm.CodeValidationError, "", "query parameter "+name+" must be given once")
	}
	sr := &search{}
	for _, st := range []struct {
		name string
		dst  *string
	}{{"originCode", &sr.origin}, {"destinationCode", &sr.dest}} {
		v, p := one(st.name)
		if p != nil {
			return nil, p
		}
		if !strings.HasPrefix(v, stationPrefix) {
			v = stationPrefix + v
		}
		n, ok := stationNumber(v)
		if !ok {
			return nil, osdm.Invalid(osdm.CodeValidationError, "", st.name+" "+strconv.Quote(v)+" must be urn:uic:stn: and 7 digits")
		}
		*st.dst = n
	}
	dep, p := one("departureTime")
	if p != nil {
		return nil, p
	}
	t, ok := parseStopTime(dep, sr.origin)
	if !ok {
		return nil, osdm.Invalid(osdm.CodeValidationError, "", "departureTime "+strconv.Quote(dep)+" must be a date-time, with an offset (2026-12-01T08:30:00+01:00) or local to the origin (2026-12-01T08:30:00)")
	}
	sr.asked = t

	keep := false
	if trains := listParam(q["vehicleNumbers"]); len(trains) > 0 {
		if p := sr.setTrains(&osdm.VehicleFilter{Exclude: &keep, VehicleNumbers: trains}); p != nil {
			return nil, queryProblem(p, "vehicleNumbers")
		}
	} else if p := sr.setTrains(nil); p != nil {
		return nil, p
	}
	var classes []osdm.TravelClass
	for _, c := range listParam(q["travelClasses"]) {
		classes = append(classes, osdm.TravelClass(c))
	}
	if p := sr.setClasses(classes, ""); p != nil {
		return nil, queryProblem(p, "travelClasses")
	}
	var parts []osdm.OfferPartType
	for _, part := range listParam(q["requestedOfferParts"]) {
		parts = append(parts, osdm.OfferPartType(part))
	}
	sr.setOfferParts(parts)

	var pax []osdm.AnonymousPassengerSpecification
	for _, v := range q["passenger"] {
		f := strings.Split(v, ",")
		if len(f) < 2 || len(f) > 3 {
			return nil, osdm.Invalid(osdm.CodeValidationError, "", "passenger "+strconv.Quote(v)+" must be <externalRef>,<TYPE>[,<age>], e.g. p1,ADULT,30")
		}
		spec := osdm.AnonymousPassengerSpecification{ExternalRef: f[0], Type: osdm.PassengerType(f[1])}
		if len(f) == 3 && f[2] != "" {
			age, err := strconv.Atoi(f[2])
			if err != nil {
				return nil, osdm.Invalid(osdm.CodeValidationError, "", "passenger "+strconv.Quote(v)+": age "+strconv.Quote(f[2])+" is not a number")
			}
			spec.Age = &age
		}
		pax = append(pax, spec)
	}
	if p := sr.setPassengers(pax, ""); p != nil {
		return nil, queryProblem(p, "passenger")
	}
	if p := sr.check(); p != nil {
		return nil, queryProblem(p, "")
	}
	return sr, nil
}

// listParam splits repeated and comma-separated values.
func listParam(values []string) []string {
	var out []string
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// queryProblem turns a problem about a JSON body field into one about a
// query parameter: the JSON pointer means nothing in a query.
func queryProblem(p *osdm.ProblemError, param string) *osdm.ProblemError {
	p.Pointers = nil
	if param != "" {
		p.Detail = "query parameter " + param + ": " + p.Detail
	}
	return p
}
