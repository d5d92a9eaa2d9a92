package legacy

import (
	"errors"
	"net/http"
	"time"
)

// Reply is a legacy reply: *AvailabilityReply, *BookingReply, *CancelReply,
// *SynchroReply, *PassengerDataReply, *TicketReply, *ReplacementProposal
// or *NegativeReply.
type Reply interface {
	Message
	// ReplyHeader returns the items common to every reply.
	ReplyHeader() ReplyHeader
}

// ReplyHeader holds the items common to every reply.
type ReplyHeader struct {
	// CorrelationID is the messageId of the request answered; "" (written
	// as no correlationId at all) only when that messageId could not be read.
	CorrelationID string
	// SentAt is when the reply was made; zero writes no sentAt.
	SentAt time.Time
	// Namespaced writes the XML reply in the Namespace. ReplyTo copies it
	// from the request so a reply mirrors the request's form.
	Namespaced bool
}

// ReplyTo returns the header of a reply to req made at now.
func ReplyTo(req Request, now time.Time) ReplyHeader {
	h := req.RequestHeader()
	return ReplyHeader{CorrelationID: h.MessageID, SentAt: now, Namespaced: h.Namespaced}
}

// Price is an amount of money.
type Price struct {
	// Amount is a non-negative decimal string such as "49.90".
	Amount string
	// Currency is the ISO 4217 code, e.g. "EUR".
	Currency string
}

// ReplyJourney is the Journey of an AvailabilityReply: the request's journey
// with the times of the partner's trip.
type ReplyJourney struct {
	TrainNumber   string
	DepartureDate string
	// DepartureTime is HH:MM local time at the departure station.
	DepartureTime string
	// ArrivalTime is HH:MM local time at the arrival station.
	ArrivalTime string
	From        string
	To          string
	Carrier     string
}

// EchoJourney returns j as the journey of a reply, with the given times.
func EchoJourney(j Journey, departureTime, arrivalTime string) ReplyJourney {
	return ReplyJourney{
		TrainNumber: j.TrainNumber, DepartureDate: j.DepartureDate,
		DepartureTime: departureTime, ArrivalTime: arrivalTime,
		From: j.From, To: j.To, Carrier: j.Carrier,
	}
}

// AvailabilityReply answers an AvailabilityRequest or an informationOnly
// BookingRequest.
type AvailabilityReply struct {
	Header  ReplyHeader
	Journey ReplyJourney
	// Offers lists what can be booked; none when nothing is available.
	Offers []Offer
}

// Offer is one bookable offer.
type Offer struct {
	// OfferRef is what a BookingRequest gives back to book this offer.
	OfferRef    string
	TravelClass int
	ServiceCode int
	// ServiceLevel is the 918-1 service level code; "" when unknown.
	ServiceLevel string
	Price        *Price
	// AvailablePlaces is the number of places left; nil when unknown.
	AvailablePlaces *int
	// ValidUntil is when the offer expires; zero when unknown.
	ValidUntil time.Time
	// Exchange is set on an exchange offer (an AvailabilityRequest with
	// ExchangeOf): what the exchange costs. Price is then the new
	// journey's price.
	Exchange *Exchange
}

// Exchange says what an exchange costs: the fee and either what the
// customer pays on top or what comes back.
type Exchange struct {
	// Fee is the exchange fee (may be zero).
	Fee *Price
	// AmountToPay is what the customer pays on top (may be zero); nil
	// when RefundAmount is set.
	AmountToPay *Price
	// RefundAmount is what comes back when the new journey is cheaper;
	// nil when AmountToPay is set.
	RefundAmount *Price
}

// Booking statuses.
const (
	StatusConfirmed = "CONFIRMED"
	StatusFulfilled = "FULFILLED"
)

// BookingReply answers a BookingRequest that booked.
type BookingReply struct {
	Header ReplyHeader
	// BookingRef is the OSDM booking id; a CancelRequest gives it back.
	BookingRef string
	// ReservationReference is the partner's booking code or booking part code.
	ReservationReference string
	// Status is StatusConfirmed or StatusFulfilled.
	Status string
	Price  *Price
	// Places are the places reserved.
	Places []Place
	// PlaceAmounts, when given, are each place's price (a decimal amount in
	// Price's currency), in Places' order: what cancelling that place alone
	// refunds before the fee. Nil when the system gives none.
	PlaceAmounts []string
	// TicketControlNumber is the partner's ticket control number; "" when none.
	TicketControlNumber string
	// Exchange is set when the booking was an exchange: what it cost.
	Exchange *Exchange
	// ExchangeOf is the BookingRef of the booking exchanged; "" when the
	// booking was no exchange. An OSDM booking keeps its id through an
	// exchange, so it is often BookingRef itself.
	ExchangeOf string
}

// Place is one reserved place.
type Place struct {
	Coach  string
	Number string
}

// Cancel statuses.
const (
	StatusRefunded          = "REFUNDED"
	StatusCancelled         = "CANCELLED"
	StatusPartiallyRefunded = "PARTIALLY_REFUNDED"
)

// CancelReply answers a CancelRequest.
type CancelReply struct {
	Header     ReplyHeader
	BookingRef string
	// Status is StatusRefunded, StatusCancelled or StatusPartiallyRefunded
	// (some places cancelled, the others still booked).
	Status string
	// RefundAmount and Fee are set when refunded; nil otherwise.
	RefundAmount *Price
	Fee          *Price
	// Places are the places cancelled; none when not told (a whole
	// cancellation may leave them out).
	Places []Place
}

// Synchronisation states.
const (
	// StateUnknown: the message was never received, or nothing came of it.
	StateUnknown = "UNKNOWN"
	// StateInProgress: the message is being carried out.
	StateInProgress = "IN_PROGRESS"
	// StateDone: the message was carried out; Reply is its reply.
	StateDone = "DONE"
	// StateRolledBack: the booking the message made was undone.
	StateRolledBack = "ROLLED_BACK"
)

// SynchroReply answers a SynchroRequest.
type SynchroReply struct {
	Header ReplyHeader
	// OriginalMessageID is the SynchroRequest's OriginalMessageID.
	OriginalMessageID string
	// State is StateUnknown, StateInProgress, StateDone or StateRolledBack.
	State string
	// RefundAmount and Fee are set when a rollback refunded; nil otherwise.
	RefundAmount *Price
	Fee          *Price
	// Reply is the original message's reply as it was sent; nil when there
	// is none. Never a *SynchroReply.
	Reply Reply
}

// PassengerDataReply answers a PassengerDataRequest: every passenger of the
// booking as now stored.
type PassengerDataReply struct {
	Header     ReplyHeader
	BookingRef string
	// Passengers are every passenger of the booking, in booking order.
	Passengers []PassengerData
}

// ReplacementProposal tells the legacy system to ask other reservation
// systems (OSDM ALTERNATIVE_SYSTEM_PROPOSAL).
type ReplacementProposal struct {
	Header       ReplyHeader
	Alternatives []Alternative
}

// Alternative is one reservation system to ask instead.
type Alternative struct {
	// ReservationSystem is the 918-1 reservation system code; 0 when unknown.
	ReservationSystem int
	// Operator is the 4-digit RICS code of the system's operator.
	Operator string
	// TrainNumber is the train the proposal is for; "" when not scoped.
	TrainNumber string
	// TravelClass is the class the proposal is for; 0 when not scoped.
	TravelClass int
	// Priority orders the alternatives: lower is tried first.
	Priority int
}

// NegativeReply reports a failure.
type NegativeReply struct {
	Header ReplyHeader
	Code   Code
	// Text is a sentence a person can act on.
	Text string
	// Retryable says whether sending the same request again may succeed.
	Retryable bool
	// BookingRef names a booking that exists; "" when none.
	BookingRef string
	// PartnerProblem is the OSDM problem code behind the failure; "" when none.
	PartnerProblem string
}

// NewNegativeReply returns a NegativeReply with code's default Retryable.
func NewNegativeReply(h ReplyHeader, code Code, text string) *NegativeReply {
	return &NegativeReply{Header: h, Code: code, Text: text, Retryable: code.Retryable()}
}

// Kind implements Message.
func (*AvailabilityReply) Kind() Kind { return KindAvailabilityReply }

// ReplyHeader implements Reply.
func (r *AvailabilityReply) ReplyHeader() ReplyHeader { return r.Header }

// header implements headedReply.
func (r *AvailabilityReply) header() *ReplyHeader { return &r.Header }

// Kind implements Message.
func (*BookingReply) Kind() Kind { return KindBookingReply }

// ReplyHeader implements Reply.
func (r *BookingReply) ReplyHeader() ReplyHeader { return r.Header }

// header implements headedReply.
func (r *BookingReply) header() *ReplyHeader { return &r.Header }

// Kind implements Message.
func (*CancelReply) Kind() Kind { return KindCancelReply }

// ReplyHeader implements Reply.
func (r *CancelReply) ReplyHeader() ReplyHeader { return r.Header }

// header implements headedReply.
func (r *CancelReply) header() *ReplyHeader { return &r.Header }

// Kind implements Message.
func (*SynchroReply) Kind() Kind { return KindSynchroReply }

// ReplyHeader implements Reply.
func (r *SynchroReply) ReplyHeader() ReplyHeader { return r.Header }

// Kind implements Message.
func (*PassengerDataReply) Kind() Kind { return KindPassengerDataReply }

// ReplyHeader implements Reply.
func (r *PassengerDataReply) ReplyHeader() ReplyHeader { return r.Header }

// header implements headedReply.
func (r *PassengerDataReply) header() *ReplyHeader { return &r.Header }

// Kind implements Message.
func (*ReplacementProposal) Kind() Kind { return KindReplacementProposal }

// ReplyHeader implements Reply.
func (r *ReplacementProposal) ReplyHeader() ReplyHeader { return r.Header }

// header implements headedReply.
func (r *ReplacementProposal) header() *ReplyHeader { return &r.Header }

// Kind implements Message.
func (*NegativeReply) Kind() Kind { return KindNegativeReply }

// ReplyHeader implements Reply.
func (r *NegativeReply) ReplyHeader() ReplyHeader { return r.Header }

// header implements headedReply.
func (r *NegativeReply) header() *ReplyHeader { return &r.Header }

// Interface guards.
var (
	_ Reply = (*AvailabilityReply)(nil)
	_ Reply = (*BookingReply)(nil)
	_ Reply = (*CancelReply)(nil)
	_ Reply = (*SynchroReply)(nil)
	_ Reply = (*PassengerDataReply)(nil)
	_ Reply = (*ReplacementProposal)(nil)
	_ Reply = (*NegativeReply)(nil)
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
