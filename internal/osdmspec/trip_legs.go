package osdmspec

// TimedLeg is the JSON of a trip specification's timed leg: train of
// carrier (a RICS code such as "1185") from UIC station from, leaving at
// dep, to UIC station to, arriving at arr (RFC 3339 times).
func TimedLeg(carrier, train, from, dep, to, arr string) string {
	return `{"timedLeg":{"start":{"stopPlaceRef":` + stopPlaceRef(from) + `,"serviceDeparture":{"timetabledTime":"` + dep + `"}},` +
		`"end":{"stopPlaceRef":` + stopPlaceRef(to) + `,"serviceArrival":{"timetabledTime":"` + arr + `"}},` +
		`"service":{"vehicleNumbers":["` + train + `"],"carriers":[{"ref":"urn:uic:rics:` + carrier + `"}]}}}`
}

// TransferLeg is the JSON of a trip specification's transfer leg from UIC
// station from to UIC station to, taking duration (ISO 8601, "PT10M").
func TransferLeg(from, to, duration string) string {
	return `{"transferLeg":{"start":` + stopPlaceRef(from) + `,"end":` + stopPlaceRef(to) + `,"duration":"` + duration + `"}}`
}

// stopPlaceRef is the JSON of a reference to the UIC station code.
func stopPlaceRef(code string) string {
	return `{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:` + code + `"}`
}
