package osdm

// Place reference object types (the spec's discriminator objectType, which
// is the schema name). A PlaceRef without objectType is invalid.
const (
	ObjectTypeStopPlaceRef = "StopPlaceRef"
)

// PlaceRef is an OSDM place reference. The spec makes it polymorphic on
// objectType (StopPlaceRef, AddressRef, GeoPositionRef, ...); we write and
// read only StopPlaceRef, and keep the objectType of anything else so the
// caller can see what it got.
type PlaceRef struct {
	// ObjectType is the subtype, "StopPlaceRef" for a station.
	ObjectType string `json:"objectType"`
	// StopPlaceRef is the station code, "urn:uic:stn:8500010" for UIC station
	// 8500010 (required when ObjectType is StopPlaceRef).
	StopPlaceRef string `json:"stopPlaceRef,omitempty"`
}

// NewStopPlaceRef returns the reference to a station given as its full code,
// e.g. NewStopPlaceRef("urn:uic:stn:8500010").
func NewStopPlaceRef(code string) PlaceRef {
	return PlaceRef{ObjectType: ObjectTypeStopPlaceRef, StopPlaceRef: code}
}

// UICStation returns the OSDM code of a UIC station number:
// UICStation("8500010") is "urn:uic:stn:8500010".
func UICStation(number string) string { return "urn:uic:stn:" + number }
