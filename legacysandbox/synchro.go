package legacysandbox

import (
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// RollbackReasonCode is the reason code a rollback records on the booking
// it undoes (1, TECHNICAL_FAILURE in the default reason tables).
const RollbackReasonCode = 1

// synchro answers a SynchroRequest from the booking records, which
// outlive the reply cache: DONE with the original reply when the message
// acted on a booking still kept (or the reply cache still holds its
// reply), UNKNOWN when neither knows it. With rollback the booking a
// BookingRequest made is undone: every place it holds is freed without a
// fee, and the reply says ROLLED_BACK with the amounts; a booking that was
// partly cancelled since is refused (INVALID_MESSAGE saying so), as is a
// rollback naming its own messageId; one wholly cancelled since is
// ALREADY_CANCELLED, as a CancelRequest would be. Callers hold s.mu.
func (s *Sandbox) synchro(now time.Time, h legacy.ReplyHeader, m *legacy.SynchroRequest) legacy.Reply {
	if m.OriginalMessageID == m.Header.MessageID {
		return legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
			"SynchroRequest "+shortRef(m.OriginalMessageID)+" names its own messageId as OriginalMessageId: name the message whose outcome is asked")
	}
	key := strconv.Itoa(m.Header.Sender) + "/" + m.OriginalMessageID
	out := &legacy.SynchroReply{Header: h, OriginalMessageID: m.OriginalMessageID, State: legacy.StateUnknown}
	b, orig := s.bookings.ofMessage(key)
	if b == nil {
		// A message that acted on no booking (a refusal, a search): the
		// reply cache may still know its reply.
		if r, ok := s.replies.get(key); ok {
			if _, synchro := r.reply.(*legacy.SynchroReply); !synchro {
				out.State, out.Reply = legacy.StateDone, r.reply
			}
		}
		if m.Rollback && out.State == legacy.StateDone {
			return legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
				"message "+shortRef(m.OriginalMessageID)+" made no booking: there is nothing to roll back")
		}
		return out
	}
	_, made := orig.(*legacy.BookingReply)
	switch {
	case b.rolledBack && made:
		out.State, out.Reply = legacy.StateRolledBack, orig
		out.RefundAmount, out.Fee = s.money(b.refund), s.money(0)
		return out
	case !m.Rollback:
		out.State, out.Reply = legacy.StateDone, orig
		return out
	case !made:
		return legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
			"message "+shortRef(m.OriginalMessageID)+" made no booking ("+string(orig.Kind())+"): only a BookingRequest's booking is rolled back")
	case len(b.held()) == 0:
		// Wholly cancelled since: nothing is held, nothing to undo.
		nr := legacy.NewNegativeReply(h, legacy.CodeAlreadyCancelled,
			"booking "+b.ref+" of message "+shortRef(m.OriginalMessageID)+" was cancelled since it was made: it holds no place, and nothing was rolled back")
		nr.BookingRef = b.ref
		return nr
	case len(b.held()) < len(b.places):
		// A technical rollback undoes what the booking message did, and
		// only while nothing has happened to its places since.
		nr := legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
			"booking "+b.ref+" of message "+shortRef(m.OriginalMessageID)+" was partly cancelled since it was made: a technical rollback undoes a booking only while nothing has happened to it since; cancel what is left with a CancelRequest")
		nr.BookingRef = b.ref
		return nr
	}
	var refund int64
	var freed []int
	for _, i := range b.held() {
		refund += b.placePrice[i]
		b.freed[i] = true
		freed = append(freed, b.index[i])
	}
	s.inventory.release(b.run, freed)
	if !b.cancelled() {
		b.cancelledAt = now
		rc := RollbackReasonCode
		b.reasonCode = &rc
	}
	b.refund += refund
	b.rolledBack = true
	b.messageIDs = append(b.messageIDs, m.Header.MessageID)
	out.State, out.Reply = legacy.StateRolledBack, orig
	out.RefundAmount, out.Fee = s.money(refund), s.money(0)
	return out
}
