package converter

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Step names one OSDM call of a legacy exchange. It appears in logs and
// metrics, and with the messageId it derives the call's Idempotency-Key.
type Step string

// The steps of the legacy -> OSDM sequences (docs/mapping.md), also the names a `path NAME TEMPLATE`
// override of osdm_convert uses.
const (
	StepOffers        Step = "offers"         // POST /offers
	StepTripOffers    Step = "trip_offers"    // GET /trip-offers (older partners)
	StepBooking       Step = "bookings"       // POST /bookings
	StepFulfillments  Step = "fulfillments"   // POST /bookings/{bookingId}/fulfillments
	StepReadBooking   Step = "booking"        // GET /bookings/{bookingId}
	StepDeleteBooking Step = "delete_booking" // DELETE /bookings/{bookingId}
	StepRefundOffers  Step = "refund_offers"  // POST /bookings/{bookingId}/refund-offers
	StepRefundOffer   Step = "refund_offer"   // PATCH /bookings/{bookingId}/refund-offers/{refundOfferId}
	// StepDeleteRefundOffer drops a refund offer that an interrupted
	// cancellation left unconfirmed (settlement).
	StepDeleteRefundOffer Step = "delete_refund_offer" // DELETE /bookings/{bookingId}/refund-offers/{refundOfferId}
	// StepPassenger sets a passenger's personal data (PassengerDataRequest).
	StepPassenger Step = "passenger" // PATCH /bookings/{bookingId}/passengers/{passengerId}
	// The exchange steps (an AvailabilityRequest or BookingRequest with
	// ExchangeOf); the exchange is confirmed by StepFulfillments.
	StepExchangeOffers          Step = "exchange_offers"           // POST /bookings/{bookingId}/exchange-offers?embed=ALL
	StepExchangeOperation       Step = "exchange_operation"        // POST /bookings/{bookingId}/exchange-operations
	StepReadExchangeOperation   Step = "read_exchange_operation"   // GET /bookings/{bookingId}/exchange-operations/{exchangeOperationId}
	StepDeleteExchangeOperation Step = "delete_exchange_operation" // DELETE /bookings/{bookingId}/exchange-operations/{exchangeOperationId}
	// The ticket steps (TicketRequest): the booking is read with
	// StepReadBooking, then each live fulfilment, and the documents
	// that come as a link.
	StepReadFulfillment Step = "fulfillment" // GET /fulfillments/{fulfillmentId}
	// StepDocument downloads a document from the downloadLink the
	// partner gave: its path and query, through the same route; it has
	// no template to override.
	StepDocument Step = "document" // GET {downloadLink}
)

// Call is one OSDM HTTP request the converter wants made.
type Call struct {
	// Step says which call of the sequence this is.
	Step Step
	// Method is the HTTP method.
	Method string
	// PathTemplate is the path template before expansion, for logs and
	// metrics (no booking ids in label values).
	PathTemplate string
	// Path is the expanded path relative to the partner's base URL, with a
	// query string where the call has one (GET /trip-offers).
	Path string
	// Header holds what the converter sets: Accept application/json on
	// every call, Content-Type application/json on POST and PATCH, and
	// Idempotency-Key on the state-changing calls whose operation declares
	// it (POST /bookings, POST .../fulfillments, POST .../refund-offers,
	// PATCH .../refund-offers/{refundOfferId}; not DELETE /bookings/{id},
	// which declares none). traceparent is the Caller's to add, from the
	// incoming request; the Caller may add headers but should not
	// change these. The map is the Caller's to use as the request's own:
	// the converter makes a new one for each call and does not read it
	// after Call.
	Header http.Header
	// Body is the JSON body; nil for GET and DELETE, never nil for POST
	// and PATCH ({} at least).
	Body []byte
	// MaxAnswer is the longest answer body the converter takes for this
	// call, set on the calls that carry ticket documents; 0 leaves the
	// bound to the Caller. A Caller that stops reading past it answers an
	// error wrapping ErrAnswerTooLarge, never a cut answer.
	MaxAnswer int64
}

// Answer is the partner's HTTP response to a Call.
type Answer struct {
	// Status is the HTTP status code.
	Status int
	// Header is the response header.
	Header http.Header
	// Body is the response body, read whole.
	Body []byte
	// Duration is how long the call took, for logs; 0 when not measured.
	Duration time.Duration
}

// Caller makes one OSDM call: one HTTP request to the partner and its
// answer. osdm_convert implements it on
// Caddy's next handler (so osdm_token and reverse_proxy apply); tests
// implement it with a scripted partner.
//
// An error means no HTTP answer was had: a transport failure (answered
// PARTNER_UNAVAILABLE), a timeout (ErrTimeout or context.DeadlineExceeded,
// answered PARTNER_TIMEOUT) or a failure to authenticate (ErrAuthentication,
// answered AUTHENTICATION_FAILED). Any HTTP status, 5xx included, is an
// Answer, not an error.
type Caller interface {
	Call(ctx context.Context, call *Call) (*Answer, error)
}

// CallerFunc adapts a function to Caller.
type CallerFunc func(ctx context.Context, call *Call) (*Answer, error)

// Call calls f.
func (f CallerFunc) Call(ctx context.Context, call *Call) (*Answer, error) {
	return f(ctx, call)
}

// Errors an Caller wraps so the converter picks the right NegativeReply.
var (
	// ErrAuthentication: no access token could be had for the partner, or
	// the partner refused the one sent (AUTHENTICATION_FAILED).
	ErrAuthentication = errors.New("authentication at the partner failed")
	// ErrTimeout: the partner did not answer in time (PARTNER_TIMEOUT).
	ErrTimeout = errors.New("partner did not answer in time")
	// ErrLoginFailed: the partner's login service failed or could not be
	// reached, so the call was not made (PARTNER_UNAVAILABLE, or
	// PARTNER_TIMEOUT together with ErrTimeout).
	ErrLoginFailed = errors.New("the partner's login service failed")
	// ErrAnswerTooLarge: the answer was longer than the call's MaxAnswer
	// (or the Caller's own bound) and was not read to its end
	// (DOCUMENT_TOO_LARGE on a call that carries documents,
	// PARTNER_UNAVAILABLE on any other).
	ErrAnswerTooLarge = errors.New("the partner's answer is longer than the gateway reads")
)
