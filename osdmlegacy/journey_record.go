package osdmlegacy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// A journey with changes is booked at the legacy system train by train:
// each leg is a booking of its own there (one BookingRequest, one
// BookingRef), kept here as a bookingRecord of its own (a leg booking,
// with JourneyID set), and the journey, the OSDM booking, as a
// journeyRecord that lists them. The journey is booked all or nothing: it
// stays JOURNEY_BOOKING, listed for settlement by a kindJourneyOpen mark,
// until every leg is PREBOOKED and the answer is about to be given; a
// journey left in JOURNEY_BOOKING (a refused leg, a crash between legs)
// is rolled back leg by leg, with the technical reason code (no fee).

// Store kinds of journeys.
const (
	// kindJourney holds a journeyRecord under its booking id.
	kindJourney = "journey"
	// kindJourneyOpen marks a journey whose booking, or an exchange
	// operation of it, is not settled yet: settlement's work list (value:
	// a workMark, which says which; see markJourneyOpen for when it is
	// deleted).
	kindJourneyOpen = "journey-open"
)

// journeyIDPrefix starts the booking id of a journey with changes, so that
// a call finds which kind of booking it is about without a store read.
const journeyIDPrefix = "bj-"

// journeyState is where the booking of a journey is.
type journeyState string

// The journey states; once BOOKED the legs' own states say the rest
// (fulfilled, refunded...).
const (
	// journeyBooking: legs are being booked; not answered yet.
	journeyBooking journeyState = "JOURNEY_BOOKING"
	// journeyRollingBack: a leg was refused, or the booking was never
	// answered; the legs booked are being undone.
	journeyRollingBack journeyState = "JOURNEY_ROLLING_BACK"
	// journeyBooked: every leg was booked and the booking answered.
	journeyBooked journeyState = "JOURNEY_BOOKED"
	// journeyFailed: rolled back; no leg holds places.
	journeyFailed journeyState = "JOURNEY_FAILED"
)

// journeyRecord is the booking of a journey with changes.
type journeyRecord struct {
	// ID is the OSDM booking id (journeyIDPrefix).
	ID string `json:"id"`
	// Partner is the façade's partner label.
	Partner string `json:"partner"`
	// Client is the client whose call made the booking (anonymousClient
	// when none was known); its legs are that client's too. Only its
	// calls see the journey.
	Client string `json:"client,omitempty"`
	// State is where the journey's booking is.
	State journeyState `json:"state"`
	// CreatedOn is when the booking was recorded; HoldUntil its
	// confirmationTimeLimit (every leg's).
	CreatedOn time.Time `json:"createdOn"`
	HoldUntil time.Time `json:"holdUntil"`
	// LeaseUntil is when the call booking the legs is presumed dead, so
	// that settlement may roll the journey back.
	LeaseUntil time.Time `json:"leaseUntil"`
	// ExternalRef echoes the BookingRequest's externalRef.
	ExternalRef string `json:"externalRef,omitempty"`
	// OfferID is the journey offer booked; Legs its leg bookings' ids, in
	// order of travel (chosen before the first is sent).
	OfferID string   `json:"offerId"`
	Legs    []string `json:"legs"`
	// Offers are the journey offer's legs, for the legs not booked yet
	// when a retry carries on.
	Offers []offerRecord `json:"offers"`
	// End is when the last train arrives, for the record's retention.
	End time.Time `json:"end"`
	// Failure says which leg was refused, and why; nil when none was.
	Failure *journeyFailure `json:"failure,omitempty"`
	// RefundOffers are the journey's refund offers, oldest first.
	RefundOffers []journeyRefundOffer `json:"refundOffers,omitempty"`
	// ExchangeQuotes are the exchange offers made, oldest first.
	ExchangeQuotes []exchangeQuote `json:"exchangeQuotes,omitempty"`
	// Exchange is the latest exchange operation; nil when none was asked.
	Exchange *journeyExchange `json:"exchange,omitempty"`
}

// journeyFailure is the refusal of one leg of a journey.
type journeyFailure struct {
	// Leg is the leg's index (0 the first train); Train its train.
	Leg   int    `json:"leg"`
	Train string `json:"train"`
	// Refusal is the legacy refusal, nil when the leg's outcome was never
	// learnt (the journey was then rolled back unanswered).
	Refusal *legacyRefusal `json:"refusal,omitempty"`
	// Alternatives are the ReplacementProposal's, for a train another
	// system sells.
	Alternatives []alternativeRecord `json:"alternatives,omitempty"`
}

// alternativeRecord is a legacy ReplacementProposal's alternative, kept
// for the problem of a journey booking it refused.
type alternativeRecord struct {
	TrainNumber       string `json:"trainNumber,omitempty"`
	TravelClass       int    `json:"travelClass,omitempty"`
	ReservationSystem int    `json:"reservationSystem,omitempty"`
	Operator          string `json:"operator"`
	Priority          int    `json:"priority,omitempty"`
}

// journeyRefundOffer is a refund offer of a journey: one refund offer of
// each leg booking it covers, under the same id.
type journeyRefundOffer struct {
	// ID is the refund offer id, the same in every leg booking.
	ID string `json:"id"`
	// Legs are the indexes of the legs it refunds.
	Legs []int `json:"legs"`
}

// journeyKey is the store key of journey id.
func (js *journeys) journeyKey(id string) string { return storeKey(js.cfg.Partner, kindJourney, id) }

// errJourneyMissing is a journey id that names no record.
var errJourneyMissing = errors.New("no such journey")

// loadJourney returns journey id and its stored bytes, or
// errJourneyMissing (another client's journey included: a call sees its
// own client's, background work every one).
func (js *journeys) loadJourney(ctx context.Context, id string) (*journeyRecord, []byte, error) {
	if !validID(id, journeyIDPrefix) {
		return nil, nil, errJourneyMissing
	}
	rec, b, err := getRecord[journeyRecord](ctx, js.store, js.journeyKey(id), "journey", id, errJourneyMissing)
	if err != nil {
		return nil, nil, err
	}
	if rec.ID != id || rec.Partner != js.cfg.Partner || !visibleTo(ctx, rec.Client) {
		return nil, nil, errJourneyMissing
	}
	return rec, b, nil
}

// putNewJourney stores rec if no journey has its id, and reports whether
// it did.
func (js *journeys) putNewJourney(ctx context.Context, rec *journeyRecord) (bool, error) {
	return putNewRecord(ctx, js.store, js.journeyKey(rec.ID), rec, 0)
}

// updateJourney applies fn to journey id with compare-and-set, as
// updateBooking does for a booking.
func (js *journeys) updateJourney(ctx context.Context, id string, fn func(*journeyRecord) error) (*journeyRecord, error) {
	load := func() (*journeyRecord, []byte, error) { return js.loadJourney(ctx, id) }
	return updateRecord(ctx, js.store, js.journeyKey(id), load, js.journeyRetention, fn)
}

// journeyRetention is the store ttl of a journey: none while its booking
// is open, else as its legs' (bookingRetention after the last train
// arrives, at least an hour).
func (js *journeys) journeyRetention(rec *journeyRecord) time.Duration {
	if rec.State == journeyBooking || rec.State == journeyRollingBack || rec.End.IsZero() {
		return 0
	}
	return max(rec.End.Add(bookingRetention).Sub(js.now()), time.Hour)
}

// loadLegs returns the leg bookings of j in order; a leg never recorded
// (the call stopped before it) is nil.
func (js *journeys) loadLegs(ctx context.Context, j *journeyRecord) ([]*bookingRecord, error) {
	out := make([]*bookingRecord, len(j.Legs))
	for i, id := range j.Legs {
		rec, _, err := js.bookings.loadBooking(ctx, id)
		switch {
		case errors.Is(err, errBookingMissing):
		case err != nil:
			return nil, err
		default:
			if rec.JourneyID != j.ID {
				return nil, fmt.Errorf("journey %s: leg %s belongs to %q", j.ID, id, rec.JourneyID)
			}
			out[i] = rec
		}
	}
	return out, nil
}

// isJourneyID reports whether a booking id names a journey with changes.
func isJourneyID(id string) bool { return strings.HasPrefix(id, journeyIDPrefix) }

// journeyOf loads the journey of the call's path with its legs, or
// answers why not: a journey whose booking did not end booked is not
// found, as a single booking the legacy system refused.
func (js *journeys) journeyOf(ctx context.Context, c *call) (*journeyRecord, []*bookingRecord, *Answer) {
	id := c.params[osdm.ParamBookingID]
	c.answer.BookingID = id
	j, _, err := js.loadJourney(ctx, id)
	if errors.Is(err, errJourneyMissing) || err == nil && j.State != journeyBooked {
		if err == nil && j.State == journeyBooking {
			return nil, nil, problemAnswer(underWay("booking "+id, "messages"))
		}
		return nil, nil, problemAnswer(bookingNotFound(id))
	}
	if err != nil {
		return nil, nil, js.storeFailed(c, err)
	}
	legs, err := js.loadLegs(ctx, j)
	if err != nil {
		return nil, nil, js.storeFailed(c, err)
	}
	for _, leg := range legs {
		if leg == nil {
			return nil, nil, js.storeFailed(c, errors.New("journey "+j.ID+" is booked but a leg is missing"))
		}
	}
	return j, legs, nil
}

// A journey's kindJourneyOpen mark lists it for settlement while its
// booking, or an exchange operation of it, is under way. It is written
// before the journey's record (a crash in between leaves at worst a stale
// mark): by the booking, then again by each exchange operation as its
// first step, and by the fulfilment that confirms one. It is deleted once
// the record has nothing open, by the rules of hold marks (intent.go):
// the mark says what it lists (the journey's booking, or its n-th exchange
// operation, journeyExchange.N); the call that recorded the result that
// closed the journey's work (booked, rolled back, an exchange confirmed,
// failed or given back) deletes only a mark of what its record accounts
// for, and only the very mark it read (dropJourneyMark), so the mark of an
// exchange started meanwhile on any instance stays; settlement drops a
// mark of a journey with nothing open only if it is still the one listed,
// and a mark of an exchange the record does not show yet only once stale.
// The mark stays readable by an earlier release, and its marks by this
// one (which leaves them to settlement).

// markJourneyOpen lists journey id for settlement: its booking (n 0) or
// its n-th exchange operation.
func (js *journeys) markJourneyOpen(ctx context.Context, id string, n int, now time.Time) error {
	return js.putMark(ctx, kindJourneyOpen, id, workMark{BookingID: id, At: now, Exchange: &n})
}

// exchangeN is the number of the journey's latest exchange operation, 0
// if none (or one of an earlier release, which did not number them).
func (j *journeyRecord) exchangeN() int {
	if j.Exchange == nil {
		return 0
	}
	return j.Exchange.N
}

// nothingOpen reports whether r has nothing for settlement to finish: it
// is booked or failed, with no exchange operation open or confirming.
func (j *journeyRecord) nothingOpen() bool {
	x := j.Exchange
	return (j.State == journeyBooked || j.State == journeyFailed) && !x.open() && (x == nil || !x.Confirming)
}

// dropJourneyMark deletes the mark of r, the journey as the caller stored
// it, if r has nothing open and the mark lists only what r accounts for
// (dropOwnMark).
func (js *journeys) dropJourneyMark(ctx context.Context, r *journeyRecord) {
	if r.nothingOpen() {
		js.dropOwnMark(ctx, kindJourneyOpen, r.ID, r.exchangeN())
	}
}
