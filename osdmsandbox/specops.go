package osdmsandbox

import "strings"

// specOperations are the operations of OSDM 3.9 (and POST /trips-collections
// of 3.10), path template -> methods: an operation the sandbox does not
// serve is answered 501 with a problem, a method the spec does not list
// 405. TestSpecOperations checks the table against the spec.
var specOperations = []specOperation{
	{"/versions", []string{"GET"}},
	{"/places", []string{"GET", "POST"}},
	{"/places/{placeId}", []string{"GET"}},
	{"/trips-collection", []string{"POST"}},
	{"/trips-collections", []string{"POST"}},
	{"/trips-collections/{tripsCollectionId}", []string{"GET"}},
	{"/trips", []string{"POST"}},
	{"/trips/{tripId}", []string{"GET"}},
	{"/offers", []string{"POST"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/additional-offers", []string{"GET"}},
	{"/bookings/{bookingId}/on-hold-offer", []string{"POST"}},
	{"/offer-overview-route", []string{"POST"}},
	{"/offer-overview-trip", []string{"POST"}},
	{"/bookings/{bookingId}/on-hold-offer/{onHoldOfferId}", []string{"PATCH", "DELETE"}},
	{"/bookings/{bookingId}/passengers/{passengerId}", []string{"GET", "PATCH"}},
	{"/bookings/{bookingId}/passengers", []string{"GET", "PATCH"}},
	{"/bookings/{bookingId}/purchaser", []string{"GET", "PATCH", "POST"}},
	{"/bookings/{bookingId}/booked-offers", []string{"POST"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}", []string{"GET", "DELETE"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/passengers/{passengerId}", []string{"DELETE"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/offer-parts", []string{"POST", "DELETE"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/reservations", []string{"POST"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/reservations/{reservationId}", []string{"DELETE"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/ancillaries", []string{"POST"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/ancillaries/{ancillaryId}", []string{"DELETE"}},
	{"/bookings/{bookingId}/booked-offers/{bookedOfferId}/admissions/{admissionId}", []string{"DELETE"}},
	{"/bookings", []string{"POST"}},
	{"/bookings/{bookingId}", []string{"GET", "PATCH", "DELETE"}},
	{"/bookings/{bookingId}/cleanup", []string{"POST"}},
	{"/bookings/{bookingId}/history", []string{"GET"}},
	{"/bookings-search", []string{"POST"}},
	{"/bookings/{bookingId}/split", []string{"POST"}},
	{"/bookings/{bookingId}/fulfillments", []string{"POST", "PATCH"}},
	{"/bookings/{bookingId}/fulfillment-check", []string{"GET"}},
	{"/fulfillments/{fulfillmentId}", []string{"GET", "PATCH"}},
	{"/fulfillments/{fulfillmentId}/continuous-service-usage/{continuousServiceUsageId}", []string{"GET", "PATCH"}},
	{"/bookings/{bookingId}/refund-offers", []string{"POST"}},
	{"/bookings/{bookingId}/refund-offers/{refundOfferId}/confirmation-check", []string{"GET"}},
	{"/bookings/{bookingId}/refund-offers/{refundOfferId}", []string{"GET", "PATCH", "DELETE"}},
	{"/bookings/{bookingId}/release-offers", []string{"POST"}},
	{"/bookings/{bookingId}/release-offers/{releaseOfferId}", []string{"GET", "PATCH", "DELETE"}},
	{"/bookings/{bookingId}/cancel-fulfillments-offers", []string{"POST"}},
	{"/bookings/{bookingId}/cancel-fulfillments-offers/{cancelFulfillmentsOfferId}", []string{"GET", "PATCH", "DELETE"}},
	{"/bookings/{bookingId}/exchange-offers", []string{"POST"}},
	{"/bookings/{bookingId}/exchange-operations", []string{"POST"}},
	{"/bookings/{bookingId}/exchange-operations/{exchangeOperationId}", []string{"GET", "PATCH", "DELETE"}},
	{"/complaints", []string{"POST"}},
	{"/complaints/{complaintId}", []string{"GET", "PATCH"}},
	{"/coach-deck-layouts", []string{"GET"}},
	{"/coach-deck-layouts/{layoutId}", []string{"GET"}},
	{"/coach-layouts", []string{"GET"}},
	{"/coach-layouts/{layoutId}", []string{"GET"}},
	{"/passenger-categories", []string{"GET"}},
	{"/promotion-codes", []string{"GET"}},
	{"/reduction-cards", []string{"GET"}},
	{"/zones", []string{"GET"}},
	{"/bookings/{bookingId}/documents", []string{"POST"}},
	{"/bookings/{bookingId}/documents/{documentId}", []string{"GET", "DELETE"}},
	{"/bookings/{bookingId}/reimbursements", []string{"POST"}},
	{"/bookings/{bookingId}/reimbursements/{reimbursementId}", []string{"GET", "PATCH"}},
	{"/travel-accounts", []string{"GET"}},
	{"/availabilities/vehicle-place-map", []string{"POST"}},
	{"/availabilities/place-map", []string{"GET", "POST"}},
	{"/availabilities/nearby", []string{"GET"}},
	{"/availabilities/preferences", []string{"GET"}},
	{"/availabilities/on-demand-services", []string{"POST"}},
	{"/products", []string{"GET"}},
	{"/products/{productId}", []string{"GET"}},
	{"/product-tags", []string{"GET"}},
	{"/products-search", []string{"POST"}},
}

// specOperation is one path of the spec with its methods.
type specOperation struct {
	path    string
	methods []string
}

// specFirstSegments are the first segments of the spec's paths: the first
// of them in a request path starts the OSDM path (what comes before is a
// route prefix).
var specFirstSegments = func() map[string]bool {
	m := map[string]bool{}
	for _, op := range specOperations {
		first, _, _ := strings.Cut(strings.TrimPrefix(op.path, "/"), "/")
		m[first] = true
	}
	return m
}()

// specMethods returns the methods the spec lists for a path (decoded
// segments, prefix removed) and whether the spec has the path at all.
func specMethods(segs []string) ([]string, bool) {
	for _, op := range specOperations {
		tmpl := strings.Split(strings.TrimPrefix(op.path, "/"), "/")
		if len(tmpl) != len(segs) {
			continue
		}
		ok := true
		for i, t := range tmpl {
			if strings.HasPrefix(t, "{") {
				ok = segs[i] != ""
			} else {
				ok = segs[i] == t
			}
			if !ok {
				break
			}
		}
		if ok {
			return op.methods, true
		}
	}
	return nil, false
}
