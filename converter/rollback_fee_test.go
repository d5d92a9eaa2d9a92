package converter

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// TestRollbackRefusesAFee: a technical rollback undoes a booking without
// a fee. A partner whose refund offer under TECHNICAL_FAILURE keeps 2.00
// anyway is not confirmed: the offer is withdrawn, the booking stays
// fulfilled, and the NegativeReply names the fee, so no fee is kept that
// the legacy system was never told of. A rollback the partner makes free
// is carried out as before (TestSynchro).
func TestRollbackRefusesAFee(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "RF-B", 2)
	x.mu.Lock()
	x.rewrite = func(step Step, body []byte) []byte {
		if step != StepRefundOffers && step != StepRefundOffer {
			return body
		}
		// 20.00 refundable, no fee -> 18.00 refundable, 2.00 kept.
		body = bytes.Replace(body, []byte(`"refundFee":{"currency":"EUR","amount":0,"scale":2}`), []byte(`"refundFee":{"currency":"EUR","amount":200,"scale":2}`), 1)
		return bytes.Replace(body, []byte(`"refundableAmount":{"currency":"EUR","amount":2000,"scale":2}`), []byte(`"refundableAmount":{"currency":"EUR","amount":1800,"scale":2}`), 1)
	}
	x.mu.Unlock()
	mark := len(x.calls)
	res, _ := j.Do(context.Background(), &legacy.SynchroRequest{Header: legacy.Header{MessageID: "RF-1"}, OriginalMessageID: "RF-B", Rollback: true},
		encodedBody(t, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "RF-1"}, OriginalMessageID: "RF-B", Rollback: true}), x)
	if r, ok := res.Reply.(*legacy.SynchroReply); ok {
		t.Fatalf("rolled back with a fee: %+v (fee %+v)", r, r.Fee)
	}
	n, ok := res.Reply.(*legacy.NegativeReply)
	if !ok || n.Code != legacy.CodePartnerRejected || n.BookingRef != b.BookingRef || !strings.Contains(n.Text, "2.00 EUR") {
		t.Errorf("rollback with a fee answered %+v", res.Reply)
	}
	if got := strings.Join(x.steps(mark), ","); got != "booking,refund_offers,delete_refund_offer" {
		t.Errorf("steps %s, want the refund offer asked and withdrawn, never confirmed", got)
	}
	bk := x.booking(b.BookingRef)
	if bk.Fulfillments[0].Status != osdm.FulfillmentFulfilled {
		t.Errorf("partner after the refused rollback: %+v", bk.Fulfillments)
	}
}

// TestRollbackResumedRefusesAFee: a rollback whose process was killed
// after the partner made the refund offer (keeping 2.00), before it was
// withdrawn, is resent to a new process: the offer is read back, found to
// keep a fee, and withdrawn rather than confirmed.
func TestRollbackResumedRefusesAFee(t *testing.T) {
	s := storetest.NewMemory()
	ttl := func(c *JournalConfig) { c.ReplyTTL = time.Hour }
	j := testJournal(t, s, ttl)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "RK-B", 2)
	x.mu.Lock()
	x.rewrite = func(step Step, body []byte) []byte {
		body = bytes.Replace(body, []byte(`"refundFee":{"currency":"EUR","amount":0,"scale":2}`), []byte(`"refundFee":{"currency":"EUR","amount":200,"scale":2}`), -1)
		return bytes.Replace(body, []byte(`"refundableAmount":{"currency":"EUR","amount":2000,"scale":2}`), []byte(`"refundableAmount":{"currency":"EUR","amount":1800,"scale":2}`), -1)
	}
	x.mu.Unlock()
	msg := &legacy.SynchroRequest{Header: legacy.Header{MessageID: "RK-1"}, OriginalMessageID: "RK-B", Rollback: true}
	x.store, x.dieAt = s, StepDeleteRefundOffer
	sbDo(t, j, x, msg)
	x.revive()
	s.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	j2 := testJournal(t, s, ttl)
	mark := len(x.calls)
	res := sbDo(t, j2, x, msg)
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodePartnerRejected || !strings.Contains(n.Text, "2.00 EUR") {
		t.Errorf("resent rollback with a fee answered %+v", res.Reply)
	}
	if got := strings.Join(x.steps(mark), ","); strings.Contains(got, string(StepRefundOffer)+",") || strings.HasSuffix(got, ","+string(StepRefundOffer)) {
		t.Errorf("steps %s: the refund offer was confirmed", got)
	}
	if bk := x.booking(b.BookingRef); bk.Fulfillments[0].Status != osdm.FulfillmentFulfilled {
		t.Errorf("partner after the refused rollback: %+v", bk.Fulfillments)
	}
}
