package integration

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// TestOSDMLegacyIntegrationLegacyRoundTrip: a legacy reservation system
// books and cancels on another legacy system over OSDM: legacy client ->
// osdm_convert -> reverse_proxy -> osdm_legacy -> reverse_proxy -> the
// legacy sandbox. The BookingReply carries the far system's reservation
// reference and control number; the CancelReply its refund.
func TestOSDMLegacyIntegrationLegacyRoundTrip(t *testing.T) {
	rt := legacyOverOSDM(t)
	reply := rt.post(&legacy.BookingRequest{
		Header:     header("RT-"),
		Journey:    rt.journey("708"),
		Places:     legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}},
		Passengers: []legacy.Passenger{{FirstName: "Ada", LastName: "Lovelace"}},
	})
	br, ok := reply.(*legacy.BookingReply)
	if !ok {
		t.Fatalf("BookingRequest over OSDM: %#v", reply)
	}
	held := rt.confirmed()
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
	reply = rt.post(&legacy.CancelRequest{Header: header("RT-C-"), BookingRef: br.BookingRef})
	cr, ok := reply.(*legacy.CancelReply)
	if !ok {
		t.Fatalf("CancelRequest over OSDM: %#v", reply)
	}
	var far legacysandbox.BookingInfo
	for _, b := range rt.far.Bookings() {
		far = b
	}
	if far.Status != "CANCELLED" || cr.Status != legacy.StatusRefunded || cr.RefundAmount == nil || cr.RefundAmount.Amount != far.Refund || cr.Fee == nil || cr.Fee.Amount != far.Fee {
		t.Errorf("CancelReply %+v (refund %v fee %v), far booking %+v", cr, cr.RefundAmount, cr.Fee, far)
	}
}
