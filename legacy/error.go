package legacy

import (
	"errors"
	"net/http"
	"time"
)

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
