package integration

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// TestOSDMLegacyIntegrationLegacyRollbackAfterChange: osdm_convert ->
// osdm_legacy -> the legacy sandbox in real Caddies. A SynchroRequest
// rollback naming a BookingRequest whose booking was partly cancelled, or
// exchanged, since is refused (INVALID_MESSAGE saying which) and changes
// nothing at the far legacy system: no place freed, no fee waived. A
// rollback of a booking nothing happened to still undoes it, and one
// naming its own messageId is refused instead of answering IN_PROGRESS.
func TestOSDMLegacyIntegrationLegacyRollbackAfterChange(t *testing.T) {
	rt := legacyOverOSDM(t, "exchange_fee 10%")
	places := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}}}
	book := func(train string) (legacy.Header, *legacy.BookingReply) {
		t.Helper()
		h := header("RB-B-")
		br, ok := rt.post(&legacy.BookingRequest{Header: h, Journey: rt.journey(train), Places: places}).(*legacy.BookingReply)
		if !ok || len(br.Places) != 2 {
			t.Fatalf("BookingRequest over OSDM: %#v", br)
		}
		return h, br
	}
	far := func(train string) []legacysandbox.BookingInfo {
		var out []legacysandbox.BookingInfo
		for _, b := range rt.confirmed() {
			if b.Train == train {
				out = append(out, b)
			}
		}
		return out
	}
	rollback := func(orig string) legacy.Reply {
		t.Helper()
		return rt.post(&legacy.SynchroRequest{Header: header("RB-S-"), OriginalMessageID: orig, Rollback: true})
	}
	refused := func(what string, reply legacy.Reply, want string) {
		t.Helper()
		if nr, ok := reply.(*legacy.NegativeReply); !ok || nr.Code != legacy.CodeInvalidMessage || !strings.Contains(nr.Text, want) {
			t.Errorf("rollback %s: %#v", what, reply)
		}
	}

	// Partly cancelled: refused; the far booking keeps its other place
	// and the fee of the partial cancellation.
	h, br := book("708")
	if cr, ok := rt.post(&legacy.CancelRequest{Header: header("RB-C-"), BookingRef: br.BookingRef, Places: br.Places[1:]}).(*legacy.CancelReply); !ok || cr.Status != legacy.StatusPartiallyRefunded {
		t.Fatalf("partial cancellation: %#v", cr)
	}
	before := far("708")
	refused("after a partial cancellation", rollback(h.MessageID), "partly refunded")
	if after := far("708"); len(before) != 1 || len(after) != 1 || after[0].Refund != before[0].Refund || after[0].Fee != before[0].Fee || after[0].Fee == "" {
		t.Errorf("the far booking changed: before %+v, after %+v", before, after)
	}

	// Exchanged: refused; the far system keeps the new journey.
	h, br = book("710")
	ar, ok := rt.post(&legacy.AvailabilityRequest{Header: header("RB-XA-"), Journey: rt.journey("709"), Places: places, ExchangeOf: br.BookingRef}).(*legacy.AvailabilityReply)
	if !ok || len(ar.Offers) != 1 {
		t.Fatalf("exchange offers: %#v", ar)
	}
	if xr, ok := rt.post(&legacy.BookingRequest{Header: header("RB-XB-"), Journey: rt.journey("709"), Places: places, OfferRef: ar.Offers[0].OfferRef, ExchangeOf: br.BookingRef}).(*legacy.BookingReply); !ok || xr.Exchange == nil {
		t.Fatalf("exchange: %#v", xr)
	}
	refused("after an exchange", rollback(h.MessageID), "exchanged")
	if n := len(far("709")); n != 1 {
		t.Errorf("the far system holds %d bookings on 709 after the refused rollback", n)
	}

	// Nothing happened: rolled back, every place freed without a fee.
	h, _ = book("712")
	if sr, ok := rollback(h.MessageID).(*legacy.SynchroReply); !ok || sr.State != legacy.StateRolledBack || sr.Fee == nil || sr.Fee.Amount != "0.00" {
		t.Errorf("rollback of an unchanged booking: %#v", sr)
	}
	if n := len(far("712")); n != 0 {
		t.Errorf("the far system holds %d bookings on 712 after the rollback", n)
	}

	// A rollback naming itself.
	self := header("RB-SELF-")
	refused("of itself", rt.post(&legacy.SynchroRequest{Header: self, OriginalMessageID: self.MessageID, Rollback: true}), "its own messageId")
	self = header("RB-SELF-")
	refused("of itself, without rollback", rt.post(&legacy.SynchroRequest{Header: self, OriginalMessageID: self.MessageID}), "its own messageId")
}
