package legacysandbox

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// cancel answers a CancelRequest: the places it lists (a partial
// cancellation), or every place the booking still holds, are freed and
// their price refunded, less Config.CancelFeePercent unless a reason code
// is given (rounded half up to the cent on the running total of the places
// the booking's cancellations with a fee freed, so that partial
// cancellations keep, together, what one whole cancellation would). A place the booking does not hold, or no longer holds, is
// INVALID_MESSAGE naming it, and nothing is cancelled. Callers hold s.mu.
func (s *Sandbox) cancel(now time.Time, h legacy.ReplyHeader, m *legacy.CancelRequest) legacy.Reply {
	b, notFound := s.heldBooking(h, m.BookingRef)
	if b == nil {
		return notFound
	}
	if b.cancelled() {
		nr := legacy.NewNegativeReply(h, legacy.CodeAlreadyCancelled,
			"booking "+b.ref+" was cancelled at "+b.cancelledAt.UTC().Format(time.RFC3339))
		nr.BookingRef = b.ref
		return nr
	}
	held := b.held()
	partlyBefore := len(held) < len(b.places)
	which := held
	if len(m.Places) > 0 {
		which = which[:0:0]
		for _, p := range m.Places {
			i := b.placeIndex(p)
			if i < 0 || b.freed[i] {
				why := "does not hold"
				if i >= 0 {
					why = "no longer holds (cancelled before)"
				}
				nr := legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
					"booking "+b.ref+" "+why+" place "+shortRef(p.Coach)+"/"+shortRef(p.Number)+"; nothing was cancelled")
				nr.BookingRef = b.ref
				return nr
			}
			which = append(which, i)
		}
	}
	var price int64
	freed := make([]int, 0, len(which))
	places := make([]legacy.Place, 0, len(which))
	for _, i := range which {
		price += b.placePrice[i]
		b.freed[i] = true
		freed = append(freed, b.index[i])
		places = append(places, b.places[i])
	}
	var fee int64
	if m.ReasonCode == nil && s.cfg.CancelFeePercent > 0 {
		// Rounded on the running total of the places cancelled with a
		// fee, so that partial cancellations add up to a whole one.
		pct := int64(s.cfg.CancelFeePercent)
		fee = ((b.feeBase+price)*pct+50)/100 - (b.feeBase*pct+50)/100
		b.feeBase += price
	}
	s.inventory.release(b.run, freed)
	b.refund += price - fee
	b.fee += fee
	b.reasonCode = m.ReasonCode
	status := legacy.StatusRefunded
	if len(b.held()) == 0 {
		b.cancelledAt = now
	} else {
		status = legacy.StatusPartiallyRefunded
	}
	reply := &legacy.CancelReply{
		Header:       h,
		BookingRef:   b.ref,
		Status:       status,
		RefundAmount: s.money(price - fee),
		Fee:          s.money(fee),
	}
	if len(m.Places) > 0 || partlyBefore {
		reply.Places = places
	}
	return reply
}

// placeIndex is the index in b.places of p, -1 when b has no such place.
func (b *booking) placeIndex(p legacy.Place) int {
	for i, q := range b.places {
		if q == p {
			return i
		}
	}
	return -1
}
