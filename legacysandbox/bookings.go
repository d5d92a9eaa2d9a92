package legacysandbox

import (
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// booking is one booking the sandbox holds.
type booking struct {
	ref         string // BookingRef
	reservation string // ReservationReference
	tcn         string // TicketControlNumber
	run         runKey
	from, to    string
	departure   time.Time
	arrival     time.Time
	index       []int          // the places' indexes in run
	places      []legacy.Place // coach and number of each
	tariffs     []legacy.Tariff
	// placeTariff and placePrice are each place's tariff code and price
	// (cents): the tariffs in the order the request gave them, so place i
	// belongs to the i-th passenger of that order.
	placeTariff []int
	placePrice  []int64
	// freed marks the places cancelled (a partial cancellation frees
	// some; a whole one every place left).
	freed []bool
	// names are the passengers' personal data by place, the zero value
	// when not given.
	names      []legacy.Passenger
	passengers int
	price      int64 // cents
	createdAt  time.Time
	// cancelledAt is zero while the booking holds any place.
	cancelledAt time.Time
	refund, fee int64 // cents, of every cancellation so far
	// feeBase is the price (cents) of the places cancelled with a fee so
	// far, on which the fee is rounded.
	feeBase    int64
	reasonCode *int
	// rolledBack is set when a SynchroRequest with rollback undid it.
	rolledBack bool
	messageIDs []string
	// replies are the reply to each message that acted on the booking, by
	// its sender-scoped messageId: the booking records a SynchroRequest is
	// answered from, which outlive the reply cache.
	replies map[string]legacy.Reply
}

func (b *booking) cancelled() bool { return !b.cancelledAt.IsZero() }

// placeAmounts are the places' prices as decimal amounts of decimals
// decimals, in place order.
func (b *booking) placeAmounts(decimals int) []string {
	out := make([]string, len(b.placePrice))
	for i, p := range b.placePrice {
		out[i] = formatAmount(p, decimals)
	}
	return out
}

// held returns the indexes (in b.places) of the places still held.
func (b *booking) held() []int {
	var out []int
	for i := range b.places {
		if !b.freed[i] {
			out = append(out, i)
		}
	}
	return out
}

// record keeps reply as the answer to the message key acted on b.
func (b *booking) record(key string, reply legacy.Reply) {
	b.messageIDs = append(b.messageIDs, key[strings.IndexByte(key, '/')+1:])
	b.replies[key] = reply
}

// bookings holds the bookings by BookingRef, oldest first, the
// reservation references in use, and the booking each message acted on
// (by sender-scoped messageId).
type bookings struct {
	byRef        map[string]*booking
	order        []*booking
	reservations map[string]bool
	byMessage    map[string]*booking
}

func newBookings() *bookings {
	return &bookings{byRef: map[string]*booking{}, reservations: map[string]bool{}, byMessage: map[string]*booking{}}
}

// ofMessage returns the booking the message key (sender/messageId) acted
// on, and the reply it got; nil when none (never received, it made no
// booking, or the booking is gone).
func (bs *bookings) ofMessage(key string) (*booking, legacy.Reply) {
	b := bs.byMessage[key]
	if b == nil {
		return nil, nil
	}
	return b, b.replies[key]
}

// acted records that the message key acted on b with reply.
func (bs *bookings) acted(b *booking, key string, reply legacy.Reply) {
	b.record(key, reply)
	bs.byMessage[key] = b
}

func (bs *bookings) get(ref string) *booking { return bs.byRef[ref] }

// heldBooking is the booking ref names, or nil and the BOOKING_NOT_FOUND
// reply to a request naming a booking the sandbox does not hold. Callers
// hold s.mu.
func (s *Sandbox) heldBooking(h legacy.ReplyHeader, ref string) (*booking, legacy.Reply) {
	if b := s.bookings.get(ref); b != nil {
		return b, nil
	}
	return nil, legacy.NewNegativeReply(h, legacy.CodeBookingNotFound,
		"reservation system "+strconv.Itoa(s.cfg.System)+" holds no booking "+shortRef(ref))
}

func (bs *bookings) len() int { return len(bs.byRef) }

func (bs *bookings) add(b *booking) {
	bs.byRef[b.ref] = b
	bs.order = append(bs.order, b)
	bs.reservations[b.reservation] = true
}

// expire drops and returns the bookings whose train left, or which were
// cancelled, more than retention before now.
func (bs *bookings) expire(now time.Time, retention time.Duration) []*booking {
	var gone []*booking
	kept := bs.order[:0]
	for _, b := range bs.order {
		end := b.departure
		if b.cancelled() && b.cancelledAt.Before(end) {
			end = b.cancelledAt
		}
		if now.Sub(end) > retention {
			gone = append(gone, b)
			delete(bs.byRef, b.ref)
			delete(bs.reservations, b.reservation)
			for key := range b.replies {
				delete(bs.byMessage, key)
			}
			continue
		}
		kept = append(kept, b)
	}
	clear(bs.order[len(kept):])
	bs.order = kept
	return gone
}
