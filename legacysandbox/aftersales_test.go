package legacysandbox

import (
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// The after-sales messages: partial cancellation, synchronisation (with
// rollback) and passenger data, each checked against the places left.

// free is the number of 2nd class seats left on train tomorrow.
func free(s *Sandbox, train string) int {
	return s.Available(train, tomorrow(), legacy.SecondClass, legacy.ServiceSeat)
}

// TestPartialCancel: the listed places only are freed and refunded
// (their tariffs' prices, less the fee); a place cancelled before or not
// the booking's is INVALID_MESSAGE and changes nothing; a later whole
// CancelRequest cancels what is left; a resend gets the same reply.
func TestPartialCancel(t *testing.T) {
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		t.Run(f.String(), func(t *testing.T) {
			s, _ := newSandbox(t, Config{})
			all := free(s, "9203")
			_, r := send(t, s, f, bookReq("b1", "9203", seats(legacy.Tariff{Code: 1, Count: 2}, legacy.Tariff{Code: 2, Count: 1})))
			br := as[*legacy.BookingReply](t, r)
			if free(s, "9203") != all-3 || len(br.Places) != 3 {
				t.Fatalf("booked: %d left, places %v", free(s, "9203"), br.Places)
			}
			// The child's place (the third: tariffs in the request's order).
			child := br.Places[2]
			c1 := &legacy.CancelRequest{Header: legacy.Header{MessageID: "c1"}, BookingRef: br.BookingRef, Places: []legacy.Place{child}}
			_, r = send(t, s, f, c1)
			cr := as[*legacy.CancelReply](t, r)
			fare := s.fares[[2]int{2, 1}]
			childPrice := (fare*50 + 50) / 100
			fee := (childPrice*10 + 50) / 100
			if cr.Status != legacy.StatusPartiallyRefunded || len(cr.Places) != 1 || cr.Places[0] != child ||
				cr.RefundAmount.Amount != formatAmount(childPrice-fee, 2) || cr.Fee.Amount != formatAmount(fee, 2) {
				t.Errorf("partial CancelReply %+v refund %+v fee %+v, want %s less %s", cr, cr.RefundAmount, cr.Fee, formatAmount(childPrice, 2), formatAmount(fee, 2))
			}
			if free(s, "9203") != all-2 {
				t.Errorf("after the partial cancel %d left, want %d", free(s, "9203"), all-2)
			}
			// The same message again: the same reply, nothing freed twice.
			_, r = send(t, s, f, c1)
			if again := as[*legacy.CancelReply](t, r); again.Status != cr.Status || free(s, "9203") != all-2 {
				t.Errorf("resend: %+v, %d left", again, free(s, "9203"))
			}
			// The place again under a new messageId, or a place not the booking's.
			for i, p := range []legacy.Place{child, {Coach: "99", Number: "1"}} {
				_, r = send(t, s, f, &legacy.CancelRequest{Header: legacy.Header{MessageID: "bad" + strconv.Itoa(i)}, BookingRef: br.BookingRef, Places: []legacy.Place{p}})
				negative(t, r, legacy.CodeInvalidMessage)
			}
			if free(s, "9203") != all-2 {
				t.Errorf("refused cancels freed places: %d left", free(s, "9203"))
			}
			info := s.Bookings()[0]
			if info.Status != legacy.StatusConfirmed || !info.Places[2].Cancelled || info.Places[0].Cancelled {
				t.Errorf("listing %+v", info)
			}
			// What is left: REFUNDED, those two places.
			_, r = send(t, s, f, cancelOf("c2", br.BookingRef, nil))
			cr = as[*legacy.CancelReply](t, r)
			if cr.Status != legacy.StatusRefunded || len(cr.Places) != 2 || free(s, "9203") != all {
				t.Errorf("rest cancelled: %+v, %d left of %d", cr, free(s, "9203"), all)
			}
			_, r = send(t, s, f, cancelOf("c3", br.BookingRef, nil))
			negative(t, r, legacy.CodeAlreadyCancelled)
			// Every place listed is a whole cancellation.
			_, r = send(t, s, f, bookReq("b2", "9203", adults(2)))
			br = as[*legacy.BookingReply](t, r)
			_, r = send(t, s, f, &legacy.CancelRequest{Header: legacy.Header{MessageID: "c4"}, BookingRef: br.BookingRef, Places: br.Places})
			if cr := as[*legacy.CancelReply](t, r); cr.Status != legacy.StatusRefunded || free(s, "9203") != all {
				t.Errorf("every place listed: %+v", cr)
			}
		})
	}
}

// TestSynchro: a SynchroRequest is answered from the booking records,
// also once the reply cache forgot the message (where a resend would book
// again); UNKNOWN for a message never received; rollback frees every place
// without a fee, once.
func TestSynchro(t *testing.T) {
	s, _ := newSandbox(t, Config{MaxEntries: 3})
	all := free(s, "9203")
	br := as[*legacy.BookingReply](t, handle(s, bookReq("b1", "9203", adults(2))))
	for i := range 4 { // searches push b1 out of the reply cache
		handle(s, availability("a"+strconv.Itoa(i), "9203", adults(1)))
	}
	sync := func(id, orig string, rollback bool) *legacy.SynchroReply {
		t.Helper()
		_, r := send(t, s, legacy.XML, &legacy.SynchroRequest{Header: legacy.Header{MessageID: id}, OriginalMessageID: orig, Rollback: rollback})
		return as[*legacy.SynchroReply](t, r)
	}
	sr := sync("s1", "b1", false)
	got, ok := sr.Reply.(*legacy.BookingReply)
	if sr.State != legacy.StateDone || sr.OriginalMessageID != "b1" || !ok || got.BookingRef != br.BookingRef || len(got.Places) != 2 {
		t.Errorf("SynchroReply %+v reply %#v", sr, sr.Reply)
	}
	if sr := sync("s2", "never-sent", false); sr.State != legacy.StateUnknown || sr.Reply != nil {
		t.Errorf("unknown message: %+v", sr)
	}
	// A cancel of one place: DONE with its CancelReply.
	c := as[*legacy.CancelReply](t, handle(s, &legacy.CancelRequest{Header: legacy.Header{MessageID: "c1"}, BookingRef: br.BookingRef, Places: br.Places[:1]}))
	if sr := sync("s3", "c1", false); sr.State != legacy.StateDone || sr.Reply.(*legacy.CancelReply).Status != c.Status {
		t.Errorf("cancel's SynchroReply %+v", sr)
	}
	// Rollback of the booking: the place left freed, no fee.
	_, r := send(t, s, legacy.XML, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "s4"}, OriginalMessageID: "c1", Rollback: true})
	negative(t, r, legacy.CodeInvalidMessage)
	// b1 was partly cancelled since: a technical rollback no longer
	// applies, and nothing changes.
	_, r = send(t, s, legacy.XML, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "s5"}, OriginalMessageID: "b1", Rollback: true})
	if nr := negative(t, r, legacy.CodeInvalidMessage); !strings.Contains(nr.Text, "partly cancelled since") || free(s, "9203") != all-1 {
		t.Errorf("rollback of a partly cancelled booking: %+v, %d left of %d", nr, free(s, "9203"), all)
	}
	// A rollback naming itself would wait for itself: refused.
	_, r = send(t, s, legacy.XML, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "s5b"}, OriginalMessageID: "s5b", Rollback: true})
	negative(t, r, legacy.CodeInvalidMessage)
	// Rollback of a booking nothing happened to: every place freed, no fee.
	as[*legacy.BookingReply](t, handle(s, bookReq("b2", "9203", adults(2))))
	sr = sync("s5c", "b2", true)
	price := 2 * ((s.fares[[2]int{2, 1}]*100 + 50) / 100)
	if sr.State != legacy.StateRolledBack || sr.Fee == nil || sr.Fee.Amount != "0.00" || sr.RefundAmount.Amount != formatAmount(price, 2) || free(s, "9203") != all-1 {
		t.Errorf("rollback %+v refund %+v, %d left of %d", sr, sr.RefundAmount, free(s, "9203"), all)
	}
	if info := s.Bookings()[1]; info.Status != legacy.StatusCancelled || info.ReasonCode == nil || *info.ReasonCode != RollbackReasonCode {
		t.Errorf("rolled back booking listed %+v", info)
	}
	if sr := sync("s6", "b2", false); sr.State != legacy.StateRolledBack || free(s, "9203") != all-1 {
		t.Errorf("after rollback: %+v", sr)
	}
	// The sender scopes the messageId: another system's b1 is unknown.
	_, r = send(t, s, legacy.JSON, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "s7", Sender: 87}, OriginalMessageID: "b1"})
	if sr := as[*legacy.SynchroReply](t, r); sr.State != legacy.StateUnknown {
		t.Errorf("another sender's message: %+v", sr)
	}
}

// TestSynchroRollbackOfACancelledBooking: a rollback of a booking wholly
// cancelled since (its places freed by a CancelRequest) is
// ALREADY_CANCELLED naming it, as a CancelRequest would be: nothing is
// rolled back, the cancellation's fee stands, and the booking message
// still reads DONE.
func TestSynchroRollbackOfACancelledBooking(t *testing.T) {
	s, _ := newSandbox(t, Config{})
	br := as[*legacy.BookingReply](t, handle(s, bookReq("b1", "9203", adults(2))))
	cr := as[*legacy.CancelReply](t, handle(s, cancelOf("c1", br.BookingRef, nil)))
	before := s.Bookings()[0]
	_, r := send(t, s, legacy.XML, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "s1"}, OriginalMessageID: "b1", Rollback: true})
	if nr := negative(t, r, legacy.CodeAlreadyCancelled); nr.BookingRef != br.BookingRef || !strings.Contains(nr.Text, "nothing was rolled back") {
		t.Errorf("rollback of a cancelled booking: %+v", nr)
	}
	if after := s.Bookings()[0]; after.Fee != before.Fee || after.Fee != cr.Fee.Amount || after.Refund != before.Refund || after.ReasonCode != nil {
		t.Errorf("the booking after the refused rollback: %+v (before %+v)", after, before)
	}
	_, r = send(t, s, legacy.XML, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "s2"}, OriginalMessageID: "b1"})
	if sr := as[*legacy.SynchroReply](t, r); sr.State != legacy.StateDone {
		t.Errorf("the booking message after the refused rollback: %+v", sr)
	}
}

// TestPassengerData: names and dates of birth are set by index and listed;
// a date of birth of another tariff, an unknown index or a cancelled place
// is INVALID_MESSAGE and nothing changes.
func TestPassengerData(t *testing.T) {
	s, _ := newSandbox(t, Config{})
	req := bookReq("b1", "9203", seats(legacy.Tariff{Code: 1, Count: 1}, legacy.Tariff{Code: 2, Count: 1}))
	req.Passengers = []legacy.Passenger{{FirstName: "Ada", LastName: "Lovelace"}}
	br := as[*legacy.BookingReply](t, handle(s, req))
	pd := func(id string, ps ...legacy.PassengerData) legacy.Reply {
		_, r := send(t, s, legacy.JSON, &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: id}, BookingRef: br.BookingRef, Passengers: ps})
		return r
	}
	r := as[*legacy.PassengerDataReply](t, pd("p1", legacy.PassengerData{Index: 2, FirstName: "Byron", LastName: "King", DateOfBirth: "2022-01-31"}))
	if len(r.Passengers) != 2 || r.Passengers[0].LastName != "Lovelace" || r.Passengers[1].LastName != "King" || r.Passengers[1].Index != 2 {
		t.Errorf("PassengerDataReply %+v", r)
	}
	names := s.Bookings()[0].Names
	if len(names) != 2 || names[1].FirstName != "Byron" || names[1].DateOfBirth != "2022-01-31" || s.Bookings()[0].Passengers != 2 {
		t.Errorf("listing names %+v", names)
	}
	// The child (tariff 2, 0..17) born 1990 would be an adult: refused.
	negative(t, pd("p2", legacy.PassengerData{Index: 1, LastName: "Hopper"}, legacy.PassengerData{Index: 2, DateOfBirth: "1990-05-01"}), legacy.CodeInvalidMessage)
	negative(t, pd("p3", legacy.PassengerData{Index: 3, LastName: "Nobody"}), legacy.CodeInvalidMessage)
	if names := s.Bookings()[0].Names; names[0].LastName != "Lovelace" || names[1].DateOfBirth != "2022-01-31" {
		t.Errorf("a refused change was applied: %+v", names)
	}
	handle(s, &legacy.CancelRequest{Header: legacy.Header{MessageID: "c1"}, BookingRef: br.BookingRef, Places: br.Places[1:]})
	negative(t, pd("p4", legacy.PassengerData{Index: 2, LastName: "Gone"}), legacy.CodeInvalidMessage)
	sr := as[*legacy.SynchroReply](t, handle(s, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "s1"}, OriginalMessageID: "p1"}))
	if sr.State != legacy.StateDone || sr.Reply.Kind() != legacy.KindPassengerDataReply {
		t.Errorf("SynchroReply about a PassengerDataRequest %+v", sr)
	}
}
