package converter

import (
	"context"
	"errors"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

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
	var id string
	switch m := req.(type) {
	case *legacy.CancelRequest:
		id = m.BookingRef
	case *legacy.PassengerDataRequest:
		id = m.BookingRef
	case *legacy.BookingRequest:
		id = m.ExchangeOf
	}
	if id == "" || unsafeSegment(id) != "" {
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
