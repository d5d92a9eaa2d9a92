package consumer

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestExchangeLogBookingRef: the exchange's log line names the booking of
// every reply that names one, the after-sales replies included.
func TestExchangeLogBookingRef(t *testing.T) {
	req := &legacy.CancelRequest{Header: legacy.Header{MessageID: "m-1"}, BookingRef: "b-1"}
	for _, tc := range []struct {
		reply legacy.Reply
		want  string
	}{
		{&legacy.BookingReply{BookingRef: "b-1"}, "b-1"},
		{&legacy.CancelReply{BookingRef: "b-2", Status: legacy.StatusPartiallyRefunded}, "b-2"},
		{&legacy.PassengerDataReply{BookingRef: "b-3"}, "b-3"},
		{&legacy.NegativeReply{Code: legacy.CodeExchangeNotPossible, BookingRef: "b-4"}, "b-4"},
		{&legacy.SynchroReply{State: legacy.StateUnknown}, ""},
	} {
		el := newExchangeLog("p", req, &converter.Result{Reply: tc.reply, Outcome: "ok"}, nil, false)
		if el.bookingRef != tc.want {
			t.Errorf("%T: booking_ref %q, want %q", tc.reply, el.bookingRef, tc.want)
		}
	}
}
