// Package legacy is the Hermes/HOSA (UIC IRS 90918-1) message model the
// converter accepts, with its XML and JSON codecs and strict validation, as
// fixed by legacy-protocol.md. It has no Caddy dependency.
//
// Decode turns a request body into one of the request types
// (*AvailabilityRequest, *BookingRequest, *CancelRequest, *SynchroRequest,
// *PassengerDataRequest, *TicketRequest); Encode writes any message,
// normally a reply (*AvailabilityReply, *BookingReply, *CancelReply,
// *SynchroReply, *PassengerDataReply, *TicketReply, *ReplacementProposal,
// *NegativeReply); DecodeReply
// reads a reply back, for a legacy-side client. Every decoding failure is an *Error
// that carries the NegativeReply code, the field and the rule broken, and the
// request's messageId when it could be read.
package legacy

import "time"

// Kind is the kind of a legacy message: the XML root element name and the
// JSON "type" value.
type Kind string

// The message kinds of legacy-protocol.md.
const (
	KindAvailabilityRequest  Kind = "AvailabilityRequest"
	KindBookingRequest       Kind = "BookingRequest"
	KindCancelRequest        Kind = "CancelRequest"
	KindSynchroRequest       Kind = "SynchroRequest"
	KindPassengerDataRequest Kind = "PassengerDataRequest"
	KindTicketRequest        Kind = "TicketRequest"
	KindAvailabilityReply    Kind = "AvailabilityReply"
	KindBookingReply         Kind = "BookingReply"
	KindCancelReply          Kind = "CancelReply"
	KindSynchroReply         Kind = "SynchroReply"
	KindPassengerDataReply   Kind = "PassengerDataReply"
	KindTicketReply          Kind = "TicketReply"
	KindReplacementProposal  Kind = "ReplacementProposal"
	KindNegativeReply        Kind = "NegativeReply"
)

// Namespace is the only XML namespace a message may be in (no namespace is
// accepted too).
const Namespace = "urn:uic:90918-1:legacy:1"

// Message is any legacy message, request or reply; Encode takes one.
type Message interface {
	// Kind is the XML root element name and JSON "type" of the message.
	Kind() Kind
}

// Request is a decoded legacy request: *AvailabilityRequest,
// *BookingRequest, *CancelRequest, *SynchroRequest, *PassengerDataRequest
// or *TicketRequest.
type Request interface {
	Message
	// MessageID is the request's messageId, which its reply carries back
	// as correlationId.
	MessageID() string
	// RequestHeader returns the items common to every request.
	RequestHeader() Header
}

// Header holds the items common to every request.
type Header struct {
	// MessageID identifies the message: 1..64 of [A-Za-z0-9._:-].
	MessageID string
	// SentAt is when the sender sent the message; zero when absent.
	SentAt time.Time
	// Sender is the sending 918-1 reservation system code; 0 when absent.
	Sender int
	// Namespaced records that the XML message was in the Namespace; a reply
	// built with ReplyTo is then written in it too. Ignored for JSON.
	Namespaced bool
}

// Journey names the train run a request is about.
type Journey struct {
	// TrainNumber is the train number, 1..5 letters or digits.
	TrainNumber string
	// DepartureDate is the departure day, YYYY-MM-DD.
	DepartureDate string
	// DepartureTime is HH:MM local time at the departure station; "" when absent.
	DepartureTime string
	// From is the departure station's 7-digit UIC code (a urn:uic:stn: form
	// is normalised to the 7 digits).
	From string
	// To is the arrival station's 7-digit UIC code.
	To string
	// Carrier is the 4-digit RICS company code; "" when absent.
	Carrier string
}

// Travel classes (918-1).
const (
	FirstClass  = 1
	SecondClass = 2
)

// Service codes (918-1): the kind of place asked for.
const (
	ServiceSeat      = 1
	ServiceCouchette = 2
	ServiceBerth     = 3
)

// ClassName names a travel class in texts: "1st class" for FirstClass,
// "2nd class" for any other.
func ClassName(class int) string {
	if class == FirstClass {
		return "1st class"
	}
	return "2nd class"
}

// ServiceName names the place a service code books, in texts and codes:
// "couchette", "berth", or "seat" for any other code.
func ServiceName(code int) string {
	switch code {
	case ServiceCouchette:
		return "couchette"
	case ServiceBerth:
		return "berth"
	}
	return "seat"
}

// PlaceRequest says what places are asked for.
type PlaceRequest struct {
	// TravelClass is FirstClass or SecondClass.
	TravelClass int
	// ServiceCode is ServiceSeat, ServiceCouchette or ServiceBerth.
	ServiceCode int
	// ServiceLevel is the 918-1 service level code (element 308), e.g. "AV";
	// "" when absent.
	ServiceLevel string
	// Tariffs lists the places asked for per tariff; at least one.
	Tariffs []Tariff
}

// Places is the number of places asked for: the sum of the tariff counts.
func (p PlaceRequest) Places() int {
	n := 0
	for _, t := range p.Tariffs {
		n += t.Count
	}
	return n
}

// Tariff asks for Count places at the 918-1 tariff Code (element 42). The
// route's tariff table, not this package, decides whether Code is known.
type Tariff struct {
	// Code is the 918-1 tariff code, 0..9999.
	Code int
	// Count is the number of places at this tariff, 1..9.
	Count int
}

// AvailabilityRequest asks which places a train offers, or with
// ExchangeOf what an exchange of a booking to them would cost.
type AvailabilityRequest struct {
	Header  Header
	Journey Journey
	Places  PlaceRequest
	// ExchangeOf is the BookingRef of a fulfilled booking to exchange to
	// this journey: the reply's offers are exchange offers, each with an
	// Exchange element. "" when absent.
	ExchangeOf string
}

// BookingRequest books places, or with InformationOnly only asks for offers.
type BookingRequest struct {
	Header Header
	// InformationOnly asks for offers only: nothing is booked and the reply
	// is an AvailabilityReply.
	InformationOnly bool
	Journey         Journey
	Places          PlaceRequest
	// OfferRef is an OfferRef of an earlier AvailabilityReply; "" lets the
	// converter search and pick.
	OfferRef string
	// Passengers names the travellers; at most Places.Places() of them.
	Passengers []Passenger
	// ExchangeOf is the BookingRef of a fulfilled booking that this one
	// replaces (an exchange of every passenger to this journey); "" when
	// absent. OfferRef is then that of an exchange offer.
	ExchangeOf string
}

// Passenger names one traveller.
type Passenger struct {
	// FirstName is optional ("" when absent).
	FirstName string
	// LastName is required.
	LastName string
	// DateOfBirth is YYYY-MM-DD; "" when absent.
	DateOfBirth string
}

// CancelRequest cancels a booking.
type CancelRequest struct {
	Header Header
	// BookingRef is the BookingRef of a BookingReply.
	BookingRef string
	// ReasonCode is the cancellation reason code, nil when absent: with one
	// the converter cancels with the mapped OSDM overrule code, without one
	// it refunds under the tariff's ordinary conditions.
	ReasonCode *int
	// Places, when given, are the only places cancelled (a partial
	// cancellation); none cancels the whole booking. At most 9, each once.
	Places []Place
}

// SynchroRequest asks what became of an earlier message, and with Rollback
// undoes the booking it made.
type SynchroRequest struct {
	Header Header
	// OriginalMessageID is the messageId of an earlier BookingRequest,
	// CancelRequest or PassengerDataRequest.
	OriginalMessageID string
	// Rollback asks to undo the booking that message made: released when
	// not yet confirmed, else refunded without a fee.
	Rollback bool
}

// PassengerDataRequest sets or corrects the personal data of passengers of
// a booking.
type PassengerDataRequest struct {
	Header Header
	// BookingRef is the BookingRef of a BookingReply.
	BookingRef string
	// Passengers are the passengers to change, each named by its Index;
	// at least one, each index once.
	Passengers []PassengerData
}

// PassengerData is one passenger's personal data, by position in the
// booking.
type PassengerData struct {
	// Index is the passenger's 1-based position in booking order, 1..9.
	Index int
	// FirstName is "" when absent (unchanged in a request).
	FirstName string
	// LastName is "" when absent (unchanged in a request).
	LastName string
	// DateOfBirth is YYYY-MM-DD; "" when absent (unchanged in a request).
	DateOfBirth string
}

// Kind implements Message.
func (*AvailabilityRequest) Kind() Kind { return KindAvailabilityRequest }

// MessageID implements Request.
func (r *AvailabilityRequest) MessageID() string { return r.Header.MessageID }

// RequestHeader implements Request.
func (r *AvailabilityRequest) RequestHeader() Header { return r.Header }

// Kind implements Message.
func (*BookingRequest) Kind() Kind { return KindBookingRequest }

// MessageID implements Request.
func (r *BookingRequest) MessageID() string { return r.Header.MessageID }

// RequestHeader implements Request.
func (r *BookingRequest) RequestHeader() Header { return r.Header }

// Kind implements Message.
func (*CancelRequest) Kind() Kind { return KindCancelRequest }

// MessageID implements Request.
func (r *CancelRequest) MessageID() string { return r.Header.MessageID }

// RequestHeader implements Request.
func (r *CancelRequest) RequestHeader() Header { return r.Header }

// Kind implements Message.
func (*SynchroRequest) Kind() Kind { return KindSynchroRequest }

// MessageID implements Request.
func (r *SynchroRequest) MessageID() string { return r.Header.MessageID }

// RequestHeader implements Request.
func (r *SynchroRequest) RequestHeader() Header { return r.Header }

// Kind implements Message.
func (*PassengerDataRequest) Kind() Kind { return KindPassengerDataRequest }

// MessageID implements Request.
func (r *PassengerDataRequest) MessageID() string { return r.Header.MessageID }

// RequestHeader implements Request.
func (r *PassengerDataRequest) RequestHeader() Header { return r.Header }

// Interface guards.
var (
	_ Request = (*AvailabilityRequest)(nil)
	_ Request = (*BookingRequest)(nil)
	_ Request = (*CancelRequest)(nil)
	_ Request = (*SynchroRequest)(nil)
	_ Request = (*PassengerDataRequest)(nil)
)
