package osdmsandbox

import (
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The problem codes the sandbox answers: only the standardised codes of
// OSDM's "Errors and Problems" list (osdm.io/spec/errors-problems, its
// technical and functional errors), so that a consumer tested against the
// sandbox meets the codes a real partner answers. Each is listed with the
// statuses it comes with; 409, 413, 422 and 501 on operations that do not
// list them are the spec's "default" error response.
const (
	// CodeValidationError (400): a missing or wrong field (the pointer
	// names it), a bad query parameter or Idempotency-Key.
	CodeValidationError = "urn:uic:problem:VALIDATION_ERROR"
	// CodeMalformedRequest: a body that is not JSON or not the JSON of the
	// operation (400), not application/json (415), over 1 MiB (413).
	CodeMalformedRequest = "urn:uic:problem:MALFORMED_REQUEST"
	// CodeResourceNotFound (404): no such booking, passenger, refund offer
	// or fulfilment of the booking, or no such path at all.
	CodeResourceNotFound = "urn:uic:problem:RESOURCE_NOT_FOUND"
	// CodeOperationNotPermitted: an OSDM operation the sandbox does not
	// serve (501), a method the path does not have (405), a refund of a
	// provisional booking, a confirmation of an expired refund offer or
	// a DELETE of a confirmed one (409), an Idempotency-Key reused with
	// another body (422, as in the IETF Idempotency-Key draft).
	CodeOperationNotPermitted = "urn:uic:problem:OPERATION_NOT_PERMITTED"
	// CodeNoResults (404, POST /offers and GET /trip-offers): no searched
	// train runs.
	CodeNoResults = "urn:uic:problem:NO_RESULTS"
	// CodeParameterNotSupported: a required part of the request the
	// sandbox does not serve (400): a trip of several legs, vias, tripIds,
	// inbound trips; inside a 200, an optional one it ignored (offer parts
	// other than reservations, passenger fields it does not keep).
	CodeParameterNotSupported = "urn:uic:problem:PARAMETER_NOT_SUPPORTED"
	// CodeUnknownError (500): a bug in the sandbox.
	CodeUnknownError = "urn:uic:problem:UNKNOWN_ERROR"

	// CodeSearchOutOfBounds (400, POST /offers and GET /trip-offers): every
	// train searched for has already left (more than DepartureTolerance
	// ago).
	CodeSearchOutOfBounds = "urn:uic:problem:OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS"
	// CodeScheduleMismatch (400, POST /offers): a trip specification's
	// times differ from those of a train of Config.Timetable.
	CodeScheduleMismatch = "urn:uic:problem:OFFER_SCHEDULE_MISMATCH"
	// CodeOfferNotFound (404, POST /bookings): the offer is unknown, past
	// its preBookableUntil, or already booked.
	CodeOfferNotFound = "urn:uic:problem:BOOKING_OFFER_NOT_FOUND"
	// CodeInsufficientAvailability: fewer places left than passengers (409
	// on POST /bookings; inside a 200 without offers on POST /offers).
	CodeInsufficientAvailability = "urn:uic:problem:BOOKING_INSUFFICIENT_AVAILABILITY"
	// CodeBookingCancelled: the booking was deleted (404, answered for
	// Config.Retention after the DELETE, then RESOURCE_NOT_FOUND), or it
	// was released or refunded (409).
	CodeBookingCancelled = "urn:uic:problem:BOOKING_BOOKING_ALREADY_CANCELLED"
	// CodeModificationNotAllowed (409, PATCH of a passenger): the booking
	// is fulfilled.
	CodeModificationNotAllowed = "urn:uic:problem:BOOKING_MODIFICATION_NOT_ALLOWED"
	// CodeReadOnlyProperty (400, PATCH of a passenger): a change of its
	// externalRef or type.
	CodeReadOnlyProperty = "urn:uic:problem:BOOKING_MODIFY_READ_ONLY_PROPERTY"
	// CodeConfirmationCancelled (409, POST .../fulfillments): the booking
	// was released (not fulfilled before its confirmationTimeLimit) or
	// refunded.
	CodeConfirmationCancelled = "urn:uic:problem:CONFIRMATION_BOOKING_ALREADY_CANCELLED"
	// CodeAlreadyFulfilled (409, DELETE /bookings/{id}): a fulfilled
	// booking cannot be deleted, only refunded.
	CodeAlreadyFulfilled = "urn:uic:problem:CONFIRMATION_BOOKING_ALREADY_FULFILLED"
)

// problemTitles are the short, fixed summaries of the codes, those of the
// spec's list.
var problemTitles = map[string]string{
	CodeValidationError:          "The request contains incorrect information",
	CodeMalformedRequest:         "The request does not match the OSDM specification",
	CodeResourceNotFound:         "The requested (sub) resource could not be found",
	CodeOperationNotPermitted:    "Trying to perform an operation that is not permitted",
	CodeNoResults:                "The search did not return any result",
	CodeParameterNotSupported:    "A given request parameter is not supported",
	CodeUnknownError:             "Unexpected or unspecified error occurred",
	CodeSearchOutOfBounds:        "A search criteria lies outside accepted boundaries",
	CodeScheduleMismatch:         "Schedule mismatch between systems",
	CodeOfferNotFound:            "Referenced Offer or offer part not found (offer expired ?)",
	CodeInsufficientAvailability: "Insufficient availability for one of the requested products",
	CodeBookingCancelled:         "The booking is already cancelled",
	CodeModificationNotAllowed:   "The booking does not allow modifications",
	CodeReadOnlyProperty:         "Attempted to modify a read-only property",
	CodeConfirmationCancelled:    "Booking already cancelled",
	CodeAlreadyFulfilled:         "Booking already fulfilled",
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
	return &problem{status: http.StatusBadRequest, code: CodeValidationError, detail: detail, pointer: pointer}
}

// malformed is a 400 about JSON that does not parse or does not have the
// operation's shape, at pointer ("" for the whole body).
func malformed(pointer, detail string) *problem {
	return &problem{status: http.StatusBadRequest, code: CodeMalformedRequest, detail: detail, pointer: pointer}
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
