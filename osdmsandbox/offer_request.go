package osdmsandbox

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// offerRequest is the body of POST /offers as the sandbox reads it: that
// of osdm.OfferCollectionRequest, with tripSpecifications, with times kept
// as sent (they may come without an offset), and with the members it
// refuses kept to name them.
type offerRequest struct {
	TripSearchCriteria               *searchCriteria                        `json:"tripSearchCriteria"`
	TripSpecifications               []tripSpecification                    `json:"tripSpecifications"`
	InboundTripSpecifications        []json.RawMessage                      `json:"inboundTripSpecifications"`
	TripIDs                          []string                               `json:"tripIds"`
	InboundTripIDs                   []string                               `json:"inboundTripIds"`
	NonTripSearchCriteria            json.RawMessage                        `json:"nonTripSearchCriteria"`
	OfferSearchCriteria              *osdm.OfferSearchCriteria              `json:"offerSearchCriteria"`
	AnonymousPassengerSpecifications []osdm.AnonymousPassengerSpecification `json:"anonymousPassengerSpecifications"`
}

// searchCriteria is a TripSearchCriteria.
type searchCriteria struct {
	DepartureTime *string              `json:"departureTime"`
	ArrivalTime   *string              `json:"arrivalTime"`
	Origin        osdm.PlaceRef        `json:"origin"`
	Destination   osdm.PlaceRef        `json:"destination"`
	Vias          []json.RawMessage    `json:"vias"`
	Parameters    *osdm.TripParameters `json:"parameters"`
}

// tripSpecification is a TripSpecification: a trip the consumer names
// leg by leg, timed legs with their train and times.
type tripSpecification struct {
	ExternalRef string             `json:"externalRef"`
	Legs        []legSpecification `json:"legs"`
}

// legSpecification is a TripLegSpecification.
type legSpecification struct {
	ExternalRef string                    `json:"externalRef"`
	TimedLeg    *timedLegSpecification    `json:"timedLeg"`
	TransferLeg *transferLegSpecification `json:"transferLeg"`
}

// transferLegSpecification is a TransferLeg: a change between two timed
// legs; start and end are required.
type transferLegSpecification struct {
	Start    *osdm.PlaceRef `json:"start"`
	End      *osdm.PlaceRef `json:"end"`
	Duration string         `json:"duration"`
}

// timedLegSpecification is a TimedLegSpecification.
type timedLegSpecification struct {
	Start struct {
		StopPlaceRef     osdm.PlaceRef `json:"stopPlaceRef"`
		ServiceDeparture *serviceTime  `json:"serviceDeparture"`
	} `json:"start"`
	End struct {
		StopPlaceRef   osdm.PlaceRef `json:"stopPlaceRef"`
		ServiceArrival *serviceTime  `json:"serviceArrival"`
	} `json:"end"`
	Service struct {
		VehicleNumbers []string            `json:"vehicleNumbers"`
		Carriers       []osdm.NamedCompany `json:"carriers"`
	} `json:"service"`
}

// serviceTime is a ServiceTime.
type serviceTime struct {
	TimetabledTime string `json:"timetabledTime"`
}

// fallbackZone is where a time without offset is read at a station of a
// country osdm.StationLocation does not know: the converter's default.
var fallbackZone = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic("osdmsandbox: " + err.Error())
	}
	return loc
}()

// stationZone is the time zone of a station number.
func stationZone(station string) *time.Location {
	if loc, ok := osdm.StationLocation(station); ok {
		return loc
	}
	return fallbackZone
}

// parseStopTime reads an OSDM date-time at a station: RFC 3339 with an
// offset, or the local date-time of the stop without one
// ("2026-12-01T08:30:00", seconds optional), as the spec's
// TripSearchCriteria asks for and OTST sends, read in the station's zone.
func parseStopTime(v, station string) (time.Time, bool) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, true
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, v, stationZone(station)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// stopTimeProblem is the 400 of a date-time that parseStopTime refuses.
func stopTimeProblem(at, name, v string) *osdm.ProblemError {
	return osdm.Invalid(osdm.CodeValidationError, at, name+" "+strconv.Quote(v)+" must be a date-time, with an offset (2026-12-01T08:30:00+01:00) or local to the stop (2026-12-01T08:30:00)")
}

// specifiedTrip is a trip specification, checked: its trains in order.
type specifiedTrip struct {
	externalRef string
	legs        []specifiedLeg
}

// specifiedLeg is a timed leg of a trip specification, checked.
type specifiedLeg struct {
	train        string
	origin, dest string
	dep, arr     time.Time
	at           string // JSON pointer of the leg
	// carrier is the first carrier the leg names, "" for none: the trip
	// answered names it as the train's carrier.
	carrier     osdm.NamedCompany
	externalRef string
	// change is the transfer leg specified before this one, if any (its
	// duration -1 when it gives none).
	change    transfer
	hasChange bool
}

// maxLegs bounds the legs of one trip specification.
const maxLegs = 5

// parseTripSpecifications checks the trip specifications: each is a trip
// of one or more trains, in order, each leaving from the station where
// the one before arrives, after it arrives; a transfer leg between two
// is the change at that station (its duration and externalRef are kept,
// for the trip answered). It returns the trains of each trip. Whether a
// change is long enough depends on the timetable: the search checks it.
func parseTripSpecifications(specs []tripSpecification) ([]specifiedTrip, *osdm.ProblemError) {
	if len(specs) > maxTrains {
		return nil, osdm.Invalid(osdm.CodeValidationError, "#/tripSpecifications", "at most "+strconv.Itoa(maxTrains)+" trip specifications per search")
	}
	out := make([]specifiedTrip, 0, len(specs))
	trains := 0
	for i, spec := range specs {
		at := "#/tripSpecifications/" + strconv.Itoa(i)
		if len(spec.Legs) > 2*maxLegs {
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/legs", "at most "+strconv.Itoa(maxLegs)+" trains per trip")
		}
		var legs []specifiedLeg
		var change *transfer // a transfer leg read, waiting for its next train
		var changeAt string
		for k, l := range spec.Legs {
			lat := at + "/legs/" + strconv.Itoa(k)
			switch {
			case l.TimedLeg != nil && l.TransferLeg != nil:
				return nil, osdm.Invalid(osdm.CodeValidationError, lat, "a leg is a timedLeg or a transferLeg, not both")
			case l.TimedLeg == nil && l.TransferLeg == nil:
				return nil, osdm.Invalid(osdm.CodeValidationError, lat, "a leg is a timedLeg or a transferLeg")
			case l.TransferLeg != nil:
				if len(legs) == 0 || change != nil {
					return nil, notSupported(lat+"/transferLeg", "the sandbox sells trains: a transfer leg is read only between two timed legs, as the change from one to the next")
				}
				tr, p := parseTransferLeg(l.TransferLeg, legs[len(legs)-1].dest, lat+"/transferLeg")
				if p != nil {
					return nil, p
				}
				tr.externalRef = l.ExternalRef
				change, changeAt = &tr, lat
				continue
			}
			leg, p := parseTimedLeg(l.TimedLeg, lat+"/timedLeg")
			if p != nil {
				return nil, p
			}
			leg.externalRef = l.ExternalRef
			if n := len(legs); n > 0 {
				prev := &legs[n-1]
				if leg.origin != prev.dest {
					where := "the station where the leg before ends"
					if change != nil {
						where = "the station of the transfer leg before (" + changeAt + ")"
					}
					return nil, osdm.Invalid(osdm.CodeValidationError, lat+"/timedLeg/start/stopPlaceRef",
						"this train leaves from "+stationPrefix+leg.origin+", not from "+stationPrefix+prev.dest+", "+where+": the sandbox changes trains at a station both stop at")
				}
				if leg.dep.Before(prev.arr) {
					return nil, osdm.Invalid(osdm.CodeValidationError, lat+"/timedLeg/start/serviceDeparture/timetabledTime",
						"this train leaves before the train of the leg before arrives")
				}
				if change != nil {
					leg.change, leg.hasChange = *change, true
				}
			}
			change = nil
			legs = append(legs, leg)
		}
		switch {
		case len(legs) == 0:
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/legs", "a trip specification needs a timed leg")
		case change != nil:
			return nil, notSupported(changeAt+"/transferLeg", "the sandbox sells trains: a transfer leg is read only between two timed legs, as the change from one to the next")
		case len(legs) > maxLegs:
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/legs", "at most "+strconv.Itoa(maxLegs)+" trains per trip")
		}
		if trains += len(legs); trains > maxTrains {
			return nil, osdm.Invalid(osdm.CodeValidationError, "#/tripSpecifications", "at most "+strconv.Itoa(maxTrains)+" trains per search")
		}
		out = append(out, specifiedTrip{externalRef: spec.ExternalRef, legs: legs})
	}
	return out, nil
}

// parseTransferLeg checks a transfer leg after a train arriving at
// station: a change there, start and end that station.
func parseTransferLeg(tl *transferLegSpecification, station, at string) (transfer, *osdm.ProblemError) {
	tr := transfer{duration: -1}
	for _, end := range []struct {
		name string
		ref  *osdm.PlaceRef
	}{{"start", tl.Start}, {"end", tl.End}} {
		if end.ref == nil {
			return tr, osdm.Invalid(osdm.CodeValidationError, at+"/"+end.name, end.name+" is required")
		}
		n, ok := stationOf(*end.ref)
		if !ok {
			return tr, osdm.Invalid(osdm.CodeValidationError, at+"/"+end.name, end.name+" must be a StopPlaceRef with stopPlaceRef urn:uic:stn: and 7 digits")
		}
		if n != station {
			return tr, notSupported(at+"/"+end.name, "the change is at "+stationPrefix+station+", where the train before arrives: the sandbox changes trains only at a station both trains stop at, not between two stations")
		}
	}
	if tl.Duration != "" {
		d, ok := parseISODuration(tl.Duration)
		if !ok || d > 24*time.Hour {
			return tr, osdm.Invalid(osdm.CodeValidationError, at+"/duration", "duration "+strconv.Quote(tl.Duration)+" must be an ISO 8601 duration of at most a day, e.g. PT10M")
		}
		tr.duration = d
	}
	return tr, nil
}

// parseTimedLeg checks one timed leg of a trip specification.
func parseTimedLeg(tl *timedLegSpecification, at string) (specifiedLeg, *osdm.ProblemError) {
	leg := specifiedLeg{at: at}
	var ok bool
	if leg.origin, ok = stationOf(tl.Start.StopPlaceRef); !ok {
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/start/stopPlaceRef", "start must be a StopPlaceRef with stopPlaceRef urn:uic:stn: and 7 digits")
	}
	if leg.dest, ok = stationOf(tl.End.StopPlaceRef); !ok {
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/end/stopPlaceRef", "end must be a StopPlaceRef with stopPlaceRef urn:uic:stn: and 7 digits")
	}
	if leg.origin == leg.dest {
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/end/stopPlaceRef", "end must differ from start")
	}
	if tl.Start.ServiceDeparture == nil {
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/start/serviceDeparture", "serviceDeparture is required")
	}
	if tl.End.ServiceArrival == nil {
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/end/serviceArrival", "serviceArrival is required")
	}
	v := tl.Start.ServiceDeparture.TimetabledTime
	if leg.dep, ok = parseStopTime(v, leg.origin); !ok {
		return leg, stopTimeProblem(at+"/start/serviceDeparture/timetabledTime", "timetabledTime", v)
	}
	v = tl.End.ServiceArrival.TimetabledTime
	if leg.arr, ok = parseStopTime(v, leg.dest); !ok {
		return leg, stopTimeProblem(at+"/end/serviceArrival/timetabledTime", "timetabledTime", v)
	}
	leg.dep, leg.arr = leg.dep.Truncate(time.Minute), leg.arr.Truncate(time.Minute)
	switch d := leg.arr.Sub(leg.dep); {
	case d <= 0:
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/end/serviceArrival/timetabledTime", "the arrival must be after the departure")
	case d > 48*time.Hour:
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/end/serviceArrival/timetabledTime", "the sandbox's trains run at most 48 hours")
	}
	if y := leg.dep.Year(); y < 2000 || y > 2999 {
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/start/serviceDeparture/timetabledTime", "the travel date must be in the years 2000..2999")
	}
	switch vn := tl.Service.VehicleNumbers; {
	case len(vn) == 0:
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/service/vehicleNumbers", "the train number is required")
	case len(vn) > 1:
		return leg, osdm.NewProblem(400, osdm.CodeParameterNotSupported, "the sandbox sells one train number per leg").WithPointer(at + "/service/vehicleNumbers/1")
	case !ValidTrainNumber(vn[0]):
		return leg, osdm.Invalid(osdm.CodeValidationError, at+"/service/vehicleNumbers/0", "train number "+strconv.Quote(vn[0])+" must be 1..8 letters or digits")
	}
	leg.train = tl.Service.VehicleNumbers[0]
	if len(tl.Service.Carriers) > 0 {
		leg.carrier = tl.Service.Carriers[0]
		if leg.carrier.Ref == "" {
			return leg, osdm.Invalid(osdm.CodeValidationError, at+"/service/carriers/0/ref", "a carrier needs its ref, e.g. urn:uic:rics:1185")
		}
	}
	return leg, nil
}
