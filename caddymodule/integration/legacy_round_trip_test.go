package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// TestOSDMLegacyIntegrationLegacyRoundTrip: a legacy reservation system
// books and cancels on another legacy system over OSDM: legacy client ->
// osdm_convert -> reverse_proxy -> osdm_legacy -> reverse_proxy -> the
// legacy sandbox. The BookingReply carries the far system's reservation
// reference and control number; the CancelReply its refund.
func TestOSDMLegacyIntegrationLegacyRoundTrip(t *testing.T) {
	sb, client := legacyOverOSDM(t)
	post := func(msg legacy.Request) legacy.Reply {
		t.Helper()
		_, reply := client.Send(t, msg)
		return reply
	}
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	reply := post(&legacy.BookingRequest{
		Header:     legacy.Header{MessageID: "RT-" + uuid.NewString()[:8]},
		Journey:    legacy.Journey{TrainNumber: "708", DepartureDate: day, From: "8500010", To: "8503000"},
		Places:     legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}},
		Passengers: []legacy.Passenger{{FirstName: "Ada", LastName: "Lovelace"}},
	})
	br, ok := reply.(*legacy.BookingReply)
	if !ok {
		t.Fatalf("BookingRequest over OSDM: %#v", reply)
	}
	held := confirmedAt(sb)
	if len(held) != 1 {
		t.Fatalf("the far legacy system holds %d bookings", len(held))
	}
	for _, hb := range held {
		if br.ReservationReference != hb.ReservationReference || br.TicketControlNumber != hb.TicketControlNumber ||
			br.Status != legacy.StatusFulfilled || len(br.Places) != 1 || br.Places[0].Number != hb.Places[0].Number || hb.Passengers != 1 {
			t.Errorf("BookingReply %+v, far booking %+v", br, hb)
		}
		if !strings.HasPrefix(br.BookingRef, "bk-") || hb.MessageIDs[0] != br.BookingRef+".book" {
			t.Errorf("BookingRef %s, far messageIds %v", br.BookingRef, hb.MessageIDs)
		}
	}
	reply = post(&legacy.CancelRequest{Header: legacy.Header{MessageID: "RT-C-" + uuid.NewString()[:8]}, BookingRef: br.BookingRef})
	cr, ok := reply.(*legacy.CancelReply)
	if !ok {
		t.Fatalf("CancelRequest over OSDM: %#v", reply)
	}
	var far legacysandbox.BookingInfo
	for _, b := range sb.Bookings() {
		far = b
	}
	if far.Status != "CANCELLED" || cr.Status != legacy.StatusRefunded || cr.RefundAmount == nil || cr.RefundAmount.Amount != far.Refund || cr.Fee == nil || cr.Fee.Amount != far.Fee {
		t.Errorf("CancelReply %+v (refund %v fee %v), far booking %+v", cr, cr.RefundAmount, cr.Fee, far)
	}
}
