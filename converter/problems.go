package converter

import (
	"net/http"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// How a failed OSDM call becomes a NegativeReply code. docs/mapping.md
// ("NegativeReply codes and HTTP statuses") quotes this table.
//
// First the partner's problem code (with or without the urn:uic:problem:
// prefix; the standardised codes of the OSDM "Errors and Problems" page,
// plus the obvious spellings partners use):
//
//	BOOKING_INSUFFICIENT_AVAILABILITY, BOOKING_PLACE_NOT_AVAILABLE,
//	BOOKING_RESERVATION_OPTION_NOT_AVAILABLE, OFFER_RESERVATION_OPTION_NOTA,
//	INSUFFICIENT_AVAILABILITY, NO_AVAILABILITY, SOLD_OUT -> NO_AVAILABILITY (409)
//	BOOKING_OFFER_NOT_FOUND, OFFER_NOT_FOUND,
//	OFFER_EXPIRED                                  -> OFFER_EXPIRED (409)
//	OFFER_TRIP_NOT_FOUND, OFFER_NO_RESULTS, TRIP_NO_SEARCH_RESULT,
//	TRIP_NOT_FOUND, TRAIN_NOT_FOUND, TRIP_PLACE_UNKNOWN,
//	OFFER_PLACE_UNKNOWN                            -> TRAIN_NOT_FOUND (404)
//	BOOKING_NOT_FOUND                              -> BOOKING_NOT_FOUND (404)
//	BOOKING_BOOKING_ALREADY_CANCELLED,
//	CONFIRMATION_BOOKING_ALREADY_CANCELLED,
//	BOOKING_ALREADY_CANCELLED, BOOKING_ALREADY_REFUNDED,
//	ALREADY_CANCELLED, ALREADY_REFUNDED            -> ALREADY_CANCELLED (409)
//	UNAUTHORIZED                                   -> AUTHENTICATION_FAILED (502)
//	SERVICE_UNAVAILABLE                            -> PARTNER_UNAVAILABLE (502, retryable)
//	RESOURCE_NOT_FOUND, NO_RESULTS                 -> what a 404 of that call means (below)
//	ALTERNATIVE_SYSTEM_PROPOSAL                    -> a ReplacementProposal (200), from the
//	                                                  offer search and POST /bookings
//
// The standard codes are those osdm_sandbox answers; the others are the
// spellings of partners before the list and of the sandbox's first
// versions (TRAIN_NOT_FOUND, NO_AVAILABILITY, OFFER_EXPIRED,
// BOOKING_NOT_FOUND, BOOKING_ALREADY_CANCELLED, BOOKING_ALREADY_REFUNDED),
// still read the same.
//
// Then, for any other code or none, the HTTP status:
//
//	401, 403                         -> AUTHENTICATION_FAILED (502)
//	404 of POST /offers, /trip-offers -> TRAIN_NOT_FOUND (404)
//	404 of POST /bookings            -> OFFER_EXPIRED (409)
//	404 of a /bookings/{id} call     -> BOOKING_NOT_FOUND (404)
//	404 of PATCH .../refund-offers/{rid} -> PARTNER_REJECTED (502; the refund offer is gone)
//	404 of a document's downloadLink -> PARTNER_REJECTED (502; retryable: the
//	                                    TicketRequest sent again reads fresh links)
//	408, 504                         -> PARTNER_TIMEOUT (504, retryable)
//	501                              -> PARTNER_REJECTED (502; the partner does not
//	                                    serve the operation, a retry will not help)
//	429, 5xx, 1xx, 3xx               -> PARTNER_UNAVAILABLE (502, retryable)
//	any other 4xx                    -> PARTNER_REJECTED (502)
//
// And where no usable HTTP answer came:
//
//	a 2xx whose body is not the JSON the operation answers -> PARTNER_UNAVAILABLE (502, retryable)
//	the Caller's ErrAuthentication                      -> AUTHENTICATION_FAILED (502)
//	ErrTimeout, context.DeadlineExceeded                   -> PARTNER_TIMEOUT (504, retryable)
//	any other transport error                              -> PARTNER_UNAVAILABLE (502, retryable)
//
// Every NegativeReply that follows a partner's problem carries its code as
// PartnerProblem. A garbage 2xx is a partner failure rather than a refusal:
// the partner may have acted, and the same request may well succeed later.
var problemCodes = map[string]legacy.Code{
	"BOOKING_INSUFFICIENT_AVAILABILITY":        legacy.CodeNoAvailability,
	"BOOKING_PLACE_NOT_AVAILABLE":              legacy.CodeNoAvailability,
	"BOOKING_RESERVATION_OPTION_NOT_AVAILABLE": legacy.CodeNoAvailability,
	"OFFER_RESERVATION_OPTION_NOTA":            legacy.CodeNoAvailability,
	"INSUFFICIENT_AVAILABILITY":                legacy.CodeNoAvailability,
	"NO_AVAILABILITY":                          legacy.CodeNoAvailability,
	"SOLD_OUT":                                 legacy.CodeNoAvailability,

	"BOOKING_OFFER_NOT_FOUND": legacy.CodeOfferExpired,
	"OFFER_NOT_FOUND":         legacy.CodeOfferExpired,
	"OFFER_EXPIRED":           legacy.CodeOfferExpired,

	"OFFER_TRIP_NOT_FOUND":  legacy.CodeTrainNotFound,
	"OFFER_NO_RESULTS":      legacy.CodeTrainNotFound,
	"TRIP_NO_SEARCH_RESULT": legacy.CodeTrainNotFound,
	"TRIP_NOT_FOUND":        legacy.CodeTrainNotFound,
	"TRAIN_NOT_FOUND":       legacy.CodeTrainNotFound,
	"TRIP_PLACE_UNKNOWN":    legacy.CodeTrainNotFound,
	"OFFER_PLACE_UNKNOWN":   legacy.CodeTrainNotFound,

	"BOOKING_NOT_FOUND": legacy.CodeBookingNotFound,

	"BOOKING_BOOKING_ALREADY_CANCELLED":      legacy.CodeAlreadyCancelled,
	"CONFIRMATION_BOOKING_ALREADY_CANCELLED": legacy.CodeAlreadyCancelled,
	"BOOKING_ALREADY_CANCELLED":              legacy.CodeAlreadyCancelled,
	"BOOKING_ALREADY_REFUNDED":               legacy.CodeAlreadyCancelled,
	"ALREADY_CANCELLED":                      legacy.CodeAlreadyCancelled,
	"ALREADY_REFUNDED":                       legacy.CodeAlreadyCancelled,

	"UNAUTHORIZED":        legacy.CodeAuthenticationFailed,
	"SERVICE_UNAVAILABLE": legacy.CodePartnerUnavailable,
}

// notFoundProblems mean "what you asked for does not exist": their code
// depends on the call, as a bare 404 does.
var notFoundProblems = map[string]bool{"RESOURCE_NOT_FOUND": true, "NO_RESULTS": true}

// codeOfProblem returns the NegativeReply code the table gives the
// partner's problem code on step, and whether it gives one.
func codeOfProblem(step Step, problemCode string) (legacy.Code, bool) {
	name := strings.ToUpper(strings.TrimPrefix(problemCode, osdm.ProblemCodePrefix))
	if code, ok := problemCodes[name]; ok {
		return code, true
	}
	if notFoundProblems[name] {
		return notFoundCode(step), true
	}
	return "", false
}

// codeOfStatus returns the NegativeReply code of an HTTP status that is
// not a success, for the call step.
func codeOfStatus(step Step, status int) legacy.Code {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return legacy.CodeAuthenticationFailed
	case status == http.StatusNotFound:
		return notFoundCode(step)
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return legacy.CodePartnerTimeout
	case status == http.StatusNotImplemented:
		return legacy.CodePartnerRejected
	case status == http.StatusTooManyRequests || status >= 500 || status < 400:
		return legacy.CodePartnerUnavailable
	}
	return legacy.CodePartnerRejected
}

// notFoundCode is what "not found" means for each call: the train when
// searching, the offer when booking it, the booking afterwards.
func notFoundCode(step Step) legacy.Code {
	switch step {
	case StepOffers, StepTripOffers:
		return legacy.CodeTrainNotFound
	case StepBooking:
		return legacy.CodeOfferExpired
	case StepRefundOffer, StepDocument:
		return legacy.CodePartnerRejected
	}
	return legacy.CodeBookingNotFound
}

// classify returns the NegativeReply code of a non-2xx answer to step
// with the partner's problem p (nil when the body held none).
func classify(step Step, status int, p *osdm.Problem) legacy.Code {
	if p != nil && p.Code != "" {
		if code, ok := codeOfProblem(step, p.Code); ok {
			return code
		}
	}
	return codeOfStatus(step, status)
}

// replacement answers an ALTERNATIVE_SYSTEM_PROPOSAL problem with a
// ReplacementProposal: one Alternative per proposal and scope entry
// (one unscoped Alternative for a proposal without scope).
//
//   - ReservationSystem is reservationSystemId (left out unless 1..9999);
//   - Operator is the 4 digits of systemOperatorCode (urn:uic:rics:NNNN or
//     the bare digits); a proposal without them is skipped, as the legacy
//     side cannot use it;
//   - TrainNumber and TravelClass come from the scope entry (a vehicle
//     number a legacy TrainNumber cannot carry leaves the train out);
//   - Priority is the proposal's priority, or its position in the list
//     (1, 2, ...) when the partner gave none.
//
// A proposal problem with no usable proposal is a PARTNER_REJECTED.
func (r *run) replacement(p *osdm.Problem) *Result {
	var alts []legacy.Alternative
	for i, sp := range p.AlternativeSystemProposals {
		op := ricsCode(sp.SystemOperatorCode)
		if op == "" {
			continue
		}
		alt := legacy.Alternative{Operator: op, Priority: i + 1}
		if id := sp.ReservationSystemID; id != nil && *id >= 1 && *id <= 9999 {
			alt.ReservationSystem = *id
		}
		if sp.Priority != nil {
			alt.Priority = min(max(*sp.Priority, 0), 999999999)
		}
		if len(sp.Scope) == 0 {
			alts = append(alts, alt)
			continue
		}
		for _, sc := range sp.Scope {
			a := alt
			if legacy.ValidTrainNumber(sc.VehicleNumber) {
				a.TrainNumber = sc.VehicleNumber
			}
			switch sc.TravelClass {
			case osdm.TravelClassFirst:
				a.TravelClass = legacy.FirstClass
			case osdm.TravelClassSecond:
				a.TravelClass = legacy.SecondClass
			}
			alts = append(alts, a)
		}
		if len(alts) >= legacy.MaxItems {
			alts = alts[:legacy.MaxItems]
			break
		}
	}
	if len(alts) == 0 {
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, PartnerProblem: partnerText(p.Code, 200),
			Text: "Partner " + r.c.partner + " cannot sell this train and proposed other reservation systems, but named none by a RICS operator code" + describeProblem(p) + "."})
	}
	return &Result{Reply: &legacy.ReplacementProposal{Header: r.h, Alternatives: alts}, Status: http.StatusOK, Outcome: OutcomeReplacementProposal}
}

// ricsCode returns the 4-digit RICS code of "urn:uic:rics:1185" or "1185", or "".
func ricsCode(s string) string {
	s = strings.TrimPrefix(s, "urn:uic:rics:")
	if len(s) != 4 {
		return ""
	}
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return ""
		}
	}
	return s
}
