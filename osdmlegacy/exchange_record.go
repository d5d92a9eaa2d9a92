package osdmlegacy

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// An exchange moves every passenger of a fulfilled booking to another
// journey. The new places are booked (a BookingRequest) and held while the
// exchange operation is PREBOOKED; only the fulfilment that confirms it
// cancels the old places (a CancelRequest), and the booking then shows the
// new journey. Deleting the operation, or its hold running out, cancels the
// new places and the old booking stands. At no moment is the booking
// without places, and once settled it holds one journey's.

// exchangeOperationIDPrefix starts every exchange operation id.
const exchangeOperationIDPrefix = "xo-"

// stepExchangeBook is the step of an exchange's BookingRequest (its
// messageId "<booking id>.xbook.<exchange number>").
const stepExchangeBook = "xbook"

// stateExchanging: a legacy message of an exchange (the BookingRequest of
// the new places, or a CancelRequest of the old or new ones) is recorded
// and may have left; its result is not recorded yet (an intent).
// Pending.Revert is FULFILLED.
const stateExchanging bookingState = "EXCHANGING"

// Why a CancelRequest of an exchange is sent.
const (
	// cancelExchange cancels the old places: the fulfilment confirms the
	// exchange.
	cancelExchange = "exchange"
	// cancelExchangeDrop cancels the new places: the operation was
	// deleted, or its hold ran out.
	cancelExchangeDrop = "exchange-drop"
)

// exchangeState is where an exchange operation is:
//   - BOOKING: the BookingRequest of the new places is under way;
//   - PREBOOKED: the new places are held until HoldUntil; the old booking
//     stands;
//   - CONFIRMED: the old places are cancelled; the booking is the new
//     journey;
//   - FAILED: the legacy system refused the new places; the old booking
//     stands;
//   - DROPPED: deleted, or released when its hold ran out; the new places
//     are free again, the old booking stands.
type exchangeState string

// The exchange states.
const (
	exchangeBooking   exchangeState = "BOOKING"
	exchangePrebooked exchangeState = "PREBOOKED"
	exchangeConfirmed exchangeState = "CONFIRMED"
	exchangeFailed    exchangeState = "FAILED"
	exchangeDropped   exchangeState = "DROPPED"
)

// maxExchangeQuotes bounds the exchange offers one booking keeps.
const maxExchangeQuotes = 16

// exchangeQuote is an exchange offer made for a booking.
type exchangeQuote struct {
	// OfferKey is the hash of the exchange offer's id (the sealed offer of
	// the new journey), by which an exchange operation finds it.
	OfferKey string `json:"offerKey"`
	// Fee, ExchangePrice and the difference (one of ToPay and Refundable)
	// are the quote.
	Fee           osdm.Price  `json:"fee"`
	ExchangePrice osdm.Price  `json:"exchangePrice"`
	ToPay         *osdm.Price `json:"toPay,omitempty"`
	Refundable    *osdm.Price `json:"refundable,omitempty"`
	// OverruleCode is the request's, which waived the fee.
	OverruleCode osdm.OverruleCode `json:"overruleCode,omitempty"`
	// CreatedOn and ValidUntil bound it (the offer's preBookableUntil).
	CreatedOn  time.Time `json:"createdOn"`
	ValidUntil time.Time `json:"validUntil"`
}

// exchangeRecord is the booking's exchange operation (the latest one).
type exchangeRecord struct {
	// ID is the exchange operation id; N its number in the booking.
	ID string `json:"id"`
	N  int    `json:"n"`
	// State is where it is.
	State exchangeState `json:"state"`
	// CreatedOn is when it was asked; HoldUntil when its new places are
	// released unless confirmed.
	CreatedOn time.Time `json:"createdOn"`
	HoldUntil time.Time `json:"holdUntil"`
	// OfferID is the exchange offer booked; Quote its terms.
	OfferID string        `json:"offerId"`
	Quote   exchangeQuote `json:"quote"`
	// Offer is the new journey.
	Offer offerRecord `json:"offer"`
	// Legacy is the BookingReply of the new places; nil before it.
	Legacy *legacyBooking `json:"legacy,omitempty"`
	// Old is the booking's journey before the exchange, kept once confirmed.
	Old *legacyBooking `json:"old,omitempty"`
	// Failure is the refusal of the new places (exchangeFailed).
	Failure *legacyRefusal `json:"failure,omitempty"`
	// ConfirmedOn is when the old places were cancelled.
	ConfirmedOn *time.Time `json:"confirmedOn,omitempty"`
	// Dropped says why the new places were cancelled: cancelDelete or
	// cancelRelease.
	Dropped string `json:"dropped,omitempty"`
}

// holds reports whether the exchange holds new places that the booking
// does not (yet) show: under way or PREBOOKED.
func (x *exchangeRecord) holds() bool {
	return x != nil && (x.State == exchangeBooking || x.State == exchangePrebooked)
}

// exchangeUnderWay is the problem of an operation that must wait for the
// booking's exchange to be confirmed or deleted. It is retryable: it is
// not the Idempotency-Key's final answer, so the same call goes ahead once
// the exchange is settled. An exchange past its ticketTimeLimit can no
// longer be confirmed, only deleted (or waited for: the sweeper releases
// it), and its problem says so.
func exchangeUnderWay(rec *bookingRecord, now time.Time) *osdm.ProblemError {
	x := rec.Exchange
	if x.State == exchangePrebooked && !now.Before(x.HoldUntil) {
		p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "booking "+rec.ID+" has exchange operation "+x.ID+
			", not confirmed by its ticketTimeLimit "+x.HoldUntil.Format(time.RFC3339)+", still holding new places: delete it (DELETE /bookings/"+rec.ID+
			"/exchange-operations/"+x.ID+") first, or retry once it is released")
		p.Retryable = true
		return p
	}
	p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "booking "+rec.ID+" has exchange operation "+x.ID+
		" under way: confirm it (POST /bookings/"+rec.ID+"/fulfillments) or delete it first")
	p.Retryable = true // the same request gets past once the exchange is settled
	return p
}

// exchangeDeparted is the problem of exchanging booking rec once its train
// has left (a journey used, or missed, is not exchanged), nil before.
func exchangeDeparted(rec *bookingRecord, now time.Time) *osdm.ProblemError {
	dep := rec.Offer.Departure
	if dep.IsZero() || now.Before(dep) {
		return nil
	}
	return osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
		"the train of booking "+rec.ID+" left at "+dep.Format(time.RFC3339)+"; it can no longer be exchanged")
}

// exchangeOfferKey is the exchangeQuote.OfferKey of an exchange offer id.
func exchangeOfferKey(offerID string) string {
	sum := sha256.Sum256([]byte(offerID))
	return hex.EncodeToString(sum[:16])
}

// exchangeQuote returns the booking's quote of the exchange offer id, nil
// when none.
func (rec *bookingRecord) exchangeQuote(offerID string) *exchangeQuote {
	k := exchangeOfferKey(offerID)
	for i := range rec.ExchangeQuotes {
		if rec.ExchangeQuotes[i].OfferKey == k {
			return &rec.ExchangeQuotes[i]
		}
	}
	return nil
}
