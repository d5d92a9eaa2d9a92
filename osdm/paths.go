package osdm

// Path templates of the OSDM 3.9 operations the converter calls, relative to
// the partner's base URL. {bookingId} and {refundOfferId} are the spec's
// parameter names; the converter fills them in.
const (
	PathOffers       = "/offers"
	PathBookings     = "/bookings"
	PathBooking      = "/bookings/{bookingId}"
	PathFulfillments = "/bookings/{bookingId}/fulfillments"
	PathRefundOffers = "/bookings/{bookingId}/refund-offers"
	PathRefundOffer  = "/bookings/{bookingId}/refund-offers/{refundOfferId}"
	// PathTripOffers is GET /trip-offers of older partners (search criteria
	// as query parameters). It is NOT part of OSDM 3.9 (which has only
	// POST /offers), so no spec validates it; it exists for
	// `offer_search trip-offers` in osdm_convert.
	PathTripOffers = "/trip-offers"
)

// Path parameter names of the spec, as a Router gives them.
const (
	ParamBookingID           = "bookingId"
	ParamRefundOfferID       = "refundOfferId"
	ParamFulfillmentID       = "fulfillmentId"
	ParamPassengerID         = "passengerId"
	ParamExchangeOperationID = "exchangeOperationId"
)

// Content types of OSDM bodies: application/json for requests and
// successful responses, application/problem+json for error responses
// (every 4xx/5xx and "default" response of the spec).
const (
	ContentTypeJSON    = "application/json"
	ContentTypeProblem = "application/problem+json"
)

// Header names the spec declares on the operations we call.
const (
	// HeaderIdempotencyKey must be a UUID (format: uuid) and is accepted by
	// POST /bookings, POST .../fulfillments, POST .../refund-offers and
	// PATCH .../refund-offers/{refundOfferId} (not by POST /offers).
	HeaderIdempotencyKey = "Idempotency-Key"
	// HeaderTraceParent is the W3C trace context header, accepted by all.
	HeaderTraceParent = "traceparent"
	// HeaderRequestor carries the optional requestor information.
	HeaderRequestor = "Requestor"
)
