package osdmlegacy

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The problem codes the façade answers. Those marked "standard" are in
// OSDM's list of errors and problems (osdm.io/spec/errors-problems); the
// others fill what that list leaves open, spelt the same way. The forward
// direction (converter/problems.go) reads most of them back as the
// NegativeReply the legacy code came from (docs/mapping.md says which), so
// a legacy-to-legacy round trip over OSDM keeps its meaning.
const (
	// CodeOfferInvalid (400, standard OFFER_INVALID_CHARACTERS): an offer
	// search that is not valid OSDM (malformed JSON, a member the spec does
	// not have, a repeated member, a wrong type, a value out of its range).
	CodeOfferInvalid = "urn:uic:problem:OFFER_INVALID_CHARACTERS"
	// CodeOfferOutOfBounds (422, standard OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS):
	// valid OSDM outside the façade's restrictions (the problem's type
	// names the restriction).
	CodeOfferOutOfBounds = "urn:uic:problem:OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS"
	// CodeOfferPlaceUnknown (422, standard OFFER_PLACE_UNKNOWN): a place
	// that is not a UIC station (restriction 3).
	CodeOfferPlaceUnknown = "urn:uic:problem:OFFER_PLACE_UNKNOWN"
	// CodeOfferNoResults (404, standard OFFER_NO_RESULTS): no train gave an
	// offer, and none was sold out or failed; the pointers say why per train.
	CodeOfferNoResults = "urn:uic:problem:OFFER_NO_RESULTS"
	// CodeTripNotFound (404, standard OFFER_TRIP_NOT_FOUND): the legacy
	// system does not run the train (NegativeReply TRAIN_NOT_FOUND).
	CodeTripNotFound = "urn:uic:problem:OFFER_TRIP_NOT_FOUND"
	// CodeInsufficientAvailability (409, standard
	// BOOKING_INSUFFICIENT_AVAILABILITY): fewer places than passengers
	// (NegativeReply NO_AVAILABILITY).
	CodeInsufficientAvailability = "urn:uic:problem:BOOKING_INSUFFICIENT_AVAILABILITY"
	// CodeOfferNotFound (404, standard BOOKING_OFFER_NOT_FOUND): an offer id
	// that is unknown, expired, altered or forged (NegativeReply OFFER_EXPIRED).
	CodeOfferNotFound = "urn:uic:problem:BOOKING_OFFER_NOT_FOUND"
	// CodeBookingNotFound (404): no such booking (NegativeReply BOOKING_NOT_FOUND).
	CodeBookingNotFound = "urn:uic:problem:BOOKING_NOT_FOUND"
	// CodeAlreadyCancelled (409, standard BOOKING_BOOKING_ALREADY_CANCELLED):
	// NegativeReply ALREADY_CANCELLED.
	CodeAlreadyCancelled = "urn:uic:problem:BOOKING_BOOKING_ALREADY_CANCELLED"
	// CodeInvalidRequest (400): a request other than an offer search that
	// is not valid OSDM.
	CodeInvalidRequest = "urn:uic:problem:INVALID_REQUEST"
	// CodeOutOfBounds (422): a request other than an offer search outside
	// the restrictions (the type names the restriction).
	CodeOutOfBounds = "urn:uic:problem:REQUEST_OUT_OF_BOUNDS"
	// CodeUnsupportedMediaType (415): a body that is not application/json.
	CodeUnsupportedMediaType = "urn:uic:problem:UNSUPPORTED_MEDIA_TYPE"
	// CodeRequestTooLarge (413): a body over max_body.
	CodeRequestTooLarge = "urn:uic:problem:REQUEST_TOO_LARGE"
	// CodeRequestTimeout (408): a body that did not arrive within timeout.
	CodeRequestTimeout = "urn:uic:problem:REQUEST_TIMEOUT"
	// CodeNotFound (404, standard RESOURCE_NOT_FOUND): a path that is no
	// OSDM operation.
	CodeNotFound = "urn:uic:problem:RESOURCE_NOT_FOUND"
	// CodeMethodNotAllowed (405): a served path with another method.
	CodeMethodNotAllowed = "urn:uic:problem:METHOD_NOT_ALLOWED"
	// CodeNotImplemented (501): an OSDM operation this façade does not
	// offer (restriction 7 and everything outside section 7's table).
	CodeNotImplemented = "urn:uic:problem:NOT_IMPLEMENTED"
	// CodeRejected (409): the legacy system refused for a reason of its own
	// (NegativeReply PARTNER_REJECTED).
	CodeRejected = "urn:uic:problem:REQUEST_REJECTED"
	// CodeBadGateway (502): the legacy system's answer could not be used
	// (garbage, or a NegativeReply INVALID_MESSAGE to our own message).
	CodeBadGateway = "urn:uic:problem:BAD_GATEWAY"
	// CodeServiceUnavailable (503, standard SERVICE_UNAVAILABLE): the
	// legacy system is down or failed; retry later.
	CodeServiceUnavailable = "urn:uic:problem:SERVICE_UNAVAILABLE"
	// CodeTimeout (504): the legacy system did not answer within timeout.
	CodeTimeout = "urn:uic:problem:TIMEOUT"
	// CodeIdempotencyKeyReused (422): an Idempotency-Key seen before with
	// another body.
	CodeIdempotencyKeyReused = "urn:uic:problem:IDEMPOTENCY_KEY_REUSED"
	// CodeInternalError (500): a fault of the façade itself (a bug).
	CodeInternalError = "urn:uic:problem:INTERNAL_ERROR"
)

// problemTitles are the short, fixed summaries of the codes.
var problemTitles = map[string]string{
	CodeOfferInvalid:             "Invalid offer search",
	CodeOfferOutOfBounds:         "Search criteria outside accepted boundaries",
	CodeOfferPlaceUnknown:        "Place unknown",
	CodeOfferNoResults:           "No offers found",
	CodeTripNotFound:             "Trip not found",
	CodeInsufficientAvailability: "Insufficient availability",
	CodeOfferNotFound:            "Offer not found",
	CodeBookingNotFound:          "Booking not found",
	CodeAlreadyCancelled:         "Booking already cancelled",
	CodeInvalidRequest:           "Invalid request",
	CodeOutOfBounds:              "Request outside accepted boundaries",
	CodeUnsupportedMediaType:     "Unsupported media type",
	CodeRequestTooLarge:          "Request too large",
	CodeRequestTimeout:           "Request timeout",
	CodeNotFound:                 "Resource not found",
	CodeMethodNotAllowed:         "Method not allowed",
	CodeNotImplemented:           "Not implemented",
	CodeRejected:                 "Request rejected",
	CodeBadGateway:               "Bad gateway",
	CodeServiceUnavailable:       "Service unavailable",
	CodeTimeout:                  "Timeout",
	CodeIdempotencyKeyReused:     "Idempotency key reused",
	CodeInternalError:            "Internal error",
}

// Restriction is one of the restrictions of DESIGN.md section 7 under
// which the reverse direction is realisable. A problem about one carries
// its Type URI and title, so a client can tell which restriction it hit.
type Restriction struct {
	// N is its number in DESIGN.md section 7 (1..7).
	N int
	// Slug names it in the problem type URI.
	Slug string
	// Title states it.
	Title string
}

// The restrictions.
var (
	RestrictDirect       = Restriction{1, "direct-trains-only", "Direct trains only: one timed leg; no vias, transfers or return trips"}
	RestrictKnownTrain   = Restriction{2, "known-train", "The train is named (1..5 characters) or found in the timetable"}
	RestrictUICStations  = Restriction{3, "uic-stations", "Stations are UIC codes (urn:uic:stn:NNNNNNN or 7 digits)"}
	RestrictReservations = Restriction{4, "reservations-only", "Offers are reservations"}
	RestrictPassengers   = Restriction{5, "passengers", "1 to 9 passengers, each mapped to a legacy tariff by type and age"}
	RestrictOneOffer     = Restriction{6, "one-offer-per-booking", "One offer per train, class and service code; a booking books one offer for all its passengers; no place selection"}
	RestrictWholeRefunds = Restriction{7, "whole-refunds-only", "Refunds cover the whole booking; exchange, partial refund, release and on-hold are not offered"}
)

// TypeURI is the problem type of a request outside r.
func (r Restriction) TypeURI() string {
	return "urn:caddy-osdm:osdm-legacy:restriction:" + r.Slug
}

// Problem is an OSDM error answer on its way out (application/problem+json),
// or an item of a successful answer's problems. Detail is written for the
// client: it names what was wrong and never carries internals (hosts,
// legacy texts, Go errors).
type Problem struct {
	// Status is the HTTP status.
	Status int
	// Code is the OSDM problem code (one of the Code constants).
	Code string
	// Type is the problem type URI; "" means the code's osdm.io type.
	Type string
	// Title is the fixed summary; "" means the code's.
	Title string
	// Detail explains this occurrence.
	Detail string
	// Pointers locate the causes (request pointers, per-train details).
	Pointers []osdm.ProblemPointer
	// AlternativeSystemProposals are set for ALTERNATIVE_SYSTEM_PROPOSAL.
	AlternativeSystemProposals []osdm.AlternativeSystemProposal
	// Allow is the Allow header of a 405.
	Allow string
	// Retryable marks a failure the same request may get past later
	// (Retry-After is not promised); for metrics and logs.
	Retryable bool
}

// Error reads "<code>: <detail>".
func (p *Problem) Error() string { return p.Code + ": " + p.Detail }

// NewProblem returns a problem with the given status, code and detail.
func NewProblem(status int, code, detail string) *Problem {
	return &Problem{Status: status, Code: code, Detail: detail}
}

// WithPointer adds a request pointer ("#/tripSearchCriteria/vias") to p
// and returns p.
func (p *Problem) WithPointer(pointer string) *Problem {
	if pointer != "" {
		p.Pointers = append(p.Pointers, osdm.ProblemPointer{RequestPointer: pointer})
	}
	return p
}

// Invalid is a 400 about the request member at pointer ("" for the whole
// body), with the code of the call's area (CodeOfferInvalid for an offer
// search, CodeInvalidRequest otherwise).
func Invalid(code, pointer, detail string) *Problem {
	return NewProblem(http.StatusBadRequest, code, detail).WithPointer(pointer)
}

// Restricted is a 422 saying the request member at pointer is outside
// restriction r; code is CodeOfferOutOfBounds, CodeOfferPlaceUnknown or
// CodeOutOfBounds.
func Restricted(r Restriction, code, pointer, detail string) *Problem {
	p := NewProblem(http.StatusUnprocessableEntity, code, "restriction "+strconv.Itoa(r.N)+" ("+r.Title+"): "+detail)
	p.Type = r.TypeURI()
	p.Title = r.Title
	return p.WithPointer(pointer)
}

// NotOffered is a 501 for an OSDM operation the façade does not offer.
func NotOffered(what string) *Problem {
	return NewProblem(http.StatusNotImplemented, CodeNotImplemented, what+" is not offered by this OSDM provider")
}

// Body is p as an OSDM Problem. A problem of the restrictions keeps its
// own type; others get the code's osdm.io type.
func (p *Problem) Body() osdm.Problem {
	status := p.Status
	out := osdm.Problem{
		Code:                       p.Code,
		Type:                       p.Type,
		Title:                      p.Title,
		Status:                     &status,
		Detail:                     p.Detail,
		Pointers:                   p.Pointers,
		AlternativeSystemProposals: p.AlternativeSystemProposals,
	}
	if out.Type == "" {
		out.Type = problemType(p.Code)
	}
	if out.Title == "" {
		out.Title = problemTitles[p.Code]
	}
	return out
}

// Inline is p as an item of a 200's problems: the status is left out,
// since the item does not fail the answer.
func (p *Problem) Inline() osdm.Problem {
	out := p.Body()
	out.Status = nil
	return out
}

// problemType is the osdm.io type URI of a code:
// urn:uic:problem:OFFER_NO_RESULTS -> https://osdm.io/errors/offer-no-results.
func problemType(code string) string {
	if code == osdm.ProblemCodeAlternativeSystemProposal {
		return osdm.ProblemTypeAlternativeSystemProposal
	}
	name := strings.TrimPrefix(code, "urn:uic:problem:")
	return "https://osdm.io/errors/" + strings.ReplaceAll(strings.ToLower(name), "_", "-")
}

// negativeProblems maps a legacy NegativeReply code to the OSDM problem
// answered for it: status, code, and a detail sentence of our own (the
// legacy Text is never passed on: it may carry internals). docs/mapping.md
// ("Legacy NegativeReply to OSDM problem") quotes it.
var negativeProblems = map[legacy.Code]struct {
	status int
	code   string
	detail string
}{
	legacy.CodeNoAvailability:       {http.StatusConflict, CodeInsufficientAvailability, "not enough places are left for the passengers"},
	legacy.CodeTrainNotFound:        {http.StatusNotFound, CodeTripNotFound, "the reservation system does not run this train on this date between these stations"},
	legacy.CodeOfferExpired:         {http.StatusNotFound, CodeOfferNotFound, "the offer is no longer bookable"},
	legacy.CodeBookingNotFound:      {http.StatusNotFound, CodeBookingNotFound, "the reservation system holds no such booking"},
	legacy.CodeAlreadyCancelled:     {http.StatusConflict, CodeAlreadyCancelled, "the booking was cancelled before"},
	legacy.CodeExchangeNotSupported: {http.StatusNotImplemented, CodeNotImplemented, "exchange is not offered"},
	legacy.CodeUnsupportedMessage:   {http.StatusNotImplemented, CodeNotImplemented, "the reservation system does not take this kind of request"},
	legacy.CodeInvalidMessage:       {http.StatusBadGateway, CodeBadGateway, "the reservation system refused the request as invalid"},
	legacy.CodePartnerRejected:      {http.StatusConflict, CodeRejected, "the reservation system refused the request"},
	legacy.CodePartnerUnavailable:   {http.StatusServiceUnavailable, CodeServiceUnavailable, "the reservation system is unavailable; try again later"},
	legacy.CodePartnerTimeout:       {http.StatusGatewayTimeout, CodeTimeout, "the reservation system did not answer in time; try again later"},
	legacy.CodeAuthenticationFailed: {http.StatusBadGateway, CodeBadGateway, "the reservation system could not be used"},
	legacy.CodeBookingRolledBack:    {http.StatusServiceUnavailable, CodeServiceUnavailable, "the reservation system could not complete the booking and undid it; try again"},
}

// NegativeProblem is the OSDM problem for a legacy NegativeReply; subject
// ("train 9203 on 2026-12-01", "" for none) is prefixed to the detail.
// A code the table does not know is a 502.
func NegativeProblem(nr *legacy.NegativeReply, subject string) *Problem {
	m, ok := negativeProblems[nr.Code]
	if !ok {
		m.status, m.code, m.detail = http.StatusBadGateway, CodeBadGateway, "the reservation system refused the request"
	}
	detail := m.detail
	if subject != "" {
		detail = subject + ": " + detail
	}
	p := NewProblem(m.status, m.code, detail)
	p.Retryable = nr.Retryable || nr.Code.Retryable()
	return p
}

// SendProblem is the OSDM problem for a legacy message that got no usable
// reply: 504 slow, 502 garbage, 503 down. The detail names the partner and
// subject, never the cause's text.
func SendProblem(partner string, err error, subject string) *Problem {
	var p *Problem
	switch KindOf(err) {
	case ErrLegacySlow:
		p = NewProblem(http.StatusGatewayTimeout, CodeTimeout, "the reservation system "+partner+" did not answer in time; try again later")
	case ErrLegacyGarbage:
		p = NewProblem(http.StatusBadGateway, CodeBadGateway, "the reservation system "+partner+" gave an answer that could not be read")
	default:
		p = NewProblem(http.StatusServiceUnavailable, CodeServiceUnavailable, "the reservation system "+partner+" is unavailable; try again later")
	}
	if subject != "" {
		p.Detail = subject + ": " + p.Detail
	}
	p.Retryable = true
	return p
}

// AsProblem returns err as a *Problem: itself, or a 500 that says nothing
// of the cause (a store failure, a bug) for any other error.
func AsProblem(err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	return NewProblem(http.StatusInternalServerError, CodeInternalError, "the OSDM provider failed; try again later")
}
