package osdmsandbox

import (
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The problem codes the sandbox answers, each with the HTTP status it comes
// with. The statuses are those the spec lists for the operation where one
// fits; 409, 413 and 422 on operations that do not list them are the spec's
// "default" error response.
const (
	// CodeInvalidRequest (400): malformed JSON, a missing or wrong field
	// (the pointer names it), a bad query parameter or Idempotency-Key.
	CodeInvalidRequest = "urn:uic:problem:INVALID_REQUEST"
	// CodeUnsupportedMediaType (415): a body that is not application/json.
	CodeUnsupportedMediaType = "urn:uic:problem:UNSUPPORTED_MEDIA_TYPE"
	// CodeRequestTooLarge (413): a body over 1 MiB.
	CodeRequestTooLarge = "urn:uic:problem:REQUEST_TOO_LARGE"
	// CodeNotFound (404): no such OSDM operation path.
	CodeNotFound = "urn:uic:problem:NOT_FOUND"
	// CodeMethodNotAllowed (405): a known path with another method.
	CodeMethodNotAllowed = "urn:uic:problem:METHOD_NOT_ALLOWED"
	// CodeTrainNotFound (404, POST /offers): no searched train runs.
	CodeTrainNotFound = "urn:uic:problem:TRAIN_NOT_FOUND"
	// CodeNoAvailability (409 on POST /bookings; inside a 200 on POST
	// /offers): fewer places left than passengers.
	CodeNoAvailability = "urn:uic:problem:NO_AVAILABILITY"
	// CodeOfferPartNotSupported (inside a 200 on POST /offers): only
	// reservations are sold, and the search asked for none.
	CodeOfferPartNotSupported = "urn:uic:problem:OFFER_PART_NOT_SUPPORTED"
	// CodeSearchOutOfBounds (400, POST /offers and GET /trip-offers): every
	// train searched for has already left (more than DepartureTolerance
	// ago). OSDM's standardized functional error "A search criteria lies
	// outside accepted boundaries" (osdm.io/spec/errors-problems).
	CodeSearchOutOfBounds = "urn:uic:problem:OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS"
	// CodeOfferExpired (404, POST /bookings): the offer is unknown, past
	// its preBookableUntil, or already booked.
	CodeOfferExpired = "urn:uic:problem:OFFER_EXPIRED"
	// CodeBookingNotFound (404): no such booking.
	CodeBookingNotFound = "urn:uic:problem:BOOKING_NOT_FOUND"
	// CodeBookingCancelled (404): the booking was deleted (answered for
	// Config.Retention after the DELETE, then BOOKING_NOT_FOUND).
	CodeBookingCancelled = "urn:uic:problem:BOOKING_ALREADY_CANCELLED"
	// CodeBookingExpired (409): the provisional booking passed its
	// confirmationTimeLimit and was released.
	CodeBookingExpired = "urn:uic:problem:BOOKING_EXPIRED"
	// CodeBookingFulfilled (409, DELETE /bookings/{id}): a fulfilled booking
	// cannot be deleted, only refunded.
	CodeBookingFulfilled = "urn:uic:problem:BOOKING_ALREADY_FULFILLED"
	// CodeBookingNotFulfilled (409, refund offers): a provisional booking
	// is deleted, not refunded.
	CodeBookingNotFulfilled = "urn:uic:problem:BOOKING_NOT_FULFILLED"
	// CodeBookingRefunded (409): the booking was refunded before.
	CodeBookingRefunded = "urn:uic:problem:BOOKING_ALREADY_REFUNDED"
	// CodeFulfillmentNotFound (404, POST refund-offers): a fulfillmentId
	// that is not the booking's.
	CodeFulfillmentNotFound = "urn:uic:problem:FULFILLMENT_NOT_FOUND"
	// CodeRefundOfferNotFound (404, PATCH refund-offers/{rid}).
	CodeRefundOfferNotFound = "urn:uic:problem:REFUND_OFFER_NOT_FOUND"
	// CodeRefundOfferExpired (409, PATCH refund-offers/{rid}): past its validUntil.
	CodeRefundOfferExpired = "urn:uic:problem:REFUND_OFFER_EXPIRED"
	// CodeIdempotencyKeyReused (422): the Idempotency-Key was used on the
	// same method and path with another body (as in the IETF
	// Idempotency-Key draft).
	CodeIdempotencyKeyReused = "urn:uic:problem:IDEMPOTENCY_KEY_REUSED"
	// CodeInternalError (500): a bug in the sandbox.
	CodeInternalError = "urn:uic:problem:INTERNAL_ERROR"
)

// problemTitles are the short, fixed summaries of the codes.
var problemTitles = map[string]string{
	CodeInvalidRequest:        "Invalid request",
	CodeUnsupportedMediaType:  "Unsupported media type",
	CodeRequestTooLarge:       "Request too large",
	CodeNotFound:              "Not found",
	CodeMethodNotAllowed:      "Method not allowed",
	CodeTrainNotFound:         "Train not found",
	CodeNoAvailability:        "No availability",
	CodeOfferPartNotSupported: "Offer part not supported",
	CodeOfferExpired:          "Offer expired",
	CodeSearchOutOfBounds:     "A search criteria lies outside accepted boundaries",
	CodeBookingNotFound:       "Booking not found",
	CodeBookingCancelled:      "Booking already cancelled",
	CodeBookingExpired:        "Booking expired",
	CodeBookingFulfilled:      "Booking already fulfilled",
	CodeBookingNotFulfilled:   "Booking not fulfilled",
	CodeBookingRefunded:       "Booking already refunded",
	CodeFulfillmentNotFound:   "Fulfillment not found",
	CodeRefundOfferNotFound:   "Refund offer not found",
	CodeRefundOfferExpired:    "Refund offer expired",
	CodeIdempotencyKeyReused:  "Idempotency key reused",
	CodeInternalError:         "Internal error",
}

// problem is an error answer on its way out.
type problem struct {
	status  int
	code    string
	detail  string
	pointer string // JSON pointer into the request, when one field is at fault
}

func (p *problem) Error() string { return p.code + ": " + p.detail }

// newProblem returns a problem with a detail.
func newProblem(status int, code, detail string) *problem {
	return &problem{status: status, code: code, detail: detail}
}

// invalid is a 400 about the request field at pointer ("" for the whole body).
func invalid(pointer, detail string) *problem {
	return &problem{status: http.StatusBadRequest, code: CodeInvalidRequest, detail: detail, pointer: pointer}
}

// body is the OSDM Problem of p. The status is included so a problem
// copied into a log or another message still says what it was.
func (p *problem) body() osdm.Problem {
	status := p.status
	out := osdm.Problem{
		Code:   p.code,
		Type:   osdm.ProblemTypeBlank,
		Title:  problemTitles[p.code],
		Status: &status,
		Detail: p.detail,
	}
	if p.pointer != "" {
		out.Pointers = []osdm.ProblemPointer{{RequestPointer: p.pointer}}
	}
	return out
}

// inline is p as an item of a successful response's problems (status 200
// there would mislead, so it is left out).
func (p *problem) inline() osdm.Problem {
	out := p.body()
	out.Status = nil
	return out
}
