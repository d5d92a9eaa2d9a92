package legacy

import "time"

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

// Kind implements Message.
func (*BookingReply) Kind() Kind { return KindBookingReply }

// ReplyHeader implements Reply.
func (r *BookingReply) ReplyHeader() ReplyHeader { return r.Header }

// Kind implements Message.
func (*CancelReply) Kind() Kind { return KindCancelReply }

// ReplyHeader implements Reply.
func (r *CancelReply) ReplyHeader() ReplyHeader { return r.Header }

// Kind implements Message.
func (*SynchroReply) Kind() Kind { return KindSynchroReply }

// ReplyHeader implements Reply.
func (r *SynchroReply) ReplyHeader() ReplyHeader { return r.Header }

// Kind implements Message.
func (*PassengerDataReply) Kind() Kind { return KindPassengerDataReply }

// ReplyHeader implements Reply.
func (r *PassengerDataReply) ReplyHeader() ReplyHeader { return r.Header }

// Kind implements Message.
func (*ReplacementProposal) Kind() Kind { return KindReplacementProposal }

// ReplyHeader implements Reply.
func (r *ReplacementProposal) ReplyHeader() ReplyHeader { return r.Header }

// Kind implements Message.
func (*NegativeReply) Kind() Kind { return KindNegativeReply }

// ReplyHeader implements Reply.
func (r *NegativeReply) ReplyHeader() ReplyHeader { return r.Header }

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
