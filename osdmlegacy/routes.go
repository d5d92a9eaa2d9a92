package osdmlegacy

import (
	"context"
	"net/http"
	"sort"
	"strings"
)

// route is one OSDM operation the façade serves.
type route struct {
	method string
	// template is the spec's path template, e.g. "/bookings/{bookingId}".
	template string
	// op names the operation in logs and metrics: "METHOD template".
	op     string
	handle func(f *Facade, ctx context.Context, c *call) *Answer
}

// Path parameter names (the spec's).
const (
	ParamBookingID     = "bookingId"
	ParamFulfillmentID = "fulfillmentId"
	ParamRefundOfferID = "refundOfferId"
	ParamPassengerID   = "passengerId"
)

// routes are the operations the façade serves. The booking side's
// handlers live in the booking*, fulfil*, refund*, passenger* and
// exchange* files.
var routes = []*route{
	{method: http.MethodPost, template: "/offers", handle: (*Facade).searchOffers},
	{method: http.MethodPost, template: "/bookings", handle: (*Facade).createBooking},
	{method: http.MethodGet, template: "/bookings/{bookingId}", handle: (*Facade).getBooking},
	{method: http.MethodDelete, template: "/bookings/{bookingId}", handle: (*Facade).deleteBooking},
	{method: http.MethodPost, template: "/bookings/{bookingId}/fulfillments", handle: (*Facade).createFulfillments},
	// The spec reads a fulfilment at /fulfillments/{fulfillmentId}; the
	// nested form is served too.
	{method: http.MethodGet, template: "/fulfillments/{fulfillmentId}", handle: (*Facade).getFulfillment},
	{method: http.MethodGet, template: "/bookings/{bookingId}/fulfillments/{fulfillmentId}", handle: (*Facade).getFulfillment},
	{method: http.MethodPost, template: "/bookings/{bookingId}/refund-offers", handle: (*Facade).createRefundOffers},
	{method: http.MethodGet, template: "/bookings/{bookingId}/refund-offers/{refundOfferId}", handle: (*Facade).getRefundOffer},
	{method: http.MethodPatch, template: "/bookings/{bookingId}/refund-offers/{refundOfferId}", handle: (*Facade).patchRefundOffer},
	{method: http.MethodGet, template: "/bookings/{bookingId}/passengers/{passengerId}", handle: (*Facade).getPassenger},
	{method: http.MethodPatch, template: "/bookings/{bookingId}/passengers/{passengerId}", handle: (*Facade).patchPassenger},
	{method: http.MethodPost, template: "/bookings/{bookingId}/exchange-offers", handle: (*Facade).createExchangeOffers},
	{method: http.MethodPost, template: "/bookings/{bookingId}/exchange-operations", handle: (*Facade).createExchangeOperation},
	{method: http.MethodGet, template: "/bookings/{bookingId}/exchange-operations/{exchangeOperationId}", handle: (*Facade).getExchangeOperation},
	{method: http.MethodPatch, template: "/bookings/{bookingId}/exchange-operations/{exchangeOperationId}", handle: (*Facade).patchExchangeOperation},
	{method: http.MethodDelete, template: "/bookings/{bookingId}/exchange-operations/{exchangeOperationId}", handle: (*Facade).deleteExchangeOperation},
}

func init() {
	for _, rt := range routes {
		rt.op = rt.method + " " + rt.template
	}
}

// specPaths are the other path templates of OSDM 3.9 (and 3.10): an
// operation there is answered 501 "not offered", not a bare 404.
var specPaths = []string{
	"/versions", "/places", "/places/{placeId}", "/trips-collection",
	"/trips-collections/{tripsCollectionId}", "/trips", "/trips/{tripId}",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/additional-offers",
	"/bookings/{bookingId}/on-hold-offer", "/offer-overview-route", "/offer-overview-trip",
	"/bookings/{bookingId}/on-hold-offer/{onHoldOfferId}",
	"/bookings/{bookingId}/passengers", "/bookings/{bookingId}/purchaser",
	"/bookings/{bookingId}/booked-offers", "/bookings/{bookingId}/booked-offers/{bookedOfferId}",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/passengers/{passengerId}",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/offer-parts",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/reservations",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/reservations/{reservationId}",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/ancillaries",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/ancillaries/{ancillaryId}",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/admissions/{admissionId}",
	"/bookings/{bookingId}/cleanup", "/bookings/{bookingId}/history", "/bookings-search",
	"/bookings/{bookingId}/split", "/bookings/{bookingId}/fulfillment-check",
	"/fulfillments/{fulfillmentId}/continuous-service-usage/{continuousServiceUsageId}",
	"/bookings/{bookingId}/refund-offers/{refundOfferId}/confirmation-check",
	"/bookings/{bookingId}/release-offers", "/bookings/{bookingId}/release-offers/{releaseOfferId}",
	"/bookings/{bookingId}/cancel-fulfillments-offers",
	"/bookings/{bookingId}/cancel-fulfillments-offers/{cancelFulfillmentsOfferId}",
	"/bookings/{bookingId}/exchange-offers", "/bookings/{bookingId}/exchange-operations",
	"/bookings/{bookingId}/exchange-operations/{exchangeOperationId}",
	"/complaints", "/complaints/{complaintId}", "/coach-deck-layouts", "/coach-deck-layouts/{layoutId}",
	"/coach-layouts", "/coach-layouts/{layoutId}", "/passenger-categories", "/promotion-codes",
	"/reduction-cards", "/zones", "/bookings/{bookingId}/documents",
	"/bookings/{bookingId}/documents/{documentId}", "/bookings/{bookingId}/reimbursements",
	"/bookings/{bookingId}/reimbursements/{reimbursementId}", "/travel-accounts",
	"/availabilities/vehicle-place-map", "/availabilities/place-map", "/availabilities/nearby",
	"/availabilities/preferences", "/availabilities/on-demand-services", "/products",
	"/products/{productId}", "/product-tags", "/products-search",
}

// notOfferedWhy says, for the operations restriction 7 names, why.
var notOfferedWhy = map[string]string{
	"/bookings/{bookingId}/release-offers":                                         "release (restriction 7)",
	"/bookings/{bookingId}/release-offers/{releaseOfferId}":                        "release (restriction 7)",
	"/bookings/{bookingId}/on-hold-offer":                                          "on-hold (restriction 7)",
	"/bookings/{bookingId}/on-hold-offer/{onHoldOfferId}":                          "on-hold (restriction 7)",
	"/bookings/{bookingId}/cancel-fulfillments-offers":                             "cancelling fulfilments (restriction 7: a partial refund is a refund offer naming passengers)",
	"/bookings/{bookingId}/cancel-fulfillments-offers/{cancelFulfillmentsOfferId}": "cancelling fulfilments (restriction 7: a partial refund is a refund offer naming passengers)",
	"/bookings/{bookingId}/booked-offers/{bookedOfferId}/passengers/{passengerId}": "removing a passenger (restriction 7: a partial refund is a refund offer naming passengers)",
	"/bookings/{bookingId}/booked-offers":                                          "adding offers to a booking (restriction 6)",
}

// match finds the route of method and path. Without one, allow lists the
// methods the path is served with ("" when none: not a served path).
func match(method, path string) (*route, map[string]string, string) {
	var methods []string
	for _, rt := range routes {
		params, ok := matchTemplate(rt.template, path)
		if !ok {
			continue
		}
		if rt.method == method {
			return rt, params, ""
		}
		methods = append(methods, rt.method)
	}
	sort.Strings(methods)
	return nil, nil, strings.Join(methods, ", ")
}

// notServed is the problem of a path that no route serves: 501 naming the
// operation for a path of the spec, 404 for any other.
func notServed(path string) *Problem {
	for _, tmpl := range specPaths {
		if _, ok := matchTemplate(tmpl, path); ok {
			what := "the OSDM operation " + tmpl
			if why, ok := notOfferedWhy[tmpl]; ok {
				what += ", " + why + ","
			}
			return NotOffered(what)
		}
	}
	return NewProblem(http.StatusNotFound, CodeNotFound, "no OSDM operation is served at this path")
}

// matchTemplate matches path against a template with {name} segments; a
// parameter segment matches one non-empty path segment (still escaped: ids
// of this façade have no characters that need escaping, and any other is
// simply not found).
func matchTemplate(template, path string) (map[string]string, bool) {
	if !strings.HasPrefix(path, "/") {
		return nil, false
	}
	ts := strings.Split(template[1:], "/")
	ps := strings.Split(path[1:], "/")
	if len(ts) != len(ps) {
		return nil, false
	}
	var params map[string]string
	for i, seg := range ts {
		if strings.HasPrefix(seg, "{") {
			if ps[i] == "" {
				return nil, false
			}
			if params == nil {
				params = make(map[string]string, 2)
			}
			params[seg[1:len(seg)-1]] = ps[i]
		} else if seg != ps[i] {
			return nil, false
		}
	}
	return params, true
}
