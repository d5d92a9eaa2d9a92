package osdmlegacy

import (
	"context"
	"errors"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// Store kinds of the booking side (see storeKey). Everything a booking is lives
// in the store, never in process memory, so that any instance sharing the
// store (and this one after a restart) carries on where another stopped.
const (
	// kindBooking holds a bookingRecord under its booking id.
	kindBooking = "booking"
	// kindHold marks a booking that may hold places at the legacy system
	// without being fulfilled: the sweeper's work list (value: workMark;
	// intent.go).
	kindHold = "hold"
	// kindIntent marks a legacy message that may have left without its
	// result being recorded: settlement's work list (key: the messageId).
	kindIntent = "intent"
	// kindIdempotency holds an idempotencyRecord under the key's hash.
	kindIdempotency = "idempotency"
	// kindOfferBooked claims an offer for the one booking that books it.
	kindOfferBooked = "offer-booked"
)

// bookingIDPrefix starts every booking id.
const bookingIDPrefix = "bk-"

// bookingState is where a booking is in its lifecycle. Two of them are
// intents: a legacy message may have left and its result is not recorded.
type bookingState string

// The booking states.
const (
	// stateBooking: the BookingRequest is recorded and may have left; its
	// result is not recorded yet (an intent).
	stateBooking bookingState = "BOOKING"
	// statePrebooked: the legacy system holds the places until HoldUntil.
	statePrebooked bookingState = "PREBOOKED"
	// stateFulfilled: confirmed; the places are the passengers'.
	stateFulfilled bookingState = "FULFILLED"
	// stateCancelling: a CancelRequest is recorded and may have left; its
	// result is not recorded yet (an intent). Pending.Revert is the state
	// it came from.
	stateCancelling bookingState = "CANCELLING"
	// stateUpdating: a PassengerDataRequest is recorded and may have left;
	// its result is not recorded yet (an intent). Pending.Revert is the
	// state it came from and goes back to.
	stateUpdating bookingState = "UPDATING"
	// stateFailed: the legacy system refused the BookingRequest; nothing
	// is held. Answered as not found after the refusal was told.
	stateFailed bookingState = "FAILED"
	// stateCancelled: deleted before fulfilment; nothing is held.
	stateCancelled bookingState = "CANCELLED"
	// stateReleased: not fulfilled within hold and released; nothing is held.
	stateReleased bookingState = "RELEASED"
	// stateRefunded: refunded after fulfilment; nothing is held.
	stateRefunded bookingState = "REFUNDED"
)

// holdsPlaces reports whether the legacy system holds (or may hold) places
// for a booking in state s.
func (s bookingState) holdsPlaces() bool {
	switch s {
	case stateBooking, statePrebooked, stateFulfilled, stateCancelling, stateUpdating, stateExchanging:
		return true
	}
	return false
}

// The steps of a booking that send a legacy message. A messageId is the
// booking id, the step and, for a cancel, its attempt number, so a resend
// of the same step is de-duplicated by the legacy system and a new attempt
// after a refusal is a new message.
const (
	stepBook       = "book"
	stepCancel     = "cancel"
	stepPassengers = "pax"
)

// Why a booking is cancelled.
const (
	cancelDelete  = "delete"  // DELETE /bookings/{id} before fulfilment
	cancelRelease = "release" // hold expired (the sweeper)
	cancelRefund  = "refund"  // PATCH refund-offers/{rid} CONFIRMED
	// cancelRollback undoes a leg of a journey whose booking failed,
	// with the technical reason code: no fee.
	cancelRollback = "rollback"
	// cancelReplaced gives back a leg of a journey that an exchange
	// replaced, once the new legs are confirmed.
	cancelReplaced = "replaced"
)

// bookingRecord is one booking as the store keeps it: what the OSDM
// answers are built from, what the legacy system was told and answered,
// and the intent of a legacy message under way.
type bookingRecord struct {
	// ID is the OSDM booking id.
	ID string `json:"id"`
	// Partner is the façade's partner label.
	Partner string `json:"partner"`
	// Client is the client (the access token's subject) whose call made
	// the booking, anonymousClient when no client was known. Only its
	// calls see the booking and what hangs off it.
	Client string `json:"client,omitempty"`
	// State is where the booking is.
	State bookingState `json:"state"`
	// CreatedOn is when the BookingRequest was recorded.
	CreatedOn time.Time `json:"createdOn"`
	// HoldUntil is CreatedOn + hold: the booking's confirmationTimeLimit;
	// past it an unfulfilled booking is released.
	HoldUntil time.Time `json:"holdUntil"`
	// ExternalRef echoes the BookingRequest's externalRef.
	ExternalRef string `json:"externalRef,omitempty"`
	// Offer is the offer booked, as the search stored it.
	Offer offerRecord `json:"offer"`
	// Passengers are the booking's passengers, with what the booking
	// request and later PATCHes said of them (names, date of birth,
	// contact). The legacy system got the names the BookingRequest had.
	Passengers []passengerRecord `json:"passengers"`
	// Legacy is what the BookingReply said; nil before it.
	Legacy *legacyBooking `json:"legacy,omitempty"`
	// Fulfillment is set once fulfilled: the travel document of the
	// journey booked now.
	Fulfillment *fulfillmentRecord `json:"fulfillment,omitempty"`
	// Exchanged are the fulfilments confirmed exchanges replaced, oldest
	// first: each reads EXCHANGED (void).
	Exchanged []fulfillmentRecord `json:"exchanged,omitempty"`
	// RefundOffers are the refund offers made, oldest first.
	RefundOffers []refundOfferRecord `json:"refundOffers,omitempty"`
	// ExchangeQuotes are the exchange offers made, oldest first.
	ExchangeQuotes []exchangeQuote `json:"exchangeQuotes,omitempty"`
	// Exchange is the latest exchange operation; nil when none was asked.
	Exchange *exchangeRecord `json:"exchange,omitempty"`
	// Pending is the legacy message recorded before it left and not yet
	// answered (the intent); nil when none.
	Pending *pendingMessage `json:"pending,omitempty"`
	// CancelAttempts counts the CancelRequests recorded, for their messageIds.
	CancelAttempts int `json:"cancelAttempts,omitempty"`
	// PassengerAttempts counts the PassengerDataRequests recorded.
	PassengerAttempts int `json:"passengerAttempts,omitempty"`
	// Cancel is what the CancelReply (or the refusal that showed nothing
	// was held) said; nil before.
	Cancel *cancelOutcome `json:"cancel,omitempty"`
	// Failure is the legacy refusal of the BookingRequest (stateFailed).
	Failure *legacyRefusal `json:"failure,omitempty"`
	// LastRefusal is the latest refusal of a CancelRequest that left the
	// booking as it was (for logs and the answer that met it).
	LastRefusal *legacyRefusal `json:"lastRefusal,omitempty"`
	// JourneyID is, for the booking of one train of a journey with
	// changes, the journey's booking id (journeyRecord), "" otherwise. Such
	// a leg booking is reached only through its journey.
	JourneyID string `json:"journeyId,omitempty"`
}

// passengerRecord is a booking's passenger.
type passengerRecord struct {
	// ID is the OSDM passenger id within the booking ("p1".."p9").
	ID string `json:"id"`
	// ExternalRef is the client's reference, from the offer search.
	ExternalRef string `json:"externalRef"`
	// Type and Age are those the tariff was chosen by; they cannot change.
	Type osdm.PassengerType `json:"type"`
	Age  *int               `json:"age,omitempty"`
	// DateOfBirth as YYYY-MM-DD, "" when not given.
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	// Detail holds the name and contact, nil when not given.
	Detail *osdm.PersonDetail `json:"detail,omitempty"`
	// NameSent is the name the legacy system holds for this passenger
	// ("" when none): the BookingRequest's, then a PassengerDataRequest's.
	NameSent string `json:"nameSent,omitempty"`
	// RefundedBy is the confirmed refund offer that refunded the
	// passenger's place, "" while it is booked.
	RefundedBy string `json:"refundedBy,omitempty"`
}

// legacyBooking is what the legacy BookingReply said.
type legacyBooking struct {
	// BookingRef is the legacy system's booking reference; a CancelRequest
	// gives it back.
	BookingRef string `json:"bookingRef"`
	// ReservationReference is the code shown to travellers.
	ReservationReference string `json:"reservationReference,omitempty"`
	// Status is the reply's status (CONFIRMED or FULFILLED).
	Status string `json:"status,omitempty"`
	// Price is the price the legacy system booked at, as OSDM.
	Price osdm.Price `json:"price"`
	// Places are the coach and place numbers, in the legacy order.
	Places []legacy.Place `json:"places,omitempty"`
	// PlacePrices are the places' prices, in Places' order, when the
	// BookingReply gave them (one per place); a partial refund is quoted
	// from them.
	PlacePrices []osdm.Price `json:"placePrices,omitempty"`
	// TicketControlNumber is the control number, "" when none was given.
	TicketControlNumber string `json:"ticketControlNumber,omitempty"`
	// RepliedAt is when the reply was recorded.
	RepliedAt time.Time `json:"repliedAt"`
}

// fulfillmentRecord is the fulfilment of a booking (there is one).
type fulfillmentRecord struct {
	// ID is the fulfilment id (fulfillmentIDPrefix and the booking's).
	ID string `json:"id"`
	// CreatedOn is when the booking was fulfilled.
	CreatedOn time.Time `json:"createdOn"`
	// ControlNumber is the BookingReply's ticket control number (its
	// reservation reference when it gave none).
	ControlNumber string `json:"controlNumber,omitempty"`
	// Summary names the journey of an exchanged fulfilment ("" for the
	// current one, whose journey is the booking's).
	Summary string `json:"summary,omitempty"`
}

// refundOfferRecord is a refund offer made for a booking.
type refundOfferRecord struct {
	// ID is the refund offer id (refundOfferIDPrefix, random).
	ID string `json:"id"`
	// CreatedOn is when it was quoted; ValidUntil when it can no longer
	// be confirmed (offer_ttl later).
	CreatedOn  time.Time `json:"createdOn"`
	ValidUntil time.Time `json:"validUntil"`
	// Status is PROPOSED, then CONFIRMED.
	Status osdm.RefundStatus `json:"status"`
	// PassengerIDs are the passengers whose places it refunds: those the
	// refundSpecifications named, or every passenger not refunded before.
	PassengerIDs []string `json:"passengerIds,omitempty"`
	// OverruleCode is the code the request gave, "" for an ordinary refund.
	OverruleCode osdm.OverruleCode `json:"overruleCode,omitempty"`
	// ReasonCode is the legacy reason code the overrule code maps to.
	ReasonCode *int `json:"reasonCode,omitempty"`
	// Fee and Refundable are the quote, replaced by the CancelReply's
	// amounts once confirmed.
	Fee        osdm.Price `json:"fee"`
	Refundable osdm.Price `json:"refundable"`
	// ConfirmedOn is when the CancelReply was recorded.
	ConfirmedOn *time.Time `json:"confirmedOn,omitempty"`
}

// pendingMessage is the intent of a legacy message: recorded before the
// message leaves, cleared when its result is recorded. Message is the
// exact request (legacy JSON), so a resend is the same message.
type pendingMessage struct {
	// Step is stepBook, stepCancel, stepPassengers or stepExchangeBook;
	// MessageID the message's messageId.
	Step      string `json:"step"`
	MessageID string `json:"messageId"`
	// Message is the request in legacy JSON, resent as it is.
	Message []byte `json:"message"`
	// SentAt is when it was recorded, just before it first left.
	SentAt time.Time `json:"sentAt"`
	// LeaseUntil is when settlement may resend: until then the call that
	// sent it may still be waiting for the answer.
	LeaseUntil time.Time `json:"leaseUntil"`
	// Cancel is why a CancelRequest was sent (cancelDelete...), with the
	// refund offer it confirms and the state to go back to if refused.
	Cancel        string       `json:"cancel,omitempty"`
	RefundOfferID string       `json:"refundOfferId,omitempty"`
	Revert        bookingState `json:"revert,omitempty"`
	// Passenger is the passenger as a PassengerDataRequest changes it,
	// stored once the legacy system has taken the change.
	Passenger *passengerRecord `json:"passenger,omitempty"`
	// NamesSent are, for the PassengerDataRequest that follows a
	// fulfilment or an exchange (unsentData), the passengers it names by
	// id and the name each gets as NameSent once the legacy system has
	// taken it.
	NamesSent map[string]string `json:"namesSent,omitempty"`
}

// cancelOutcome is how a booking stopped holding places.
type cancelOutcome struct {
	// Why is cancelDelete, cancelRelease or cancelRefund; At when the
	// reply was recorded.
	Why string    `json:"why"`
	At  time.Time `json:"at"`
	// Status is the CancelReply's status, or the NegativeReply code
	// (ALREADY_CANCELLED, BOOKING_NOT_FOUND) that showed nothing was held.
	Status string `json:"status"`
	// RefundAmount and Fee are the CancelReply's, when it gave them.
	RefundAmount *osdm.Price `json:"refundAmount,omitempty"`
	Fee          *osdm.Price `json:"fee,omitempty"`
}

// legacyRefusal is a NegativeReply as recorded (its text is kept for logs,
// never answered).
type legacyRefusal struct {
	// Code, Text and Retryable are the NegativeReply's (the code
	// REPLACEMENT_PROPOSAL stands for a ReplacementProposal).
	Code      legacy.Code `json:"code"`
	Text      string      `json:"text,omitempty"`
	Retryable bool        `json:"retryable,omitempty"`
	// At is when it was recorded.
	At time.Time `json:"at"`
}

// bookedPrice is the price rec was booked at: the legacy system's, once
// its BookingReply gave one, else the offer's.
func (rec *bookingRecord) bookedPrice() osdm.Price {
	if rec.Legacy != nil && rec.Legacy.Price.Currency != "" {
		return rec.Legacy.Price
	}
	return rec.Offer.OSDMPrice
}

// errBookingMissing is a booking id that names no record.
var errBookingMissing = errors.New("no such booking")

// bookingKey is the store key of booking id.
func (b *bookings) bookingKey(id string) string { return storeKey(b.cfg.Partner, kindBooking, id) }

// loadBooking returns booking id and its stored bytes (for a
// compare-and-set), or errBookingMissing, also when the booking is another
// client's than the call's in ctx (see visibleTo): every read and change of
// a booking goes through here, so another client's booking is, for a call,
// an id that does not exist.
func (b *bookings) loadBooking(ctx context.Context, id string) (*bookingRecord, []byte, error) {
	if !validID(id, bookingIDPrefix) {
		return nil, nil, errBookingMissing
	}
	rec, raw, err := getRecord[bookingRecord](ctx, b.store, b.bookingKey(id), "booking", id, errBookingMissing)
	if err != nil {
		return nil, nil, err
	}
	if rec.ID != id || rec.Partner != b.cfg.Partner || !visibleTo(ctx, rec.Client) {
		return nil, nil, errBookingMissing
	}
	return rec, raw, nil
}

// updateBooking applies fn to booking id with compare-and-set, rereading
// and reapplying on a concurrent change. fn returns errNoChange to write
// nothing, or any other error to stop. It returns the record as stored.
func (b *bookings) updateBooking(ctx context.Context, id string, fn func(*bookingRecord) error) (*bookingRecord, error) {
	load := func() (*bookingRecord, []byte, error) { return b.loadBooking(ctx, id) }
	return updateRecord(ctx, b.store, b.bookingKey(id), load, b.retention, fn)
}

// putNewBooking stores rec if no booking has its id, and reports whether
// it did.
func (b *bookings) putNewBooking(ctx context.Context, rec *bookingRecord) (bool, error) {
	return putNewRecord(ctx, b.store, b.bookingKey(rec.ID), rec, b.retention(rec))
}

// bookingRetention is how long a booking is kept after its train arrived
// (after travel, refunds and complaints still read it).
const bookingRetention = 90 * 24 * time.Hour

// retention is the store ttl of a booking record: none while an intent is
// open (it must be settled first), else until bookingRetention after the
// train's arrival (departure, when the arrival is unknown; from now when
// neither is known), at least an hour.
func (b *bookings) retention(rec *bookingRecord) time.Duration {
	if rec.Pending != nil {
		return 0
	}
	end := rec.Offer.Arrival
	if end.IsZero() {
		end = rec.Offer.Departure
	}
	if end.IsZero() {
		return bookingRetention
	}
	return max(end.Add(bookingRetention).Sub(b.now()), time.Hour)
}
