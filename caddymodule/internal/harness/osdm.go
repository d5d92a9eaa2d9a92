package harness

import ()

// OfferSearch is the body of an offer search from Paris Nord to
// Bruxelles-Midi at at, for two passengers, in classes (JSON strings),
// for the train numbers in train (JSON) if any.
func OfferSearch(train, at string, classes string) string {
	filter := ""
	if train != "" {
		filter = `, "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": [` + train + `]}}}`
	}
	return `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8814001"},
	  "departureTime": "` + at + `"` + filter + `},
	 "offerSearchCriteria": {"travelClasses": [` + classes + `]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}
