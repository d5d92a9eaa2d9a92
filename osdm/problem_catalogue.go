package osdm

import (
	"net/http"
	"slices"
	"strings"
)

// The problem codes the OSDM providers (osdm_legacy, osdm_sandbox) answer
// and the converter reads. Those marked "standard" are in OSDM's list of
// errors and problems (osdm.io/spec/errors-problems); the others fill what
// that list leaves open, spelt the same way. ProblemCatalogue gives each
// its title and the HTTP statuses it comes with.
const (
	// CodeValidationError (400, standard): a missing or wrong field (the
	// pointer names it), a bad query parameter or Idempotency-Key.
	CodeValidationError = "urn:uic:problem:VALIDATION_ERROR"
	// CodeMalformedRequest (standard): a body that is not JSON or not the
	// JSON of the operation (400), not application/json (415), too large (413).
	CodeMalformedRequest = "urn:uic:problem:MALFORMED_REQUEST"
	// CodeResourceNotFound (404, standard): no such resource, or no OSDM
	// operation at the path.
	CodeResourceNotFound = "urn:uic:problem:RESOURCE_NOT_FOUND"
	// CodeOperationNotPermitted (standard): an operation of the spec the
	// provider does not serve (501), a method the spec has not on the path
	// (405), an operation the provider may not perform now (409), an
	// Idempotency-Key reused with another body (422).
	CodeOperationNotPermitted = "urn:uic:problem:OPERATION_NOT_PERMITTED"
	// CodeNoResults (404, standard): no searched train runs.
	CodeNoResults = "urn:uic:problem:NO_RESULTS"
	// CodeParameterNotSupported (400, standard): a part of the request the
	// provider does not serve (inside a 200: one it ignored).
	CodeParameterNotSupported = "urn:uic:problem:PARAMETER_NOT_SUPPORTED"
	// CodeUnknownError (500, standard): a bug in the provider.
	CodeUnknownError = "urn:uic:problem:UNKNOWN_ERROR"
	// CodeOfferInvalid (400, standard OFFER_INVALID_CHARACTERS): an offer
	// search that is not valid OSDM.
	CodeOfferInvalid = "urn:uic:problem:OFFER_INVALID_CHARACTERS"
	// CodeOfferOutOfBounds (standard OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS):
	// valid OSDM outside what the provider sells (422), or a search for
	// trains that have left (400).
	CodeOfferOutOfBounds = "urn:uic:problem:OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS"
	// CodeOfferPlaceUnknown (422, standard): a place the provider does not know.
	CodeOfferPlaceUnknown = "urn:uic:problem:OFFER_PLACE_UNKNOWN"
	// CodeOfferNoResults (404, standard): no train gave an offer.
	CodeOfferNoResults = "urn:uic:problem:OFFER_NO_RESULTS"
	// CodeTripNotFound (404, standard OFFER_TRIP_NOT_FOUND): the train does
	// not run.
	CodeTripNotFound = "urn:uic:problem:OFFER_TRIP_NOT_FOUND"
	// CodeScheduleMismatch (400, standard): a trip specification's times
	// differ from the timetable's.
	CodeScheduleMismatch = "urn:uic:problem:OFFER_SCHEDULE_MISMATCH"
	// CodeOfferNotFound (404, standard BOOKING_OFFER_NOT_FOUND): an offer
	// that is unknown, expired, altered or already booked.
	CodeOfferNotFound = "urn:uic:problem:BOOKING_OFFER_NOT_FOUND"
	// CodeInsufficientAvailability (409, standard): fewer places left than
	// passengers.
	CodeInsufficientAvailability = "urn:uic:problem:BOOKING_INSUFFICIENT_AVAILABILITY"
	// CodeBookingNotFound (404): no such booking.
	CodeBookingNotFound = "urn:uic:problem:BOOKING_NOT_FOUND"
	// CodeBookingAlreadyCancelled (standard BOOKING_BOOKING_ALREADY_CANCELLED):
	// the booking was cancelled (409), or deleted a short while ago (404).
	CodeBookingAlreadyCancelled = "urn:uic:problem:BOOKING_BOOKING_ALREADY_CANCELLED"
	// CodeModificationNotAllowed (409, standard): the booking may not be
	// changed any more.
	CodeModificationNotAllowed = "urn:uic:problem:BOOKING_MODIFICATION_NOT_ALLOWED"
	// CodeReadOnlyProperty (400, standard): a change of a member that
	// cannot change.
	CodeReadOnlyProperty = "urn:uic:problem:BOOKING_MODIFY_READ_ONLY_PROPERTY"
	// CodeConfirmationCancelled (409, standard
	// CONFIRMATION_BOOKING_ALREADY_CANCELLED): a fulfilment of a booking
	// that was released or refunded.
	CodeConfirmationCancelled = "urn:uic:problem:CONFIRMATION_BOOKING_ALREADY_CANCELLED"
	// CodeAlreadyFulfilled (409, standard
	// CONFIRMATION_BOOKING_ALREADY_FULFILLED): a fulfilled booking cannot be
	// deleted, only refunded.
	CodeAlreadyFulfilled = "urn:uic:problem:CONFIRMATION_BOOKING_ALREADY_FULFILLED"
	// CodeBookingExpired (409): a PREBOOKED booking past its
	// confirmationTimeLimit, released or about to be.
	CodeBookingExpired = "urn:uic:problem:BOOKING_CONFIRMATION_TIME_LIMIT_EXCEEDED"
	// CodeBookingFulfilled (409): a fulfilled booking cannot be deleted or
	// its passengers changed; it is refunded.
	CodeBookingFulfilled = "urn:uic:problem:BOOKING_ALREADY_CONFIRMED"
	// CodeBookingNotFulfilled (409): a booking not fulfilled is deleted,
	// not refunded.
	CodeBookingNotFulfilled = "urn:uic:problem:BOOKING_NOT_CONFIRMED"
	// CodeBookingRefunded (409): a refunded booking.
	CodeBookingRefunded = "urn:uic:problem:BOOKING_ALREADY_REFUNDED"
	// CodeRefundOfferNotFound (404): no such refund offer of the booking.
	CodeRefundOfferNotFound = "urn:uic:problem:REFUND_OFFER_NOT_FOUND"
	// CodeRefundOfferExpired (409): a refund offer past its validUntil.
	CodeRefundOfferExpired = "urn:uic:problem:REFUND_OFFER_EXPIRED"
	// CodeFulfillmentNotFound (404): a fulfillmentId that is not the booking's.
	CodeFulfillmentNotFound = "urn:uic:problem:FULFILLMENT_NOT_FOUND"
	// CodeAlternativeSystemProposal (standard, v3.10): another reservation
	// system sells the train; the problem carries AlternativeSystemProposals.
	CodeAlternativeSystemProposal = "urn:uic:problem:ALTERNATIVE_SYSTEM_PROPOSAL"
	// CodeInvalidRequest (400): a request other than an offer search that
	// is not valid OSDM.
	CodeInvalidRequest = "urn:uic:problem:INVALID_REQUEST"
	// CodeOutOfBounds (422): a request other than an offer search outside
	// what the provider sells (the type names the restriction).
	CodeOutOfBounds = "urn:uic:problem:REQUEST_OUT_OF_BOUNDS"
	// CodeUnsupportedMediaType (415): a body that is not application/json.
	CodeUnsupportedMediaType = "urn:uic:problem:UNSUPPORTED_MEDIA_TYPE"
	// CodeRequestTooLarge (413): a body over the provider's limit.
	CodeRequestTooLarge = "urn:uic:problem:REQUEST_TOO_LARGE"
	// CodeRequestTimeout (408): a body that did not arrive within the
	// provider's timeout.
	CodeRequestTimeout = "urn:uic:problem:REQUEST_TIMEOUT"
	// CodeNotImplemented (501): the system behind the provider does not
	// take this kind of request.
	CodeNotImplemented = "urn:uic:problem:NOT_IMPLEMENTED"
	// CodeRejected (409): the system behind the provider refused for a
	// reason of its own.
	CodeRejected = "urn:uic:problem:REQUEST_REJECTED"
	// CodeBadGateway (502): the system behind the provider answered
	// something unusable.
	CodeBadGateway = "urn:uic:problem:BAD_GATEWAY"
	// CodeServiceUnavailable (503, standard): the system behind the
	// provider is down or failed; retry later.
	CodeServiceUnavailable = "urn:uic:problem:SERVICE_UNAVAILABLE"
	// CodeTimeout (504): the system behind the provider did not answer in time.
	CodeTimeout = "urn:uic:problem:TIMEOUT"
	// CodeIdempotencyKeyReused (422): an Idempotency-Key seen before with
	// another body.
	CodeIdempotencyKeyReused = "urn:uic:problem:IDEMPOTENCY_KEY_REUSED"
	// CodeInternalError (500): a fault of the provider itself (a bug).
	CodeInternalError = "urn:uic:problem:INTERNAL_ERROR"
	// CodeMissingToken (401): a request without an access token.
	CodeMissingToken = "urn:uic:problem:MISSING_TOKEN"
	// CodeTokenExpired (401): an access token past its expiry.
	CodeTokenExpired = "urn:uic:problem:TOKEN_EXPIRED"
	// CodeInsufficientScope (403): an access token without the scope the
	// operation needs.
	CodeInsufficientScope = "urn:uic:problem:INSUFFICIENT_SCOPE"
	// CodeInvalidToken (401): an access token that is not valid.
	CodeInvalidToken = "urn:uic:problem:INVALID_TOKEN"
)

// ProblemKind is one entry of the catalogue: a code's fixed title and the
// HTTP statuses it is answered with (the usual one first).
type ProblemKind struct {
	// Code is the problem code, e.g. "urn:uic:problem:BOOKING_NOT_FOUND".
	Code string
	// Title is the short, fixed summary answered with every problem of the code.
	Title string
	// Statuses are the HTTP statuses the code comes with, the usual one first.
	Statuses []int
}

// ProblemCatalogue is every problem code the providers answer, in one
// table: the one place a code, its title and its statuses are defined.
var ProblemCatalogue = []ProblemKind{
	{CodeValidationError, "The request contains incorrect information", []int{http.StatusBadRequest}},
	{CodeMalformedRequest, "The request does not match the OSDM specification", []int{http.StatusBadRequest, http.StatusUnsupportedMediaType, http.StatusRequestEntityTooLarge}},
	{CodeResourceNotFound, "The requested (sub) resource could not be found", []int{http.StatusNotFound}},
	{CodeOperationNotPermitted, "Trying to perform an operation that is not permitted", []int{http.StatusNotImplemented, http.StatusMethodNotAllowed, http.StatusConflict, http.StatusUnprocessableEntity}},
	{CodeNoResults, "The search did not return any result", []int{http.StatusNotFound}},
	{CodeParameterNotSupported, "A given request parameter is not supported", []int{http.StatusBadRequest}},
	{CodeUnknownError, "Unexpected or unspecified error occurred", []int{http.StatusInternalServerError}},
	{CodeOfferInvalid, "Invalid offer search", []int{http.StatusBadRequest}},
	{CodeOfferOutOfBounds, "A search criteria lies outside accepted boundaries", []int{http.StatusUnprocessableEntity, http.StatusBadRequest}},
	{CodeOfferPlaceUnknown, "Place unknown", []int{http.StatusUnprocessableEntity}},
	{CodeOfferNoResults, "No offers found", []int{http.StatusNotFound}},
	{CodeTripNotFound, "Trip not found", []int{http.StatusNotFound}},
	{CodeScheduleMismatch, "Schedule mismatch between systems", []int{http.StatusBadRequest}},
	{CodeOfferNotFound, "Referenced Offer or offer part not found (offer expired ?)", []int{http.StatusNotFound}},
	{CodeInsufficientAvailability, "Insufficient availability for one of the requested products", []int{http.StatusConflict}},
	{CodeBookingNotFound, "Booking not found", []int{http.StatusNotFound}},
	{CodeBookingAlreadyCancelled, "The booking is already cancelled", []int{http.StatusConflict, http.StatusNotFound}},
	{CodeModificationNotAllowed, "The booking does not allow modifications", []int{http.StatusConflict}},
	{CodeReadOnlyProperty, "Attempted to modify a read-only property", []int{http.StatusBadRequest}},
	{CodeConfirmationCancelled, "Booking already cancelled", []int{http.StatusConflict}},
	{CodeAlreadyFulfilled, "Booking already fulfilled", []int{http.StatusConflict}},
	{CodeBookingExpired, "Confirmation time limit exceeded", []int{http.StatusConflict}},
	{CodeBookingFulfilled, "Booking already confirmed", []int{http.StatusConflict}},
	{CodeBookingNotFulfilled, "Booking not confirmed", []int{http.StatusConflict}},
	{CodeBookingRefunded, "Booking already refunded", []int{http.StatusConflict}},
	{CodeRefundOfferNotFound, "Refund offer not found", []int{http.StatusNotFound}},
	{CodeRefundOfferExpired, "Refund offer expired", []int{http.StatusConflict}},
	{CodeFulfillmentNotFound, "Fulfillment not found", []int{http.StatusNotFound}},
	{CodeAlternativeSystemProposal, "Another reservation system sells this", []int{http.StatusConflict}},
	{CodeInvalidRequest, "Invalid request", []int{http.StatusBadRequest}},
	{CodeOutOfBounds, "Request outside accepted boundaries", []int{http.StatusUnprocessableEntity}},
	{CodeUnsupportedMediaType, "Unsupported media type", []int{http.StatusUnsupportedMediaType}},
	{CodeRequestTooLarge, "Request too large", []int{http.StatusRequestEntityTooLarge}},
	{CodeRequestTimeout, "Request timeout", []int{http.StatusRequestTimeout}},
	{CodeNotImplemented, "Not implemented", []int{http.StatusNotImplemented}},
	{CodeRejected, "Request rejected", []int{http.StatusConflict}},
	{CodeBadGateway, "Bad gateway", []int{http.StatusBadGateway}},
	{CodeServiceUnavailable, "Service unavailable", []int{http.StatusServiceUnavailable}},
	{CodeTimeout, "Timeout", []int{http.StatusGatewayTimeout}},
	{CodeIdempotencyKeyReused, "Idempotency key reused", []int{http.StatusUnprocessableEntity}},
	{CodeInternalError, "Internal error", []int{http.StatusInternalServerError}},
	{CodeMissingToken, "Unauthorized", []int{http.StatusUnauthorized}},
	{CodeTokenExpired, "Unauthorized", []int{http.StatusUnauthorized}},
	{CodeInsufficientScope, "Forbidden", []int{http.StatusForbidden}},
	{CodeInvalidToken, "Unauthorized", []int{http.StatusUnauthorized}},
}

// problemKinds indexes ProblemCatalogue by code.
var problemKinds = func() map[string]*ProblemKind {
	m := make(map[string]*ProblemKind, len(ProblemCatalogue))
	for i := range ProblemCatalogue {
		m[ProblemCatalogue[i].Code] = &ProblemCatalogue[i]
	}
	return m
}()

// LookupProblem returns the catalogue entry of code.
func LookupProblem(code string) (ProblemKind, bool) {
	k, ok := problemKinds[code]
	if !ok {
		return ProblemKind{}, false
	}
	return *k, true
}

// ProblemTitle is the catalogue's title of code ("" for a code it does not
// list).
func ProblemTitle(code string) string {
	if k, ok := problemKinds[code]; ok {
		return k.Title
	}
	return ""
}

// ProblemStatus is the usual HTTP status of code (500 for a code the
// catalogue does not list).
func ProblemStatus(code string) int {
	if k, ok := problemKinds[code]; ok {
		return k.Statuses[0]
	}
	return http.StatusInternalServerError
}

// ProblemAllowsStatus reports whether the catalogue lists status for code.
func ProblemAllowsStatus(code string, status int) bool {
	k, ok := problemKinds[code]
	return ok && slices.Contains(k.Statuses, status)
}

// ProblemType is the osdm.io type URI of a code:
// urn:uic:problem:OFFER_NO_RESULTS -> https://osdm.io/errors/offer-no-results.
func ProblemType(code string) string {
	if code == CodeAlternativeSystemProposal {
		return ProblemTypeAlternativeSystemProposal
	}
	name, ok := strings.CutPrefix(code, ProblemCodePrefix)
	if !ok || name == "" {
		return ProblemTypeBlank
	}
	return "https://osdm.io/errors/" + strings.ReplaceAll(strings.ToLower(name), "_", "-")
}

// ProblemCodePrefix starts every OSDM problem code.
const ProblemCodePrefix = "urn:uic:problem:"

// ProblemError is an OSDM error answer on its way out of a provider
// (application/problem+json), or an item of a successful answer's
// problems: the one builder of problems both providers use. Detail is
// written for the client: it names what was wrong and never carries
// internals (hosts, legacy texts, Go errors).
type ProblemError struct {
	// Status is the HTTP status; one of the code's in ProblemCatalogue.
	Status int
	// Code is the problem code (one of the Code constants).
	Code string
	// Type is the problem type URI; "" means the code's osdm.io type.
	Type string
	// Title is the fixed summary; "" means the catalogue's.
	Title string
	// Detail explains this occurrence.
	Detail string
	// Pointers locate the causes (request pointers, per-train details).
	Pointers []ProblemPointer
	// AlternativeSystemProposals are set for ALTERNATIVE_SYSTEM_PROPOSAL.
	AlternativeSystemProposals []AlternativeSystemProposal
	// Allow is the Allow header of a 405.
	Allow string
	// Retryable marks a failure the same request may get past later
	// (Retry-After is not promised); for metrics and logs.
	Retryable bool
}

// Error reads "<code>: <detail>".
func (p *ProblemError) Error() string { return p.Code + ": " + p.Detail }

// NewProblem returns a problem with the given status, code and detail.
func NewProblem(status int, code, detail string) *ProblemError {
	return &ProblemError{Status: status, Code: code, Detail: detail}
}

// Fail returns a problem of code with its usual status (ProblemStatus).
func Fail(code, detail string) *ProblemError {
	return NewProblem(ProblemStatus(code), code, detail)
}

// Invalid is a 400 of code about the request member at pointer ("" for
// the whole body).
func Invalid(code, pointer, detail string) *ProblemError {
	return NewProblem(http.StatusBadRequest, code, detail).WithPointer(pointer)
}

// WithPointer adds a request pointer ("#/tripSearchCriteria/vias") to p
// and returns p.
func (p *ProblemError) WithPointer(pointer string) *ProblemError {
	if pointer != "" {
		p.Pointers = append(p.Pointers, ProblemPointer{RequestPointer: pointer})
	}
	return p
}

// Body is p as an OSDM Problem: the type and title are the code's unless
// p sets its own.
func (p *ProblemError) Body() Problem {
	status := p.Status
	out := Problem{
		Code:                       p.Code,
		Type:                       p.Type,
		Title:                      p.Title,
		Status:                     &status,
		Detail:                     p.Detail,
		Pointers:                   p.Pointers,
		AlternativeSystemProposals: p.AlternativeSystemProposals,
	}
	if out.Type == "" {
		out.Type = ProblemType(p.Code)
	}
	if out.Title == "" {
		out.Title = ProblemTitle(p.Code)
	}
	return out
}

// Inline is p as an item of a successful answer's problems: the status is
// left out, since the item does not fail the answer.
func (p *ProblemError) Inline() Problem {
	out := p.Body()
	out.Status = nil
	return out
}
