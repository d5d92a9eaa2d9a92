package osdmlegacy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// POST /bookings: one offer of the store, all its passengers -> legacy
// BookingRequest -> booking PREBOOKED until confirmationTimeLimit (hold).

// createBooking books the one offer of the request for all its passengers.
func (b *bookings) createBooking(ctx context.Context, c *call) *Answer {
	req, p := readBookingRequest(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	if isJourneyOfferID(req.Offers[0].OfferID) {
		return b.journeys.createJourneyBooking(ctx, c, req)
	}
	return bookOnce(ctx, b.core, c, bookingIDPrefix, b.loadBooking, errBookingMissing,
		func(id string) (*Answer, bool) { return b.newBooking(ctx, c, id, req) },
		func(rec *bookingRecord) (*Answer, bool) { return b.resumeBooking(ctx, c, rec) })
}

// bookingRequestOf is the BookingRequest of booking id: offer's places
// for the passengers named, first sent at now.
func bookingRequestOf(id string, offer *offerRecord, names []legacy.Passenger, now time.Time) *legacy.BookingRequest {
	return &legacy.BookingRequest{
		Header:     legacy.Header{MessageID: messageID(id, stepBook, 0), SentAt: now.UTC().Truncate(time.Second)},
		Journey:    offer.Journey(),
		Places:     offer.PlaceRequest(),
		OfferRef:   offer.LegacyOfferRef,
		Passengers: names,
	}
}

// bookOnce makes a booking (of one train, or a journey's) under the call's
// Idempotency-Key: the key names the booking's id (prefix and a new id);
// start makes the booking when none of that id is stored (missing), and
// resume carries on with the one stored, as a retry of the call finds it.
func bookOnce[R any](ctx context.Context, k *core, c *call, prefix string, load func(context.Context, string) (*R, []byte, error),
	missing error, start func(id string) (*Answer, bool), resume func(*R) (*Answer, bool)) *Answer {
	return k.idempotent(ctx, c, func() string { return newID(prefix) }, func(id string) (*Answer, bool) {
		c.answer.BookingID = id
		rec, _, err := load(ctx, id)
		switch {
		case errors.Is(err, missing):
			return start(id)
		case err != nil:
			return k.storeFailed(c, err), false
		}
		return resume(rec)
	})
}

// newBooking checks the request against its offer, records the intent and
// sends the BookingRequest.
func (b *bookings) newBooking(ctx context.Context, c *call, id string, req *osdm.BookingRequest) (*Answer, bool) {
	now := b.now()
	offer, err := b.offers.openOffer(ctx, req.Offers[0].OfferID, now)
	if err != nil {
		return b.offers.openFailed(c, err)
	}
	pax, names, p := bookingPassengers(req, offer, b.cfg.Tariffs)
	if p != nil {
		return problemAnswer(p), true
	}
	// One booking per offer: a second POST of the same offer (without the
	// same Idempotency-Key) must not book the places twice.
	claimed, err := b.claimOffer(ctx, offer, id, now)
	if err != nil {
		return b.storeFailed(c, err), false
	}
	if !claimed {
		why := offerBookedAlready
		if holder, err := b.store.Get(ctx, b.offerClaimKey(offer.ID)); err == nil {
			if hr, _, err := b.loadBooking(ctx, string(holder)); err == nil && hr.exchangeQuote(offer.ID) != nil {
				why = "the offer is an exchange offer of booking " + hr.ID + ": it is booked by POST /bookings/" + hr.ID + "/exchange-operations"
			}
		}
		return problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, why).
			WithPointer("#/offers/0/offerId")), true
	}
	pending, err := b.settlement.newPending(stepBook, bookingRequestOf(id, offer, names, now), now)
	if err != nil {
		return b.storeFailed(c, err), false
	}
	rec := &bookingRecord{
		ID: id, Partner: b.cfg.Partner, Client: c.client, State: stateBooking,
		CreatedOn: now.UTC(), HoldUntil: now.Add(b.cfg.Hold).UTC().Truncate(time.Second),
		ExternalRef: req.ExternalRef, Offer: *offer, Passengers: pax, Pending: pending,
	}
	// The work list first, then the record: a crash in between leaves a
	// stale mark, never an intent nobody settles. The hold mark lists
	// the BookingRequest's intent and then the hold: one write for both.
	if err := b.settlement.markHold(ctx, id, now); err != nil {
		return b.storeFailed(c, err), false
	}
	ok, err := b.putNewBooking(ctx, rec)
	if err != nil {
		return b.storeFailed(c, err), false
	}
	if !ok { // a retry of the same key got here first
		rec, _, err = b.loadBooking(ctx, id)
		if err != nil {
			return b.storeFailed(c, err), false
		}
		return b.resumeBooking(ctx, c, rec)
	}
	rec, d := b.settlement.deliver(ctx, c.send, rec)
	return b.bookingResult(c, rec, d)
}

// resumeBooking answers a repeated POST /bookings (same Idempotency-Key)
// from the booking as it stands; a BookingRequest whose answer was lost is
// resent (the same message: the legacy system answers it as the first).
func (b *bookings) resumeBooking(ctx context.Context, c *call, rec *bookingRecord) (*Answer, bool) {
	if rec.State == stateBooking && rec.Pending != nil {
		if b.now().Before(rec.Pending.LeaseUntil) {
			return problemAnswer(underWay("booking "+rec.ID, "a message")), false
		}
		rec, d := b.settlement.redeliver(ctx, c.send, rec)
		return b.bookingResult(c, rec, d)
	}
	return b.bookingResult(c, rec, &delivery{})
}

// bookingResult is the answer to POST /bookings once the BookingRequest
// was sent (d) or found answered.
func (b *bookings) bookingResult(c *call, rec *bookingRecord, d *delivery) (*Answer, bool) {
	if a := b.settlement.unsettled(c, d, "booking "+rec.ID, "the booking's outcome is being settled: retry with the same Idempotency-Key to get it"); a != nil {
		return a, false
	}
	switch rec.State {
	case stateBooking:
		return problemAnswer(underWay("booking "+rec.ID, "a message")), false
	case stateFailed:
		return problemAnswer(b.refusalProblem(rec)), true
	}
	return b.documents.bookingAnswer(c, rec), true
}

// refusalProblem is the problem of a booking the legacy system refused.
func (b *bookings) refusalProblem(rec *bookingRecord) *osdm.ProblemError {
	subject := "train " + rec.Offer.Train + " on " + rec.Offer.ServiceDate
	if rec.Failure == nil {
		return osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, subject+": the reservation system refused the booking")
	}
	if rec.Failure.Code == codeReplacementProposal {
		return osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, subject+": another reservation system sells this train; search again for its proposal")
	}
	return NegativeProblem(&legacy.NegativeReply{Code: rec.Failure.Code, Retryable: rec.Failure.Retryable}, subject)
}

// offerClaimKey is the store key that claims an offer for one booking.
func (b *bookings) offerClaimKey(offerID string) string {
	sum := sha256.Sum256([]byte(offerID))
	return storeKey(b.cfg.Partner, kindOfferBooked, hex.EncodeToString(sum[:16]))
}

// claimOffer claims offer for booking id until the offer and a hold after
// it are over; it reports false when another booking holds the claim.
func (b *bookings) claimOffer(ctx context.Context, offer *offerRecord, id string, now time.Time) (bool, error) {
	ttl := offer.ExpiresAt.Sub(now) + b.cfg.Hold
	if ttl < time.Second {
		ttl = time.Second
	}
	key := b.offerClaimKey(offer.ID)
	ok, err := b.store.PutIfAbsent(ctx, key, []byte(id), ttl)
	if err != nil || ok {
		return ok, err
	}
	held, err := b.store.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return b.store.PutIfAbsent(ctx, key, []byte(id), ttl)
	}
	return err == nil && string(held) == id, err
}

// getBooking answers GET /bookings/{bookingId} from the store.
func (b *bookings) getBooking(ctx context.Context, c *call) *Answer {
	rec, a := b.bookingOf(ctx, c)
	if a != nil {
		return a
	}
	if rec.State == stateBooking {
		return problemAnswer(underWay("booking "+rec.ID, "a message"))
	}
	return b.documents.bookingAnswer(c, rec)
}

// bookingOf loads the booking of the call's path, or answers why not: a
// booking the legacy system refused is not found.
func (b *bookings) bookingOf(ctx context.Context, c *call) (*bookingRecord, *Answer) {
	id := c.params[osdm.ParamBookingID]
	c.answer.BookingID = id
	rec, _, err := b.loadBooking(ctx, id)
	if errors.Is(err, errBookingMissing) || err == nil && (rec.State == stateFailed || rec.JourneyID != "") {
		return nil, problemAnswer(bookingNotFound(id))
	}
	if err != nil {
		return nil, b.storeFailed(c, err)
	}
	return rec, nil
}
