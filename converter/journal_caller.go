package converter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// ErrJournal wraps a failure to record an exchange's intent: the call it
// was for was not made.
var ErrJournal = errors.New("the converter's journal store failed")

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
			return nil, fmt.Errorf("%w: recording the booking's intent: %v; POST /bookings was not sent", ErrJournal, err)
		}
	}
	a, err := jx.x.Call(ctx, call)
	ok2xx := err == nil && a != nil && a.Status >= 200 && a.Status < 300
	switch call.Step {
	case StepBooking:
		jx.bookingSent = true
		jx.bookingUnclear = true
		switch {
		case ok2xx:
			id, limit, problems := bookingOf(a.Body)
			if id != "" {
				jx.bookingUnclear = false
				rec := jx.rec
				rec.BookingID, rec.State, rec.ConfirmBy, rec.Updated = id, stateBooked, limit, jx.j.c.now().UTC()
				// Best effort: the outcome is recorded at the end anyway,
				// and the intent already allows finding the booking again.
				_ = jx.j.save(rec, 0)
			} else if problems {
				jx.bookingUnclear = false
			}
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

// offerOf is the first offer id of a POST /bookings body.
func offerOf(body []byte) string {
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
