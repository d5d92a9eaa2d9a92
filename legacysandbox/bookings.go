package legacysandbox

import (
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
	passengers  int
	price       int64 // cents
	createdAt   time.Time
	// cancelledAt is zero while the booking holds its places.
	cancelledAt time.Time
	refund, fee int64 // cents, once cancelled
	reasonCode  *int
	messageIDs  []string
}

func (b *booking) cancelled() bool { return !b.cancelledAt.IsZero() }

// bookings holds the bookings by BookingRef, oldest first, and the
// reservation references in use.
type bookings struct {
	byRef        map[string]*booking
	order        []*booking
	reservations map[string]bool
}

func newBookings() *bookings {
	return &bookings{byRef: map[string]*booking{}, reservations: map[string]bool{}}
}

func (bs *bookings) get(ref string) *booking { return bs.byRef[ref] }

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
			continue
		}
		kept = append(kept, b)
	}
	clear(bs.order[len(kept):])
	bs.order = kept
	return gone
}
