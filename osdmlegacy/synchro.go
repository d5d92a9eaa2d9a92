package osdmlegacy

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// A message whose answer was lost is never simply sent again: the legacy
// system may have carried it out and forgotten its messageId since (its
// reply cache is bounded), and a resent BookingRequest would then book a
// second time. redeliver asks first with a SynchroRequest, which the
// legacy system answers from its booking records.

// synchroID is the messageId of a SynchroRequest about msgID, new for
// each ask (the answer changes as the original message goes on).
func synchroID(msgID string, now time.Time) string {
	return msgID + ".sync." + strconv.FormatInt(now.UnixNano(), 36)
}

// redeliver settles rec's pending message, which may have left before: a
// SynchroRequest asks what became of it, and its outcome is recorded from
// the answer (DONE: the original reply; ROLLED_BACK: nothing is held). The
// message itself is sent again only when the legacy system says it never
// got it (UNKNOWN), or takes no SynchroRequest (UNSUPPORTED_MESSAGE: a
// version 1 system, which de-duplicates a resend by its messageId).
func (s *settlement) redeliver(ctx context.Context, send Sender, rec *bookingRecord) (*bookingRecord, *delivery) {
	p := rec.Pending
	d := &delivery{}
	now := s.now()
	ask := &legacy.SynchroRequest{
		Header:            legacy.Header{MessageID: synchroID(p.MessageID, now), SentAt: now.UTC().Truncate(time.Second)},
		OriginalMessageID: p.MessageID,
	}
	lost := func(err error) (*bookingRecord, *delivery) {
		d.lost = err
		s.dropLease(ctx, rec.ID, p.MessageID)
		return rec, d
	}
	garbage := func(why string) (*bookingRecord, *delivery) {
		return lost(&SendError{Kind: ErrLegacyGarbage, Err: errors.New(why)})
	}
	reply, err := send.Send(ctx, ask)
	if err != nil {
		return lost(err)
	}
	if c := reply.ReplyHeader().CorrelationID; c != "" && c != ask.Header.MessageID {
		return garbage("reply to another message")
	}
	switch r := reply.(type) {
	case *legacy.SynchroReply:
		if r.OriginalMessageID != "" && r.OriginalMessageID != p.MessageID {
			return garbage("SynchroReply about another message")
		}
		switch r.State {
		case legacy.StateUnknown:
			return s.deliver(ctx, send, rec)
		case legacy.StateDone:
			if r.Reply == nil {
				return garbage("SynchroReply DONE without the reply")
			}
			return s.recordReply(ctx, rec, r.Reply, nil, d)
		case legacy.StateRolledBack:
			return s.recordReply(ctx, rec, rolledBack(p, r), nil, d)
		case legacy.StateInProgress:
			return lost(&SendError{Kind: ErrLegacySlow, Err: errors.New("the legacy system is still carrying out message " + p.MessageID)})
		}
		return garbage("SynchroReply state " + strconv.Quote(shorten(r.State, 20)))
	case *legacy.NegativeReply:
		if r.Code == legacy.CodeUnsupportedMessage {
			return s.deliver(ctx, send, rec)
		}
		return lost(&SendError{Kind: ErrLegacyGarbage, Err: errors.New("the SynchroRequest was refused: " + string(r.Code))})
	}
	return garbage(string(reply.Kind()) + " does not answer a SynchroRequest")
}

// rolledBack is the reply that stands for a message whose booking was
// rolled back at the legacy system: nothing is held any more. A
// BookingRequest (a booking's, or an exchange's of its new places, which
// leaves the booking as it was) is then refused (BOOKING_ROLLED_BACK); any
// later message of the booking finds it cancelled (ALREADY_CANCELLED).
func rolledBack(p *pendingMessage, r *legacy.SynchroReply) legacy.Reply {
	h := legacy.ReplyHeader{CorrelationID: p.MessageID, SentAt: r.Header.SentAt}
	if p.Step == stepBook || p.Step == stepExchangeBook {
		return legacy.NewNegativeReply(h, legacy.CodeBookingRolledBack, "the booking was rolled back at the reservation system")
	}
	return legacy.NewNegativeReply(h, legacy.CodeAlreadyCancelled, "the booking was rolled back at the reservation system")
}
