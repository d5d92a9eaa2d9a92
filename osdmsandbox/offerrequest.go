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
	TimedLeg    *timedLegSpecification `json:"timedLeg"`
	TransferLeg json.RawMessage        `json:"transferLeg"`
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

// specifiedLeg is a timed leg of a trip specification, checked.
type specifiedLeg struct {
	train        string
	origin, dest string
	dep, arr     time.Time
	at           string // JSON pointer of the leg
	// carrier is the first carrier the leg names, "" for none: the trip
	// answered names it as the train's carrier.
	carrier osdm.NamedCompany
}

// maxLegs bounds the legs of one trip specification.
const maxLegs = 5

// parseTripSpecifications checks the trip specifications: each is a trip
// of one or more trains, in order, each leaving after the one before
// arrives; a transfer leg between them (a walk) is allowed and ignored.
// It returns the timed legs of each trip.
func parseTripSpecifications(specs []tripSpecification) ([][]specifiedLeg, *osdm.ProblemError) {
	if len(specs) > maxTrains {
		return nil, osdm.Invalid(osdm.CodeValidationError, "#/tripSpecifications", "at most "+strconv.Itoa(maxTrains)+" trip specifications per search")
	}
	out := make([][]specifiedLeg, 0, len(specs))
	trains := 0
	for i, spec := range specs {
		at := "#/tripSpecifications/" + strconv.Itoa(i)
		if len(spec.Legs) > 2*maxLegs {
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/legs", "at most "+strconv.Itoa(maxLegs)+" trains per trip")
		}
		var legs []specifiedLeg
		for k, l := range spec.Legs {
			lat := at + "/legs/" + strconv.Itoa(k)
			if l.TimedLeg == nil {
				if t := string(l.TransferLeg); t == "" || t == "null" {
					return nil, osdm.Invalid(osdm.CodeValidationError, lat, "a leg is a timedLeg or a transferLeg")
				}
				continue
			}
			leg, p := parseTimedLeg(l.TimedLeg, lat+"/timedLeg")
			if p != nil {
				return nil, p
			}
			if n := len(legs); n > 0 && leg.dep.Before(legs[n-1].arr) {
				return nil, osdm.Invalid(osdm.CodeValidationError, lat+"/timedLeg/start/serviceDeparture/timetabledTime",
					"this train leaves before the train of the leg before arrives")
			}
			legs = append(legs, leg)
		}
		switch {
		case len(legs) == 0:
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/legs", "a trip specification needs a timed leg")
		case len(legs) > maxLegs:
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/legs", "at most "+strconv.Itoa(maxLegs)+" trains per trip")
		}
		if trains += len(legs); trains > maxTrains {
			return nil, osdm.Invalid(osdm.CodeValidationError, "#/tripSpecifications", "at most "+strconv.Itoa(maxTrains)+" trains per search")
		}
		out = append(out, legs)
	}
	return out, nil
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
