package legacy

import "testing"

func TestWithNamespaceCopiesAndLeavesTheKeptReply(t *testing.T) {
	inner := &NegativeReply{Code: CodeInvalidMessage, Text: "x"}
	kept := &SynchroReply{OriginalMessageID: "m1", State: StateDone, Reply: inner}
	got := WithNamespace(kept, true).(*SynchroReply)
	if got == kept || !got.Header.Namespaced || !got.Reply.ReplyHeader().Namespaced {
		t.Fatalf("WithNamespace(true) = %+v, want a namespaced copy with a namespaced nested reply", got)
	}
	if kept.Header.Namespaced || inner.Header.Namespaced {
		t.Fatal("WithNamespace changed the reply it was given")
	}
	if again := WithNamespace(got, true); again != Reply(got) {
		t.Fatal("WithNamespace copied a reply already in the form asked")
	}
	b := &TicketReply{BookingRef: "B1"}
	if c := WithNamespace(b, true).(*TicketReply); !c.Header.Namespaced || c.BookingRef != "B1" || b.Header.Namespaced {
		t.Fatalf("TicketReply: got %+v, original %+v", c, b)
	}
}
