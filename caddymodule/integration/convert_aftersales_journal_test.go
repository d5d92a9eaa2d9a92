package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// partnerBooking reads booking id at the rig's partner.
func (rig *journalRig) partnerBooking(id string) *osdm.Booking {
	rig.t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/bookings/%s", rig.partnerPort, id))
	if err != nil {
		rig.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var br osdm.BookingResponse
	if err := json.Unmarshal(body, &br); err != nil || br.Booking == nil {
		rig.t.Fatalf("GET /bookings/%s: %d %s", id, resp.StatusCode, body)
	}
	return br.Booking
}

func twoSeats(id string) *legacy.BookingRequest {
	return &legacy.BookingRequest{Header: legacy.Header{MessageID: id}, Journey: journeyOn("9203"),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 2})}
}

func exchangeTo9207(id, ref string) *legacy.BookingRequest {
	return &legacy.BookingRequest{Header: legacy.Header{MessageID: id}, Journey: journeyOn("9207"),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 2}), ExchangeOf: ref}
}

// TestJournalAfterSalesSIGKILL: the front is killed with SIGKILL when the
// fulfilment confirming an exchange, or the PATCH confirming a partial
// refund, is on its way. Started again on the same bolt file (settling
// every 200ms), the resend gets an outcome the partner agrees with: the
// booking on the new train (one live ticket) or on the old one; one place
// refunded once.
func TestJournalAfterSalesSIGKILL(t *testing.T) {
	rig := newJournalRig(t, boltStore(t), "\t\t\tsettle_interval 200ms\n")
	front := rig.front()
	status, r := rig.mustSend(front, twoSeats(journalMsgID("xb")))
	booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)

	xid := journalMsgID("x")
	rig.killOnStep(front, xid, converter.StepFulfillments)
	if _, r, err := rig.send(front, exchangeTo9207(xid, booked.BookingRef)); err == nil {
		t.Fatalf("the front answered %+v; it should have died", r)
	}
	front = rig.front()
	status, r = rig.mustSend(front, exchangeTo9207(xid, booked.BookingRef))
	trains, live := liveTrains(rig.partnerBooking(booked.BookingRef))
	switch r := r.(type) {
	case *legacy.BookingReply:
		if status != http.StatusOK || r.ExchangeOf != booked.BookingRef || strings.Join(trains, ",") != "9207" || live != 1 {
			t.Fatalf("resent exchange: %d %+v; partner trains %v, %d live", status, r, trains, live)
		}
	case *legacy.NegativeReply:
		// Settlement got there first and withdrew it.
		if !strings.Contains(r.Text, "stands unchanged") || strings.Join(trains, ",") != "9203" || live != 1 {
			t.Fatalf("resent exchange: %+v; partner trains %v, %d live", r, trains, live)
		}
	default:
		t.Fatalf("resent exchange: %T %+v", r, r)
	}

	// A partial cancellation, killed on its confirmation.
	status, r = rig.mustSend(front, twoSeats(journalMsgID("pb")))
	b2 := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	pid := journalMsgID("p")
	partial := &legacy.CancelRequest{Header: legacy.Header{MessageID: pid}, BookingRef: b2.BookingRef, Places: b2.Places[:1]}
	rig.killOnStep(front, pid, converter.StepRefundOffer)
	if _, r, err := rig.send(front, partial); err == nil {
		t.Fatalf("the front answered %+v; it should have died", r)
	}
	front = rig.front()
	status, r = rig.mustSend(front, partial)
	b := rig.partnerBooking(b2.BookingRef)
	held := len(b.BookedOffers[0].Reservations[0].PlaceAllocation.ReservedPlaces[0].PlaceNumbers)
	switch r := r.(type) {
	case *legacy.CancelReply:
		if r.Status != legacy.StatusPartiallyRefunded || held != 1 {
			t.Fatalf("resent partial cancellation: %+v; partner holds %d", r, held)
		}
	case *legacy.NegativeReply:
		if !strings.Contains(r.Text, "nothing was cancelled") || held != 2 {
			t.Fatalf("resent partial cancellation: %+v; partner holds %d", r, held)
		}
	default:
		t.Fatalf("resent partial cancellation: %T %+v", r, r)
	}
	// And again: the same reply, nothing more refunded.
	_, again := rig.mustSend(front, partial)
	if !reflect.DeepEqual(again, r) {
		t.Errorf("second resend %+v, first %+v", again, r)
	}
}

// TestJournalAfterSalesTwoFrontsOneRedis: an exchange made through one
// front and resent to the other gets the same reply and no OSDM call;
// so does a partial cancellation the other way round.
func TestJournalAfterSalesTwoFrontsOneRedis(t *testing.T) {
	rig := newJournalRig(t, redisStore(t), "")
	a, b := rig.front(), rig.front()
	status, r := rig.mustSend(a, twoSeats(journalMsgID("rb")))
	booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	xid := journalMsgID("rx")
	status, r = rig.mustSend(a, exchangeTo9207(xid, booked.BookingRef))
	first := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	rig.tap.take()
	status, r = rig.mustSend(b, exchangeTo9207(xid, booked.BookingRef))
	if again := must[*legacy.BookingReply](t, status, r, http.StatusOK); !reflect.DeepEqual(again, first) {
		t.Fatalf("the other front answered %+v, the first %+v", again, first)
	}
	if exs := rig.tap.take(); len(exs) != 0 {
		t.Fatalf("the resend to the other front made %d OSDM calls", len(exs))
	}
	if trains, live := liveTrains(rig.partnerBooking(booked.BookingRef)); strings.Join(trains, ",") != "9207" || live != 1 {
		t.Fatalf("partner: trains %v, %d live", trains, live)
	}
	partial := &legacy.CancelRequest{Header: legacy.Header{MessageID: journalMsgID("rp")}, BookingRef: booked.BookingRef, Places: first.Places[:1]}
	status, r = rig.mustSend(b, partial)
	pc := must[*legacy.CancelReply](t, status, r, http.StatusOK)
	rig.tap.take()
	status, r = rig.mustSend(a, partial)
	if again := must[*legacy.CancelReply](t, status, r, http.StatusOK); !reflect.DeepEqual(again, pc) || pc.Status != legacy.StatusPartiallyRefunded {
		t.Fatalf("the other front answered %+v, the first %+v", again, pc)
	}
	if exs := rig.tap.take(); len(exs) != 0 {
		t.Fatalf("the resend to the other front made %d OSDM calls", len(exs))
	}
}
