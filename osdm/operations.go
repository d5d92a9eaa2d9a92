package osdm

import (
	"fmt"
	"net/http"
)

// Operation is one OSDM operation: its operationId, method, path
// template, the success statuses of the spec, and what its request takes.
type Operation struct {
	// ID is the spec's operationId, e.g. "createOffers"; "" for an
	// operation that is not OSDM's (GET /trip-offers of older partners).
	ID string
	// Method is the HTTP method.
	Method string
	// Path is the path template, e.g. "/bookings/{bookingId}".
	Path string
	// Success lists the 2xx statuses of the spec, the usual one first.
	Success []int
	// Body: the operation takes a JSON request body.
	Body bool
	// Idempotent: the operation accepts an Idempotency-Key header.
	Idempotent bool
}

// String reads "METHOD template", as logs and metrics name an operation.
func (op Operation) String() string { return op.Method + " " + op.Path }

// IsSuccess reports whether status is one of the operation's spec success codes.
func (op Operation) IsSuccess(status int) bool {
	for _, s := range op.Success {
		if s == status {
			return true
		}
	}
	return false
}

// specOperations are all the operations of OSDM 3.9 (and POST
// /trips-collections of 3.10), in the spec's order: the one table of them.
// TestSpecOperationsMatchSpec holds it to the bundled spec.
var specOperations = []Operation{
	{ID: "getVersions", Method: http.MethodGet, Path: "/versions", Success: []int{http.StatusOK}},
	{ID: "getPlaces", Method: http.MethodGet, Path: "/places", Success: []int{http.StatusOK}},
	{ID: "postPlaces", Method: http.MethodPost, Path: "/places", Success: []int{http.StatusOK}, Body: true},
	{ID: "getPlacesId", Method: http.MethodGet, Path: "/places/{placeId}", Success: []int{http.StatusOK}},
	{ID: "postTrips", Method: http.MethodPost, Path: "/trips-collection", Success: []int{http.StatusOK}, Body: true},
	// POST /trips-collections is the v3.10 spelling of POST /trips-collection.
	{ID: "postTripsCollection", Method: http.MethodPost, Path: "/trips-collections", Success: []int{http.StatusOK}, Body: true},
	{ID: "getTripsCollectionId", Method: http.MethodGet, Path: "/trips-collections/{tripsCollectionId}", Success: []int{http.StatusOK}},
	{ID: "postTripsChange", Method: http.MethodPost, Path: "/trips", Success: []int{http.StatusOK}, Body: true},
	{ID: "getTripsId", Method: http.MethodGet, Path: "/trips/{tripId}", Success: []int{http.StatusOK}},
	{ID: "createOffers", Method: http.MethodPost, Path: PathOffers, Success: []int{http.StatusOK}, Body: true},
	{ID: "getBookingBookedOffersAdditionalOffers", Method: http.MethodGet, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/additional-offers", Success: []int{http.StatusOK}},
	{ID: "createOnHoldOffer", Method: http.MethodPost, Path: "/bookings/{bookingId}/on-hold-offer", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getOfferOverviewRoute", Method: http.MethodPost, Path: "/offer-overview-route", Success: []int{http.StatusOK}, Body: true},
	{ID: "getOfferOverviewTrip", Method: http.MethodPost, Path: "/offer-overview-trip", Success: []int{http.StatusOK}, Body: true},
	{ID: "confirmOnHoldOffer", Method: http.MethodPatch, Path: "/bookings/{bookingId}/on-hold-offer/{onHoldOfferId}", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteOnHoldOffer", Method: http.MethodDelete, Path: "/bookings/{bookingId}/on-hold-offer/{onHoldOfferId}", Success: []int{http.StatusNoContent}},
	{ID: "getBookingPassengersId", Method: http.MethodGet, Path: PathPassenger, Success: []int{http.StatusOK}},
	{ID: "patchBookingPassenger", Method: http.MethodPatch, Path: PathPassenger, Success: []int{http.StatusOK}, Body: true},
	{ID: "getBookingPassengers", Method: http.MethodGet, Path: "/bookings/{bookingId}/passengers", Success: []int{http.StatusOK}},
	{ID: "patchBookingPassengers", Method: http.MethodPatch, Path: "/bookings/{bookingId}/passengers", Success: []int{http.StatusOK, http.StatusMultiStatus}, Body: true},
	{ID: "getBookingPurchaser", Method: http.MethodGet, Path: "/bookings/{bookingId}/purchaser", Success: []int{http.StatusOK}},
	{ID: "postBookingPurchaser", Method: http.MethodPost, Path: "/bookings/{bookingId}/purchaser", Success: []int{http.StatusOK}, Body: true},
	{ID: "patchBookingPurchaser", Method: http.MethodPatch, Path: "/bookings/{bookingId}/purchaser", Success: []int{http.StatusOK}, Body: true},
	{ID: "postBookingBookedOffers", Method: http.MethodPost, Path: "/bookings/{bookingId}/booked-offers", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getBookingBookedOffersId", Method: http.MethodGet, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}", Success: []int{http.StatusOK}},
	{ID: "deleteBookingBookedOffersId", Method: http.MethodDelete, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}", Success: []int{http.StatusNoContent}},
	{ID: "deleteBookingBookedOffersIdPassengerId", Method: http.MethodDelete, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/passengers/{passengerId}", Success: []int{http.StatusNoContent}},
	{ID: "createBookingBookedOffersParts", Method: http.MethodPost, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/offer-parts", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteBookingBookedOffersParts", Method: http.MethodDelete, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/offer-parts", Success: []int{http.StatusNoContent}, Body: true},
	{ID: "createBookingBookedOffersReservations", Method: http.MethodPost, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/reservations", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteBookingBookedOffersReservations", Method: http.MethodDelete, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/reservations/{reservationId}", Success: []int{http.StatusNoContent}},
	{ID: "createBookingBookedOffersAncillaries", Method: http.MethodPost, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/ancillaries", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteBookingBookedOffersAncillary", Method: http.MethodDelete, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/ancillaries/{ancillaryId}", Success: []int{http.StatusNoContent}},
	{ID: "deleteBookingBookedOffersAdmission", Method: http.MethodDelete, Path: "/bookings/{bookingId}/booked-offers/{bookedOfferId}/admissions/{admissionId}", Success: []int{http.StatusNoContent}},
	{ID: "postBookings", Method: http.MethodPost, Path: PathBookings, Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getBookingsId", Method: http.MethodGet, Path: PathBooking, Success: []int{http.StatusOK}},
	{ID: "updateBooking", Method: http.MethodPatch, Path: PathBooking, Success: []int{http.StatusOK}, Body: true},
	{ID: "deleteBookingsId", Method: http.MethodDelete, Path: PathBooking, Success: []int{http.StatusNoContent}},
	{ID: "postBookingCleanup", Method: http.MethodPost, Path: "/bookings/{bookingId}/cleanup", Success: []int{http.StatusAccepted}, Body: true, Idempotent: true},
	{ID: "getBookingsIdHistory", Method: http.MethodGet, Path: "/bookings/{bookingId}/history", Success: []int{http.StatusOK}},
	{ID: "searchBookings", Method: http.MethodPost, Path: "/bookings-search", Success: []int{http.StatusOK}, Body: true},
	{ID: "splitBookings", Method: http.MethodPost, Path: "/bookings/{bookingId}/split", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "postFulfillments", Method: http.MethodPost, Path: PathFulfillments, Success: []int{http.StatusOK, http.StatusAccepted}, Body: true, Idempotent: true},
	{ID: "finalizeFulfillments", Method: http.MethodPatch, Path: PathFulfillments, Success: []int{http.StatusOK, http.StatusAccepted}, Body: true, Idempotent: true},
	{ID: "getCheckFulfillments", Method: http.MethodGet, Path: "/bookings/{bookingId}/fulfillment-check", Success: []int{http.StatusNoContent}, Idempotent: true},
	{ID: "getFulfillmentId", Method: http.MethodGet, Path: PathFulfillment, Success: []int{http.StatusOK}},
	{ID: "patchFulfillmentId", Method: http.MethodPatch, Path: PathFulfillment, Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getContinuousServiceUsageId", Method: http.MethodGet, Path: "/fulfillments/{fulfillmentId}/continuous-service-usage/{continuousServiceUsageId}", Success: []int{http.StatusOK}},
	{ID: "patchContinuousServiceUsageId", Method: http.MethodPatch, Path: "/fulfillments/{fulfillmentId}/continuous-service-usage/{continuousServiceUsageId}", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "postRefundOffers", Method: http.MethodPost, Path: PathRefundOffers, Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "postPrepareRefundOffers", Method: http.MethodGet, Path: "/bookings/{bookingId}/refund-offers/{refundOfferId}/confirmation-check", Success: []int{http.StatusNoContent}, Idempotent: true},
	{ID: "getRefundOffers", Method: http.MethodGet, Path: PathRefundOffer, Success: []int{http.StatusOK}},
	{ID: "patchRefundOffers", Method: http.MethodPatch, Path: PathRefundOffer, Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteRefundOffers", Method: http.MethodDelete, Path: PathRefundOffer, Success: []int{http.StatusNoContent}},
	{ID: "postReleaseOffers", Method: http.MethodPost, Path: "/bookings/{bookingId}/release-offers", Success: []int{http.StatusOK, http.StatusAccepted}, Body: true, Idempotent: true},
	{ID: "getReleaseOffer", Method: http.MethodGet, Path: "/bookings/{bookingId}/release-offers/{releaseOfferId}", Success: []int{http.StatusOK, http.StatusAccepted}},
	{ID: "patchReleaseOffers", Method: http.MethodPatch, Path: "/bookings/{bookingId}/release-offers/{releaseOfferId}", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteReleaseOffers", Method: http.MethodDelete, Path: "/bookings/{bookingId}/release-offers/{releaseOfferId}", Success: []int{http.StatusNoContent}},
	{ID: "postCancelFulfillmentsOffers", Method: http.MethodPost, Path: "/bookings/{bookingId}/cancel-fulfillments-offers", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getCancelFulfillmentOffers", Method: http.MethodGet, Path: "/bookings/{bookingId}/cancel-fulfillments-offers/{cancelFulfillmentsOfferId}", Success: []int{http.StatusOK}},
	{ID: "patchCancelFulfillmentsOffers", Method: http.MethodPatch, Path: "/bookings/{bookingId}/cancel-fulfillments-offers/{cancelFulfillmentsOfferId}", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteCancelFulfillmentOffers", Method: http.MethodDelete, Path: "/bookings/{bookingId}/cancel-fulfillments-offers/{cancelFulfillmentsOfferId}", Success: []int{http.StatusNoContent}},
	{ID: "createExchangeOffersCollection", Method: http.MethodPost, Path: "/bookings/{bookingId}/exchange-offers", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "createBookingsExchangeOperations", Method: http.MethodPost, Path: "/bookings/{bookingId}/exchange-operations", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getBookingsExchangeOperations", Method: http.MethodGet, Path: "/bookings/{bookingId}/exchange-operations/{exchangeOperationId}", Success: []int{http.StatusOK}},
	{ID: "updateBookingsExchangeOperations", Method: http.MethodPatch, Path: "/bookings/{bookingId}/exchange-operations/{exchangeOperationId}", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "deleteBookingsExchangeOperation", Method: http.MethodDelete, Path: "/bookings/{bookingId}/exchange-operations/{exchangeOperationId}", Success: []int{http.StatusNoContent}},
	{ID: "createComplaint", Method: http.MethodPost, Path: "/complaints", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getComplaint", Method: http.MethodGet, Path: "/complaints/{complaintId}", Success: []int{http.StatusOK}},
	{ID: "patchComplaint", Method: http.MethodPatch, Path: "/complaints/{complaintId}", Success: []int{http.StatusOK}, Body: true, Idempotent: true},
	{ID: "getCoachDeckLayouts", Method: http.MethodGet, Path: "/coach-deck-layouts", Success: []int{http.StatusOK}},
	{ID: "getCoachDeckLayout", Method: http.MethodGet, Path: "/coach-deck-layouts/{layoutId}", Success: []int{http.StatusOK}},
	{ID: "getCoachLayouts", Method: http.MethodGet, Path: "/coach-layouts", Success: []int{http.StatusOK}},
	{ID: "getCoachLayoutsLayoutId", Method: http.MethodGet, Path: "/coach-layouts/{layoutId}", Success: []int{http.StatusOK}},
	{ID: "getPassengerCategories", Method: http.MethodGet, Path: "/passenger-categories", Success: []int{http.StatusOK}},
	{ID: "getPromotionCodes", Method: http.MethodGet, Path: "/promotion-codes", Success: []int{http.StatusOK}},
	{ID: "getReductionCards", Method: http.MethodGet, Path: "/reduction-cards", Success: []int{http.StatusOK}},
	{ID: "getZones", Method: http.MethodGet, Path: "/zones", Success: []int{http.StatusOK}},
	{ID: "createDocuments", Method: http.MethodPost, Path: "/bookings/{bookingId}/documents", Success: []int{http.StatusOK}, Body: true},
	{ID: "getDocument", Method: http.MethodGet, Path: "/bookings/{bookingId}/documents/{documentId}", Success: []int{http.StatusOK}},
	{ID: "deleteBookingsDocumentsId", Method: http.MethodDelete, Path: "/bookings/{bookingId}/documents/{documentId}", Success: []int{http.StatusNoContent}},
	{ID: "createReimbursement", Method: http.MethodPost, Path: "/bookings/{bookingId}/reimbursements", Success: []int{http.StatusOK}, Body: true},
	{ID: "getReimbursement", Method: http.MethodGet, Path: "/bookings/{bookingId}/reimbursements/{reimbursementId}", Success: []int{http.StatusOK}},
	{ID: "updateReimbursement", Method: http.MethodPatch, Path: "/bookings/{bookingId}/reimbursements/{reimbursementId}", Success: []int{http.StatusOK}, Body: true},
	{ID: "getTravelAccounts", Method: http.MethodGet, Path: "/travel-accounts", Success: []int{http.StatusOK}},
	{ID: "getAvailabilitiesVehiclePlaceMap", Method: http.MethodPost, Path: "/availabilities/vehicle-place-map", Success: []int{http.StatusOK}, Body: true},
	{ID: "getAvailabilitiesPlaceMap", Method: http.MethodGet, Path: "/availabilities/place-map", Success: []int{http.StatusOK}},
	{ID: "getAvailabilitiesPlaceMaps", Method: http.MethodPost, Path: "/availabilities/place-map", Success: []int{http.StatusOK}, Body: true},
	{ID: "getAvailabilitiesNearby", Method: http.MethodGet, Path: "/availabilities/nearby", Success: []int{http.StatusOK}},
	{ID: "getAvailabilitiesPreferences", Method: http.MethodGet, Path: "/availabilities/preferences", Success: []int{http.StatusOK}},
	{ID: "getAvailabilitiesContinuousServices", Method: http.MethodPost, Path: "/availabilities/on-demand-services", Success: []int{http.StatusOK}, Body: true},
	{ID: "getProducts", Method: http.MethodGet, Path: "/products", Success: []int{http.StatusOK}},
	{ID: "getProductsId", Method: http.MethodGet, Path: "/products/{productId}", Success: []int{http.StatusOK}},
	{ID: "getProductTags", Method: http.MethodGet, Path: "/product-tags", Success: []int{http.StatusOK}},
	{ID: "searchProducts", Method: http.MethodPost, Path: "/products-search", Success: []int{http.StatusOK}, Body: true},
}

// SpecOperations returns every operation of the spec (a copy, in the
// spec's order).
func SpecOperations() []Operation {
	out := make([]Operation, len(specOperations))
	copy(out, specOperations)
	return out
}

// SpecOperation returns the operation with the spec's operationId id; it
// panics on an id the table does not have (a typo in a package's
// variables, caught by any test that loads the package).
func SpecOperation(id string) Operation {
	for _, op := range specOperations {
		if op.ID == id {
			return op
		}
	}
	panic(fmt.Sprintf("osdm: no operation %q in the spec table", id))
}

// The operations the converter and the providers use, by name. Note POST
// /bookings answers 200 (not 201) and DELETE answers 204.
var (
	// OpCreateOffers is POST /offers, the offer search.
	OpCreateOffers = SpecOperation("createOffers")
	// OpCreateBooking is POST /bookings.
	OpCreateBooking = SpecOperation("postBookings")
	// OpGetBooking is GET /bookings/{bookingId}.
	OpGetBooking = SpecOperation("getBookingsId")
	// OpDeleteBooking is DELETE /bookings/{bookingId}.
	OpDeleteBooking = SpecOperation("deleteBookingsId")
	// OpCreateFulfillments may answer 202 when fulfilment runs
	// asynchronously; both carry a FulfillmentCollectionResponse.
	OpCreateFulfillments = SpecOperation("postFulfillments")
	// OpGetFulfillment is GET /fulfillments/{fulfillmentId}.
	OpGetFulfillment = SpecOperation("getFulfillmentId")
	// OpCreateRefundOffers answers a RefundOfferCollectionResponse (a list).
	OpCreateRefundOffers = SpecOperation("postRefundOffers")
	// OpGetRefundOffer is GET of one refund offer.
	OpGetRefundOffer = SpecOperation("getRefundOffers")
	// OpPatchRefundOffer answers a RefundOfferResponse (one refundOffer).
	OpPatchRefundOffer = SpecOperation("patchRefundOffers")
	// OpDeleteRefundOffer drops a refund offer not yet confirmed (204).
	OpDeleteRefundOffer = SpecOperation("deleteRefundOffers")
	// OpGetPassenger is GET of one passenger of a booking.
	OpGetPassenger = SpecOperation("getBookingPassengersId")
	// OpPatchPassenger changes one passenger of a booking.
	OpPatchPassenger = SpecOperation("patchBookingPassenger")
	// OpCreateExchangeOffers is POST /bookings/{bookingId}/exchange-offers.
	OpCreateExchangeOffers = SpecOperation("createExchangeOffersCollection")
	// OpCreateExchangeOperation is POST /bookings/{bookingId}/exchange-operations.
	OpCreateExchangeOperation = SpecOperation("createBookingsExchangeOperations")
	// OpGetExchangeOperation is GET of one exchange operation.
	OpGetExchangeOperation = SpecOperation("getBookingsExchangeOperations")
	// OpPatchExchangeOperation changes (confirms) one exchange operation.
	OpPatchExchangeOperation = SpecOperation("updateBookingsExchangeOperations")
	// OpDeleteExchangeOperation drops one exchange operation.
	OpDeleteExchangeOperation = SpecOperation("deleteBookingsExchangeOperation")
)

// LookupSpec returns the operation of the spec that method and path (a
// template or a real path, without prefix or query) name.
func LookupSpec(method, path string) (Operation, bool) {
	m := specRouter.Match(method, path)
	if m.Unserved == nil {
		return Operation{}, false
	}
	return *m.Unserved, true
}

// specRouter serves nothing: it finds the spec's operations.
var specRouter = MustRouter[struct{}](nil, RouterOptions{})
