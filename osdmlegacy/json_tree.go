package osdmlegacy

import (
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
)

// Bounds on an OSDM request body read into a tree. An offer search or a
// booking request is a few KiB; these keep a hostile body from costing
// memory or time beyond max_body.
const (
	// maxJSONDepth is the deepest nesting read; the deepest member of an
	// offer search (a trip specification's leg's service's carriers'
	// items) nests 8.
	maxJSONDepth = 16
	// maxJSONValues is the most values in one body.
	maxJSONValues = 4096
	// maxJSONItems is the most items of one array.
	maxJSONItems = 64
	// maxJSONString is the longest string value or member name, in bytes.
	maxJSONString = 1024
)

// jnode is one JSON value of a request: strictly read (no repeated member,
// valid UTF-8, bounded), with member order kept.
type jnode = jsontree.Node

// jsonError is a body that is not acceptable JSON, with the pointer of the
// value at fault ("" when the syntax is broken).
type jsonError struct {
	pointer string
	msg     string
}

func (e *jsonError) Error() string { return e.msg }

// treeLimits are the bounds above, the whole body checked for UTF-8 first.
var treeLimits = jsontree.Limits{
	Depth: maxJSONDepth, Values: maxJSONValues, Items: maxJSONItems, String: maxJSONString,
	UTF8First: true, Names: osdmMemberNames,
}

// parseJSONTree reads body as one JSON value into a tree (jsontree.Parse
// within the bounds above), each refusal worded for a problem.
func parseJSONTree(body []byte) (*jnode, error) {
	n, err := jsontree.Parse(body, treeLimits)
	if err == nil {
		return n, nil
	}
	at := treePointer(err.Path)
	switch err.Fault {
	case jsontree.InvalidUTF8:
		return nil, &jsonError{msg: "the body is not valid UTF-8"}
	case jsontree.Empty, jsontree.Truncated:
		return nil, &jsonError{msg: "malformed JSON: unexpected end of the body"}
	case jsontree.Syntax:
		return nil, &jsonError{msg: "malformed JSON at byte " + strconv.FormatInt(err.Offset, 10) + ": " + strings.TrimPrefix(err.Detail, "jsontext: ")}
	case jsontree.Duplicate:
		return nil, &jsonError{pointer: at, msg: "member " + strconv.Quote(err.Name) + " appears twice"}
	case jsontree.TooDeep:
		return nil, &jsonError{pointer: at, msg: "nested deeper than " + strconv.Itoa(maxJSONDepth) + " levels"}
	case jsontree.TooManyValues:
		return nil, &jsonError{pointer: at, msg: "the body holds more than " + strconv.Itoa(maxJSONValues) + " JSON values"}
	case jsontree.TooManyItems:
		return nil, &jsonError{pointer: at, msg: "an array of more than " + strconv.Itoa(maxJSONItems) + " items"}
	case jsontree.StringTooLong:
		return nil, &jsonError{pointer: at, msg: "a string longer than " + strconv.Itoa(maxJSONString) + " bytes"}
	case jsontree.NumberTooLong:
		return nil, &jsonError{msg: "a number longer than " + strconv.Itoa(maxJSONString) + " bytes"}
	case jsontree.Trailing:
		return nil, &jsonError{msg: "the body holds more than one JSON value"}
	}
	return nil, &jsonError{msg: "malformed JSON: " + err.Detail}
}

// treePointer writes a path as the readers write pointers: "#", "/name"
// for a member, "[i]" for an item.
func treePointer(path []jsontree.Step) string {
	var b strings.Builder
	b.WriteString("#")
	for _, s := range path {
		if s.Index < 0 {
			b.WriteString("/")
			b.WriteString(jsontree.EscapePointer(s.Name))
		} else {
			b.WriteString("[")
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteString("]")
		}
	}
	return b.String()
}

// osdmMemberNames are the member names of the requests read into trees,
// so that a name read is one of these strings rather than a new one.
var osdmMemberNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields(`age anonymousPassengerSpecifications arrivalTime cards carrierFilter carriers
		corporateCodes currency dataFilter dateOfBirth departureTime destination embed end estimatedTime exclude
		externalRef flexibilities gender ignoreRealtimeData inboundDate inboundTripIds inboundTripSpecifications
		intermediates isPartOfInternationalTrip itModesToCover legs lineNumbers mobilityFilter name
		nonTripSearchCriteria notVias numberOfResults numberOfResultsAfter numberOfResultsBefore objectType
		observedTime offerMode offerSearchCriteria origin parameters policyFilter prmNeeds productSelections
		productTags promotionCodes ptModeFilter ref replacedPlaceRef requestedFulfillmentOptions
		requestedOfferParts requestedSections residency returnSearchParameters service serviceBrandFilter
		serviceClassTypes start stopPlaceRef timedLeg timetabledTime transferLeg transferLimit transportable
		travelClasses tripIds tripResponseParameters tripSearchCriteria tripSpecifications type vehicleFilter
		vehicleNumbers vias`) {
		m[n] = n
	}
	return m
}()
