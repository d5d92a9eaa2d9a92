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

// ledger is what a run tells the journal of its exchange, at the steps
// that commit the partner, with what the run already holds: the call it is
// about to make (with its marshalled body and the decoded value it came
// from), the answer, and what it decoded from a 2xx. A run without a
// journal (a search, a ticket, Converter.Convert) tells noLedger.
type ledger interface {
	// before is told of a call about to be made, body being the value
	// its JSON was marshalled from; an error means it must not be sent
	// (its intent could not be recorded).
	before(call *Call, body any) error
	// after is told what the call got: an answer or no answer.
	after(step Step, a *Answer, err error)
	// read is told what the run read from a 2xx answer to step (out, or
	// the error decoding body into it), before any further call.
	read(step Step, out any, body []byte, err error)
	// refunding is told, before the refund offer is asked for, what the
	// refund will answer.
	refunding(bookingID, status string, places []legacy.Place)
	// exchanging is told, before the exchange operation is asked for,
	// which booking is exchanged.
	exchanging(bookingID string)
	// rollback answers a SynchroRequest with rollback from the journal's
	// records (synchro.go).
	rollback(ctx context.Context, r *run, m *legacy.SynchroRequest) *Result
}

// noLedger is the ledger of a run without a journal: nothing is recorded.
type noLedger struct{}

func (noLedger) before(*Call, any) error                  { return nil }
func (noLedger) after(Step, *Answer, error)               {}
func (noLedger) read(Step, any, []byte, error)            {}
func (noLedger) refunding(string, string, []legacy.Place) {}
func (noLedger) exchanging(string)                        {}
func (noLedger) rollback(_ context.Context, r *run, _ *legacy.SynchroRequest) *Result {
	return r.negative(&legacy.NegativeReply{Code: legacy.CodeUnsupportedMessage,
		Text: "SynchroRequest is answered from the converter's journal, which this route does not have."})
}

// journalRun is the ledger of a journaled exchange: it records the intent
// before POST /bookings (the exact body, the offer) and the booking id as
// soon as the partner names it, and notes what became of the booking, so
// that the journal knows at the end whether the partner's state matches
// the reply.
type journalRun struct {
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

// read implements ledger: for POST /bookings, it records the booking id
// (or notes a clear refusal) as soon as the converter has read the
// answer; for the after-sales steps, the refund offer or exchange
// operation the partner made.
func (jx *journalRun) read(step Step, out any, body []byte, err error) {
	switch {
	case step == StepRefundOffers && jx.rec.After != nil:
		jx.refundOfferRead(out, err)
		return
	case step == StepExchangeOperation && jx.rec.After != nil:
		jx.exchangeOperationRead(out, err)
		return
	case step != StepBooking:
		return
	}
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

// before implements ledger: the intent of POST /bookings, and the
// confirmation of a refund or an exchange about to be sent, are recorded
// first; the call is not sent when that fails.
func (jx *journalRun) before(call *Call, body any) error {
	if call.Step == StepBooking {
		rec := jx.rec
		if rec.BookingID == "" {
			rec.State = stateIntent
		}
		rec.BookingBody = append(json.RawMessage(nil), call.Body...)
		switch b := body.(type) {
		case *osdm.BookingRequest:
			rec.OfferID = ""
			if len(b.Offers) > 0 {
				rec.OfferID = b.Offers[0].OfferID
			}
		default:
			// The body recorded before (a json.RawMessage), sent again.
			rec.OfferID = offerOf(call.Body)
		}
		rec.Updated = jx.j.c.now().UTC()
		if err := jx.j.save(rec, 0); err != nil {
			jx.intentErr = err
			return fmt.Errorf("the converter's journal store failed: recording the booking's intent: %w; POST /bookings was not sent", err)
		}
	}
	if call.Step == StepFulfillments && jx.exchangePrebooked() {
		if err := jx.beforeExchangeConfirm(); err != nil {
			return fmt.Errorf("the converter's journal store failed: recording the exchange's confirmation: %w; the fulfilment was not sent", err)
		}
	}
	if call.Step == StepRefundOffer && jx.rec.After != nil {
		if err := jx.beforeConfirm(); err != nil {
			return fmt.Errorf("the converter's journal store failed: recording the refund's confirmation: %w; PATCH CONFIRMED was not sent", err)
		}
	}
	return nil
}

// exchangePrebooked reports an exchange whose operation the partner named.
func (jx *journalRun) exchangePrebooked() bool {
	return jx.rec.After != nil && jx.rec.After.ExchangeOperationID != ""
}

// unclear reports an answer (or none) that does not say whether the
// partner acted: no answer, 5xx, 408, 429, or not a 4xx.
func unclear(a *Answer, err error) bool {
	return err != nil || a == nil || a.Status >= 500 || a.Status < 400 ||
		a.Status == http.StatusRequestTimeout || a.Status == http.StatusTooManyRequests
}

// after implements ledger: what became of the booking, the refund or the
// exchange.
func (jx *journalRun) after(step Step, a *Answer, err error) {
	ok2xx := err == nil && a != nil && a.Status >= 200 && a.Status < 300
	gone := ok2xx || (err == nil && a != nil && a.Status == http.StatusNotFound)
	switch step {
	case StepFulfillments:
		if jx.exchangePrebooked() {
			jx.confirmSent = true
			jx.exchangeDone = jx.exchangeDone || ok2xx
			jx.confirmUnclear = !ok2xx && unclear(a, err)
		}
	case StepDeleteExchangeOperation:
		jx.exchangeDone = jx.exchangeDone || gone
	case StepRefundOffer:
		jx.confirmSent = true
		jx.confirmUnclear = !ok2xx && unclear(a, err)
	case StepBooking:
		jx.bookingSent = true
		// A 2xx is read next (read records the booking id then, before
		// any other call).
		jx.bookingUnclear = ok2xx || unclear(a, err)
	case StepDeleteBooking:
		jx.deleted = jx.deleted || gone
	}
}

// settled reports whether the partner's state matches res: no booking
// was attempted, or it was confirmed (res is its BookingReply), deleted,
// or clearly refused.
func (jx *journalRun) settled(res *Result) bool {
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
