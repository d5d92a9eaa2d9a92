package osdm

import (
	"fmt"
	"net/url"
	"strings"
)

// Path templates of the OSDM 3.9 operations the converter calls, relative to
// the partner's base URL. {bookingId} and {refundOfferId} are the spec's
// parameter names; Expand fills them in.
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

// ExpandPath fills the {name} placeholders of a path template (ours or a
// `path` override of osdm_convert) with the path-escaped values of params.
// A placeholder without a value, or an unclosed brace, is an error, so a
// misconfigured template never reaches a partner half-filled.
func ExpandPath(template string, params map[string]string) (string, error) {
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("path template %q: unclosed {", template)
		}
		name := rest[open+1 : open+end]
		value, ok := params[name]
		if !ok || value == "" {
			return "", fmt.Errorf("path template %q: no value for {%s}", template, name)
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(value))
		rest = rest[open+end+1:]
	}
}
