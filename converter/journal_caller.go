package converter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// journalCaller is the Caller a journaled exchange runs through: it
// records the intent before POST /bookings (the exact body, the offer) and
// the booking id as soon as the partner names it, and notes what became of
// the booking, so that the journal knows at the end whether the partner's
// state matches the reply.
type journalCaller struct {
	x   Caller
	j   *Journal
	rec *exchangeRecord

	// bookingSent: POST /bookings was made at least once.
	bookingSent bool
	// bookingUnclear: the last POST /bookings got no clear answer (no
	// answer, 5xx, a 2xx without a booking id), so the partner may have
	// booked.
	bookingUnclear bool
	// deleted: DELETE /bookings/{id} answered 2xx or 404.
	deleted bool
	// intentErr: recording the intent failed, so POST /bookings was not
	// sent.
	intentErr error
	// bookingAnswer: the body of a 2xx answer to POST /bookings, until
	// answerRead has taken what the journal needs from it.
	bookingAnswer []byte
	// confirmSent: PATCH CONFIRMED of a refund offer was sent;
	// confirmUnclear: its last answer did not say whether it confirmed.
	confirmSent, confirmUnclear bool
	// opMade: the partner named an exchange operation; exchangeDone: the
	// fulfilment confirming it answered 2xx, or its DELETE 2xx or 404.
	opMade, exchangeDone bool
	// booking is the booking whose lease the message holds, under
	// bookingToken (holdBooking).
	booking, bookingToken string
	// notStarted: the message could not hold its booking, so nothing was
	// sent and nothing is recorded.
	notStarted bool
}

// answerReader is a Caller told what the converter read from a 2xx
// answer (out, or the error decoding it into out), right after reading
// it and before any further call: the journal takes the booking id of
// POST /bookings from it instead of reading the body a second time.
type answerReader interface {
	answerRead(step Step, out any, err error)
}

// answerRead implements answerReader: for POST /bookings, it records the
// booking id (or notes a clear refusal) as soon as the converter has read
// the answer.
func (jx *journalCaller) answerRead(step Step, out any, err error) {
	if step == StepRefundOffers && jx.rec.After != nil {
		jx.refundOfferRead(out, err)
		return
	}
	if step == StepExchangeOperation && jx.rec.After != nil {
		jx.exchangeOperationRead(out, err)
		return
	}
	if step != StepBooking || jx.bookingAnswer == nil {
		return
	}
	body := jx.bookingAnswer
	jx.bookingAnswer = nil
	var id string
	var limit *time.Time
	var problems bool
	if br, ok := out.(*osdm.BookingResponse); ok && err == nil {
		if br.Booking != nil {
			id, limit = br.Booking.ID, br.Booking.ConfirmationTimeLimit
		}
		problems = len(br.Problems) > 0
	} else {
		// The converter could not read it as OSDM: read what the journal
		// needs more leniently, as a resend would find it.
		id, limit, problems = bookingOf(body)
	}
	if id != "" {
		jx.bookingUnclear = false
		rec := jx.rec
		rec.BookingID, rec.State, rec.ConfirmBy, rec.Updated = id, stateBooked, limit, jx.j.c.now().UTC()
		// Best effort: the outcome is recorded at the end anyway, and the
		// intent already allows finding the booking again.
		_ = jx.j.save(rec, 0)
	} else if problems {
		jx.bookingUnclear = false
	}
}

// Call implements Caller.
func (jx *journalCaller) Call(ctx context.Context, call *Call) (*Answer, error) {
	if call.Step == StepBooking {
		rec := jx.rec
		if rec.BookingID == "" {
			rec.State = stateIntent
		}
		rec.BookingBody = append(json.RawMessage(nil), call.Body...)
		rec.OfferID = offerOf(call.Body)
		rec.Updated = jx.j.c.now().UTC()
		if err := jx.j.save(rec, 0); err != nil {
			jx.intentErr = err
			return nil, fmt.Errorf("the converter's journal store failed: recording the booking's intent: %w; POST /bookings was not sent", err)
		}
	}
	exchanging := jx.rec.After != nil && jx.rec.After.ExchangeOperationID != ""
	if call.Step == StepFulfillments && exchanging {
		if err := jx.beforeExchangeConfirm(); err != nil {
			return nil, fmt.Errorf("the converter's journal store failed: recording the exchange's confirmation: %w; the fulfilment was not sent", err)
		}
	}
	if call.Step == StepRefundOffer && jx.rec.After != nil {
		if err := jx.beforeConfirm(); err != nil {
			return nil, fmt.Errorf("the converter's journal store failed: recording the refund's confirmation: %w; PATCH CONFIRMED was not sent", err)
		}
	}
	a, err := jx.x.Call(ctx, call)
	ok2xx := err == nil && a != nil && a.Status >= 200 && a.Status < 300
	switch call.Step {
	case StepFulfillments:
		if exchanging {
			jx.confirmSent = true
			jx.exchangeDone = jx.exchangeDone || ok2xx
			jx.confirmUnclear = !ok2xx && (err != nil || a == nil || a.Status >= 500 || a.Status < 400 ||
				a.Status == http.StatusRequestTimeout || a.Status == http.StatusTooManyRequests)
		}
	case StepDeleteExchangeOperation:
		if ok2xx || (err == nil && a != nil && a.Status == http.StatusNotFound) {
			jx.exchangeDone = true
		}
	case StepRefundOffer:
		jx.confirmSent = true
		jx.confirmUnclear = !ok2xx && (err != nil || a == nil || a.Status >= 500 || a.Status < 400 ||
			a.Status == http.StatusRequestTimeout || a.Status == http.StatusTooManyRequests)
	case StepBooking:
		jx.bookingSent = true
		jx.bookingUnclear = true
		jx.bookingAnswer = nil
		switch {
		case ok2xx:
			// The converter reads the answer next and tells answerRead
			// what it found (the booking id is recorded then, before any
			// other call); the body is kept in case it cannot read it.
			jx.bookingAnswer = a.Body
		case err == nil && a != nil:
			jx.bookingUnclear = a.Status >= 500 || a.Status < 400 || a.Status == http.StatusRequestTimeout || a.Status == http.StatusTooManyRequests
		}
	case StepDeleteBooking:
		if ok2xx || (err == nil && a != nil && a.Status == http.StatusNotFound) {
			jx.deleted = true
		}
	}
	return a, err
}

// settled reports whether the partner's state matches res: no booking
// was attempted, or it was confirmed (res is its BookingReply), deleted,
// or clearly refused.
func (jx *journalCaller) settled(res *Result) bool {
	if jx.confirmSent && jx.confirmUnclear {
		// A refund or exchange the partner may or may not have confirmed.
		return false
	}
	if jx.opMade && !jx.exchangeDone {
		// An exchange operation neither confirmed nor deleted.
		return false
	}
	if !jx.bookingSent {
		return true
	}
	if _, ok := res.Reply.(*legacy.BookingReply); ok {
		return true
	}
	if jx.rec.BookingID != "" {
		return jx.deleted
	}
	return !jx.bookingUnclear
}

// offerOf is the first offer id of a POST /bookings body. The converter
// marshals the body with the offers first, so the id is read where it
// stands when it needs no unescaping; otherwise the body is decoded.
func offerOf(body []byte) string {
	const head = `{"offers":[{"offerId":"`
	if rest, ok := bytes.CutPrefix(body, []byte(head)); ok {
		if end := bytes.IndexByte(rest, '"'); end >= 0 && bytes.IndexByte(rest[:end], '\\') < 0 && utf8.Valid(rest[:end]) {
			return string(rest[:end])
		}
	}
	var b struct {
		Offers []struct {
			OfferID string `json:"offerId"`
		} `json:"offers"`
	}
	if json.Unmarshal(body, &b) != nil || len(b.Offers) == 0 {
		return ""
	}
	return b.Offers[0].OfferID
}

// bookingOf reads the booking id and confirmation time limit of a
// POST /bookings answer, and whether it carries problems.
func bookingOf(body []byte) (string, *time.Time, bool) {
	var b struct {
		Booking *struct {
			ID                    string     `json:"id"`
			ConfirmationTimeLimit *time.Time `json:"confirmationTimeLimit"`
		} `json:"booking"`
		Problems []json.RawMessage `json:"problems"`
	}
	if json.Unmarshal(body, &b) != nil {
		return "", nil, false
	}
	if b.Booking == nil {
		return "", nil, len(b.Problems) > 0
	}
	return b.Booking.ID, b.Booking.ConfirmationTimeLimit, len(b.Problems) > 0
}
