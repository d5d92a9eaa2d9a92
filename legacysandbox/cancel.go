package legacysandbox

import (
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// cancel answers a CancelRequest: the booking's places are freed and its
// price refunded, less Config.CancelFeePercent unless a reason code is
// given. Callers hold s.mu.
func (s *Sandbox) cancel(now time.Time, h legacy.ReplyHeader, m *legacy.CancelRequest) legacy.Reply {
	b := s.bookings.get(m.BookingRef)
	if b == nil {
		return legacy.NewNegativeReply(h, legacy.CodeBookingNotFound,
			"reservation system "+strconv.Itoa(s.cfg.System)+" holds no booking "+shortRef(m.BookingRef))
	}
	if b.cancelled() {
		nr := legacy.NewNegativeReply(h, legacy.CodeAlreadyCancelled,
			"booking "+b.ref+" was cancelled at "+b.cancelledAt.UTC().Format(time.RFC3339))
		nr.BookingRef = b.ref
		return nr
	}
	var fee int64
	if m.ReasonCode == nil && s.cfg.CancelFeePercent > 0 {
		fee = (b.price*int64(s.cfg.CancelFeePercent) + 50) / 100
	}
	s.inventory.release(b.run, b.index)
	b.cancelledAt = now
	b.refund, b.fee = b.price-fee, fee
	b.reasonCode = m.ReasonCode
	b.messageIDs = append(b.messageIDs, m.Header.MessageID)
	return &legacy.CancelReply{
		Header:       h,
		BookingRef:   b.ref,
		Status:       legacy.StatusRefunded,
		RefundAmount: s.money(b.refund),
		Fee:          s.money(b.fee),
	}
}
