package legacy

import (
	"errors"
	"net/http"
	"time"
)

// Code is a NegativeReply code.
type Code string

// The NegativeReply codes of legacy-protocol.md.
const (
	// CodeInvalidMessage: the message is malformed or breaks a rule.
	CodeInvalidMessage Code = "INVALID_MESSAGE"
	// CodeUnsupportedMessage: the message is of a kind the converter does
	// not take.
	CodeUnsupportedMessage Code = "UNSUPPORTED_MESSAGE"
	// CodeExchangeNotSupported: the partner does not offer exchange.
	CodeExchangeNotSupported Code = "EXCHANGE_NOT_SUPPORTED"
	// CodeExchangeNotPossible: the partner refuses this exchange (the fare
	// does not allow it, too late, another reason it gives); the old
	// booking stands.
	CodeExchangeNotPossible Code = "EXCHANGE_NOT_POSSIBLE"
	// CodeNoAvailability: no place matches the request.
	CodeNoAvailability Code = "NO_AVAILABILITY"
	// CodeTrainNotFound: the partner knows no such train run.
	CodeTrainNotFound Code = "TRAIN_NOT_FOUND"
	// CodeOfferExpired: the OfferRef is no longer valid.
	CodeOfferExpired Code = "OFFER_EXPIRED"
	// CodeBookingNotFound: the BookingRef names no booking.
	CodeBookingNotFound Code = "BOOKING_NOT_FOUND"
	// CodeAlreadyCancelled: the booking was cancelled before.
	CodeAlreadyCancelled Code = "ALREADY_CANCELLED"
	// CodePartnerRejected: the partner refused the call for another reason.
	CodePartnerRejected Code = "PARTNER_REJECTED"
	// CodePartnerUnavailable: the partner could not be reached or failed.
	CodePartnerUnavailable Code = "PARTNER_UNAVAILABLE"
	// CodePartnerTimeout: the partner did not answer in time.
	CodePartnerTimeout Code = "PARTNER_TIMEOUT"
	// CodeAuthenticationFailed: no access token for the partner.
	CodeAuthenticationFailed Code = "AUTHENTICATION_FAILED"
	// CodeBookingRolledBack: the booking was made but could not be
	// fulfilled, and was deleted again.
	CodeBookingRolledBack Code = "BOOKING_ROLLED_BACK"
	// CodeTicketNotReady: the booking is confirmed but the partner has not
	// issued its documents yet.
	CodeTicketNotReady Code = "TICKET_NOT_READY"
	// CodeDocumentTooLarge: a document of the booking is larger than the
	// route takes; it is never truncated.
	CodeDocumentTooLarge Code = "DOCUMENT_TOO_LARGE"
)

// Codes lists every NegativeReply code.
var Codes = []Code{
	CodeInvalidMessage, CodeUnsupportedMessage, CodeExchangeNotSupported, CodeExchangeNotPossible,
	CodeNoAvailability, CodeTrainNotFound, CodeOfferExpired,
	CodeBookingNotFound, CodeAlreadyCancelled, CodePartnerRejected,
	CodePartnerUnavailable, CodePartnerTimeout, CodeAuthenticationFailed,
	CodeBookingRolledBack, CodeTicketNotReady, CodeDocumentTooLarge,
}

// Known reports whether c is one of Codes.
func (c Code) Known() bool {
	for _, k := range Codes {
		if c == k {
			return true
		}
	}
	return false
}

// Retryable is the default Retryable of a NegativeReply with code c: true
// where the same request may succeed later unchanged.
func (c Code) Retryable() bool {
	switch c {
	case CodePartnerUnavailable, CodePartnerTimeout, CodeBookingRolledBack, CodeTicketNotReady:
		return true
	}
	return false
}

// HTTPStatus is the HTTP status of a NegativeReply with code c: 400
// invalid, 422 valid but unsupported, 404/409 business refusals
// (TICKET_NOT_READY among them: the booking's state, not a failure), 502
// partner failures (DOCUMENT_TOO_LARGE among them: the partner's document
// cannot be carried), 504 partner timeout. Body-size and content-type failures have their own statuses: see Error.HTTPStatus.
func (c Code) HTTPStatus() int {
	switch c {
	case CodeInvalidMessage:
		return http.StatusBadRequest
	case CodeUnsupportedMessage, CodeExchangeNotSupported:
		return http.StatusUnprocessableEntity
	case CodeTrainNotFound, CodeBookingNotFound:
		return http.StatusNotFound
	case CodeNoAvailability, CodeAlreadyCancelled, CodeOfferExpired, CodeExchangeNotPossible, CodeTicketNotReady:
		return http.StatusConflict
	case CodePartnerTimeout:
		return http.StatusGatewayTimeout
	}
	return http.StatusBadGateway
}

// Sentinel causes an *Error may wrap, for errors.Is.
var (
	// ErrTooLarge: the body is longer than MaxBodyBytes (HTTP 413).
	ErrTooLarge = errors.New("legacy message too large")
	// ErrMediaType: the Content-Type is not one of the legacy forms (HTTP 415).
	ErrMediaType = errors.New("unsupported legacy media type")
)

// Error is a legacy message that cannot be taken: it carries what the
// NegativeReply needs.
type Error struct {
	// Code is the NegativeReply code: CodeInvalidMessage or
	// CodeUnsupportedMessage.
	Code Code
	// Field is the offending item in the message's own form: an XPath-like
	// path relative to the root for XML ("Journey/TrainNumber",
	// "PlaceRequest/Tariff[2]/@count", "@messageId"), a dotted path for JSON
	// ("journey.trainNumber", "placeRequest.tariffs[1].count"); "" for the
	// message as a whole.
	Field string
	// Rule is the rule broken, as a phrase ("must be 1..5 letters or digits").
	Rule string
	// MessageID is the request's messageId when it could be read and is
	// valid, for the reply's correlationId; "" otherwise.
	MessageID string
	// Namespaced: the XML request was in the Namespace.
	Namespaced bool
	// Kind is the message's kind when it was read and is one the decoder
	// takes (the refusal is about a field of it); "" otherwise.
	Kind Kind
	// Err is the underlying cause (ErrTooLarge, ErrMediaType, a syntax
	// error), or nil.
	Err error
}

// Error reads "Journey/TrainNumber: must be 1..5 letters or digits".
func (e *Error) Error() string {
	if e.Field == "" {
		return e.Rule
	}
	return e.Field + ": " + e.Rule
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// HTTPStatus is the status to answer e with: 413 for ErrTooLarge, 415 for
// ErrMediaType, otherwise Code.HTTPStatus().
func (e *Error) HTTPStatus() int {
	switch {
	case errors.Is(e.Err, ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(e.Err, ErrMediaType):
		return http.StatusUnsupportedMediaType
	}
	return e.Code.HTTPStatus()
}

// NegativeReply returns the reply to the request e refused, made at now.
func (e *Error) NegativeReply(now time.Time) *NegativeReply {
	h := ReplyHeader{CorrelationID: e.MessageID, SentAt: now, Namespaced: e.Namespaced}
	return NewNegativeReply(h, e.Code, e.Error())
}
