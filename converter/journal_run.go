package converter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
	// records (settle.go).
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
		if err := jx.beforeConfirm(stateExchangeConfirming); err != nil {
			return fmt.Errorf("the converter's journal store failed: recording the exchange's confirmation: %w; the fulfilment was not sent", err)
		}
	}
	if call.Step == StepRefundOffer && jx.rec.After != nil {
		if err := jx.beforeConfirm(stateRefundConfirming); err != nil {
			return fmt.Errorf("the converter's journal store failed: recording the refund's confirmation: %w; PATCH CONFIRMED was not sent", err)
		}
	}
	return nil
}

// exchangePrebooked reports an exchange whose operation the partner named.
func (jx *journalRun) exchangePrebooked() bool {
	return jx.rec.After != nil && jx.rec.After.ExchangeOperationID != ""
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

// An after-sales message reads the booking, then acts on what it read: a
// partial cancellation refunds the places it found held and answers
// PARTIALLY_REFUNDED when others were left; a cancellation of the rest
// lists the places it found; an exchange moves the passengers it found.
// Two such messages on one booking at once would each act on a booking
// the other is changing (the second of two partial cancellations that
// cover every place answers PARTIALLY_REFUNDED for a booking now fully
// refunded; a place refunded while an exchange is pre-booked can be moved
// to the new train as well). So the journal runs the after-sales messages
// of one booking one at a time, on every instance sharing the store: each
// holds the booking's lease, as a message holds its messageId's, from
// before it reads the booking until its outcome is recorded; another
// message on the booking waits for it.

// bookingLeaseKey is the store key of the lease of booking id.
func (j *Journal) bookingLeaseKey(id string) string {
	return "convert/" + j.c.partner + "/booking/" + id
}

// afterSalesBooking names the booking an after-sales message changes: a
// CancelRequest's or a PassengerDataRequest's BookingRef, an exchange's
// ExchangeOf; "" for any other message, and for a reference the
// converter refuses anyway.
func afterSalesBooking(req legacy.Request) string {
	switch m := req.(type) {
	case *legacy.CancelRequest:
		return usableRef(m.BookingRef)
	case *legacy.PassengerDataRequest:
		return usableRef(m.BookingRef)
	case *legacy.BookingRequest:
		return usableRef(m.ExchangeOf)
	}
	return ""
}

// usableRef is id when it can name a booking in an OSDM path, else "".
func usableRef(id string) string {
	if unsafeSegment(id) != "" {
		return ""
	}
	return id
}

// errBookingBusy: another message held the booking until the message's
// context ended.
var errBookingBusy = errors.New("another message on the booking is being carried out")

// holdBooking takes the lease of booking id for jx's message, waiting
// while another message holds it (until ctx ends: errBookingBusy); the
// message keeps it until freeBooking. A booking jx holds already is not
// taken again.
func (jx *journalRun) holdBooking(ctx context.Context, id string) error {
	if jx.booking == id {
		return nil
	}
	wait := jx.j.cfg.Poll
	for {
		got, err := jx.tryBooking(ctx, id)
		if err != nil || got {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errBookingBusy
		case <-t.C:
		}
		wait = min(2*wait, 4*jx.j.cfg.Poll)
	}
}

// tryBooking takes the lease of booking id for jx's message if no other
// message holds it, and reports whether it did.
func (jx *journalRun) tryBooking(ctx context.Context, id string) (bool, error) {
	token, got, err := jx.j.acquireKey(ctx, jx.j.bookingLeaseKey(id))
	if err != nil || !got {
		return false, err
	}
	jx.freeBooking()
	jx.booking, jx.bookingToken = id, token
	return true, nil
}

// freeBooking frees the booking lease jx holds, if any: once the
// message's outcome is recorded.
func (jx *journalRun) freeBooking() {
	if jx.booking == "" {
		return
	}
	jx.j.releaseKey(jx.j.bookingLeaseKey(jx.booking), jx.bookingToken)
	jx.booking, jx.bookingToken = "", ""
}

// bookingHeld is the reply when booking id could not be held (err): the
// store failed, or another message on the booking ran until this one's
// time was up. Nothing was sent to the partner, and nothing is recorded:
// the resend runs the message.
func (j *Journal) bookingHeld(h legacy.ReplyHeader, id string, err error) *Result {
	if !errors.Is(err, errBookingBusy) {
		return j.storeFailed(h, err)
	}
	return markUnsettled(negative(&legacy.NegativeReply{Header: h, Code: legacy.CodePartnerTimeout, BookingRef: id, Retryable: true,
		Text: "Another message on booking " + plain(id, 128) + " at partner " + j.c.partner + " was being carried out until this one's time was up; this one was not started and nothing was changed. Send it again later."}))
}

// afterSales is the record's after-sales progress, made on first use.
func (jx *journalRun) afterSales() *afterSales {
	if jx.rec.After == nil {
		jx.rec.After = &afterSales{}
	}
	return jx.rec.After
}

// reached records that the exchange reached state, kept as long as an
// exchange not settled is.
func (jx *journalRun) reached(state string) error {
	rec := jx.rec
	rec.State, rec.Updated = state, jx.j.c.now().UTC()
	return jx.j.save(rec, jx.j.cfg.UnsettledTTL)
}

// refunding implements ledger: the journal keeps what the refund will
// answer, for a resend or settlement.
func (jx *journalRun) refunding(bookingID, status string, places []legacy.Place) {
	a := jx.afterSales()
	jx.rec.BookingID, a.Status, a.Places = bookingID, status, places
}

// refundOfferRead records the refund offer the partner made.
func (jx *journalRun) refundOfferRead(out any, err error) {
	ro, ok := out.(*osdm.RefundOfferCollectionResponse)
	if !ok || err != nil || len(ro.RefundOffers) == 0 || ro.RefundOffers[0].ID == "" {
		return
	}
	jx.afterSales().RefundOfferID = ro.RefundOffers[0].ID
	// Best effort: without it a resend asks for the offer again (same
	// Idempotency-Key) and nothing was confirmed yet.
	_ = jx.reached(stateRefundOffered)
}

// exchanging implements ledger: the journal keeps the booking exchanged.
func (jx *journalRun) exchanging(bookingID string) {
	jx.rec.BookingID, jx.afterSales().ExchangeOf = bookingID, bookingID
}

// exchangeOperationRead records the exchange operation the partner made.
func (jx *journalRun) exchangeOperationRead(out any, err error) {
	opr, ok := out.(*osdm.ExchangeOperationResponse)
	if !ok || err != nil || opr.ExchangeOperation == nil || opr.ExchangeOperation.ID == "" {
		return
	}
	op, a := opr.ExchangeOperation, jx.afterSales()
	jx.opMade = true
	a.ExchangeOperationID = op.ID
	if len(op.ExchangeOffers) > 0 {
		a.Exchange = legacyExchange(&op.ExchangeOffers[0])
	}
	// Best effort: without it a resend asks for the operation again
	// (same Idempotency-Key), and an operation never confirmed lapses.
	_ = jx.reached(stateExchangePrebooked)
}

// beforeConfirm records that a confirmation is about to be sent (state:
// PATCH CONFIRMED of a refund offer, or the fulfilment confirming an
// exchange); the call is not made when that cannot be recorded.
func (jx *journalRun) beforeConfirm(state string) error {
	if err := jx.reached(state); err != nil {
		jx.intentErr = err
		return err
	}
	return nil
}
