package osdmlegacy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// POST /bookings: one offer of the store, all its passengers -> legacy
// BookingRequest -> booking PREBOOKED until confirmationTimeLimit (hold).

// createBooking books the one offer of the request for all its passengers.
func (f *Facade) createBooking(ctx context.Context, c *call) *Answer {
	req, p := readBookingRequest(c.body)
	if p != nil {
		return f.problem(c, p)
	}
	if isJourneyOfferID(req.Offers[0].OfferID) {
		return f.createJourneyBooking(ctx, c, req)
	}
	return f.idempotent(ctx, c, func() string { return NewID(BookingIDPrefix) }, func(id string) (*Answer, bool) {
		c.answer.BookingID = id
		rec, _, err := f.loadBooking(ctx, id)
		switch {
		case errors.Is(err, errBookingMissing):
			return f.newBooking(ctx, c, id, req)
		case err != nil:
			return f.storeFailed(c, err), false
		}
		return f.resumeBooking(ctx, c, rec)
	})
}

// newBooking checks the request against its offer, records the intent and
// sends the BookingRequest.
func (f *Facade) newBooking(ctx context.Context, c *call, id string, req *osdm.BookingRequest) (*Answer, bool) {
	now := f.now()
	offer, err := f.OpenOffer(ctx, req.Offers[0].OfferID, now)
	if errors.Is(err, ErrOfferNotFound) {
		return f.problem(c, osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound,
			"the offer is unknown or no longer bookable (offers are bookable until their preBookableUntil); search again").
			WithPointer("#/offers/0/offerId")), true
	}
	if err != nil { // the offer key could not be read
		return f.offerKeyFailed(c), false
	}
	pax, names, p := bookingPassengers(req, offer, f.cfg.Tariffs)
	if p != nil {
		return f.problem(c, p), true
	}
	// One booking per offer: a second POST of the same offer (without the
	// same Idempotency-Key) must not book the places twice.
	claimed, err := f.claimOffer(ctx, offer, id, now)
	if err != nil {
		return f.storeFailed(c, err), false
	}
	if !claimed {
		why := "the offer is booked already; an offer books once (search again for another)"
		if holder, err := f.store.Get(ctx, f.offerClaimKey(offer.ID)); err == nil {
			if hr, _, err := f.loadBooking(ctx, string(holder)); err == nil && hr.exchangeQuote(offer.ID) != nil {
				why = "the offer is an exchange offer of booking " + hr.ID + ": it is booked by POST /bookings/" + hr.ID + "/exchange-operations"
			}
		}
		return f.problem(c, osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, why).
			WithPointer("#/offers/0/offerId")), true
	}
	breq := &legacy.BookingRequest{
		Header:     legacy.Header{MessageID: messageID(id, StepBook, 0), SentAt: now.UTC().Truncate(time.Second)},
		Journey:    offer.Journey(),
		Places:     offer.PlaceRequest(),
		OfferRef:   offer.LegacyOfferRef,
		Passengers: names,
	}
	pending, err := f.newPending(StepBook, breq, now)
	if err != nil {
		return f.storeFailed(c, err), false
	}
	rec := &BookingRecord{
		ID: id, Partner: f.cfg.Partner, Client: c.client, State: StateBooking,
		CreatedOn: now.UTC(), HoldUntil: now.Add(f.cfg.Hold).UTC().Truncate(time.Second),
		ExternalRef: req.ExternalRef, Offer: *offer, Passengers: pax, Pending: pending,
	}
	// The work list first, then the record: a crash in between leaves a
	// stale mark, never an intent nobody settles. The hold mark lists
	// the BookingRequest's intent and then the hold: one write for both.
	if err := f.markHold(ctx, id, now); err != nil {
		return f.storeFailed(c, err), false
	}
	ok, err := f.putNewBooking(ctx, rec)
	if err != nil {
		return f.storeFailed(c, err), false
	}
	if !ok { // a retry of the same key got here first
		rec, _, err = f.loadBooking(ctx, id)
		if err != nil {
			return f.storeFailed(c, err), false
		}
		return f.resumeBooking(ctx, c, rec)
	}
	rec, d := f.deliver(ctx, c.send, rec)
	return f.bookingResult(c, rec, d)
}

// resumeBooking answers a repeated POST /bookings (same Idempotency-Key)
// from the booking as it stands; a BookingRequest whose answer was lost is
// resent (the same message: the legacy system answers it as the first).
func (f *Facade) resumeBooking(ctx context.Context, c *call, rec *BookingRecord) (*Answer, bool) {
	if rec.State == StateBooking && rec.Pending != nil {
		if f.now().Before(rec.Pending.LeaseUntil) {
			return f.inProgress(c, rec), false
		}
		rec, d := f.redeliver(ctx, c.send, rec)
		return f.bookingResult(c, rec, d)
	}
	return f.bookingResult(c, rec, &delivery{})
}

// bookingResult is the answer to POST /bookings once the BookingRequest
// was sent (d) or found answered.
func (f *Facade) bookingResult(c *call, rec *BookingRecord, d *delivery) (*Answer, bool) {
	if a := f.unsettled(c, d, "booking "+rec.ID, "the booking's outcome is being settled: retry with the same Idempotency-Key to get it"); a != nil {
		return a, false
	}
	switch rec.State {
	case StateBooking:
		return f.inProgress(c, rec), false
	case StateFailed:
		return f.problem(c, f.refusalProblem(rec)), true
	}
	return f.bookingAnswer(c, rec), true
}

// refusalProblem is the problem of a booking the legacy system refused.
func (f *Facade) refusalProblem(rec *BookingRecord) *osdm.ProblemError {
	subject := "train " + rec.Offer.Train + " on " + rec.Offer.ServiceDate
	if rec.Failure == nil {
		return osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, subject+": the reservation system refused the booking")
	}
	if rec.Failure.Code == codeReplacementProposal {
		return osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, subject+": another reservation system sells this train; search again for its proposal")
	}
	return NegativeProblem(&legacy.NegativeReply{Code: rec.Failure.Code, Retryable: rec.Failure.Retryable}, subject)
}

// inProgress is the answer while a legacy message of the booking is under
// way and its lease runs.
func (f *Facade) inProgress(c *call, rec *BookingRecord) *Answer {
	p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected,
		"booking "+rec.ID+" has a message to the reservation system under way; retry in a few seconds")
	p.Retryable = true
	return f.problem(c, p)
}

// offerClaimKey is the store key that claims an offer for one booking.
func (f *Facade) offerClaimKey(offerID string) string {
	sum := sha256.Sum256([]byte(offerID))
	return Key(f.cfg.Partner, KindOfferBooked, hex.EncodeToString(sum[:16]))
}

// claimOffer claims offer for booking id until the offer and a hold after
// it are over; it reports false when another booking holds the claim.
func (f *Facade) claimOffer(ctx context.Context, offer *OfferRecord, id string, now time.Time) (bool, error) {
	ttl := offer.ExpiresAt.Sub(now) + f.cfg.Hold
	if ttl < time.Second {
		ttl = time.Second
	}
	key := f.offerClaimKey(offer.ID)
	ok, err := f.store.PutIfAbsent(ctx, key, []byte(id), ttl)
	if err != nil || ok {
		return ok, err
	}
	held, err := f.store.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return f.store.PutIfAbsent(ctx, key, []byte(id), ttl)
	}
	return err == nil && string(held) == id, err
}

// getBooking answers GET /bookings/{bookingId} from the store.
func (f *Facade) getBooking(ctx context.Context, c *call) *Answer {
	rec, a := f.bookingOf(ctx, c)
	if a != nil {
		return a
	}
	if rec.State == StateBooking {
		return f.inProgress(c, rec)
	}
	return f.bookingAnswer(c, rec)
}

// bookingOf loads the booking of the call's path, or answers why not: a
// booking the legacy system refused is not found.
func (f *Facade) bookingOf(ctx context.Context, c *call) (*BookingRecord, *Answer) {
	id := c.params[osdm.ParamBookingID]
	c.answer.BookingID = id
	rec, _, err := f.loadBooking(ctx, id)
	if errors.Is(err, errBookingMissing) || err == nil && (rec.State == StateFailed || rec.JourneyID != "") {
		return nil, f.problem(c, bookingNotFound(id))
	}
	if err != nil {
		return nil, f.storeFailed(c, err)
	}
	return rec, nil
}

// bookingNotFound is the 404 of an unknown booking id.
func bookingNotFound(id string) *osdm.ProblemError {
	return osdm.NewProblem(http.StatusNotFound, osdm.CodeBookingNotFound, "no booking "+strconv.Quote(shorten(id, 40))+" is known")
}
