package integration

import (
	"net/http"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestJournalWaitTimeoutNotCached: two fronts on one Redis; the first is
// killed with SIGKILL while its fulfilment is on the way. The resend to
// the second waits its timeout for the dead front's lease and is told
// PARTNER_TIMEOUT ("send it again later"). The second front then settles
// the exchange itself once the lease has run out; the next resend to it
// gets the settled reply naming the booking, not the timeout again from
// its reply cache.
func TestJournalWaitTimeoutNotCached(t *testing.T) {
	rig := newJournalRig(t, redisStore(t), "\t\t\ttimeout 2s\n\t\t\tsettle_interval 200ms\n")
	a, b := rig.front(), rig.front()
	id := journalMsgID("wait")
	rig.killOnStep(a, id, converter.StepFulfillments)
	if _, r, err := rig.send(a, searchBooking(id)); err == nil {
		t.Fatalf("the first front answered %+v; it should have died", r)
	}
	status, r := rig.mustSend(b, searchBooking(id))
	if n := must[*legacy.NegativeReply](t, status, r, legacy.CodePartnerTimeout.HTTPStatus()); n.Code != legacy.CodePartnerTimeout || !n.Retryable {
		t.Fatalf("resend while the dead front's lease holds: %+v", n)
	}
	// The lease of the dead front runs out (timeout 2s + 30s of grace
	// periods); the second front's settlement then deletes the booking it
	// never confirmed.
	deadline := time.Now().Add(90 * time.Second)
	var bk sandboxBookingView
	for {
		if bk = rig.oneBooking(id); bk.Status != "PREBOOKED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the booking left by the dead front is still %s", bk.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The outcome is recorded right after the partner's answer; a resend
	// in between waits for settlement's lease and may time out again
	// under load. A timeout kept in the reply cache would be answered to
	// every resend until the deadline.
	for {
		status, r = rig.mustSend(b, searchBooking(id))
		n, timedOut := r.(*legacy.NegativeReply)
		if !timedOut || n.Code != legacy.CodePartnerTimeout {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("resends after settlement still get %+v: a timeout was kept", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	switch r := r.(type) {
	case *legacy.NegativeReply:
		if r.Code != legacy.CodeBookingRolledBack || r.BookingRef != bk.ID || bk.Status != "DELETED" {
			t.Fatalf("resend after settlement: %d %+v, partner %+v", status, r, bk)
		}
	case *legacy.BookingReply:
		if r.BookingRef != bk.ID || bk.Status != "FULFILLED" || status != http.StatusOK {
			t.Fatalf("resend after settlement: %d %+v, partner %+v", status, r, bk)
		}
	default:
		t.Fatalf("resend after settlement: %d %T %+v", status, r, r)
	}
}
