package legacysandbox

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// book answers a BookingRequest. Callers hold s.mu.
func (s *Sandbox) book(now time.Time, h legacy.ReplyHeader, m *legacy.BookingRequest) legacy.Reply {
	if m.ExchangeOf != "" {
		return legacy.NewNegativeReply(h, legacy.CodeExchangeNotSupported,
			"exchange of booking "+shortRef(m.ExchangeOf)+" is not supported; cancel it and book anew")
	}
	if m.InformationOnly {
		return s.availability(now, h, m.Journey, m.Places)
	}
	t, refusal := s.check(now, h, m.Journey, m.Places)
	if refusal != nil {
		return refusal
	}
	if m.OfferRef != "" {
		if r := s.checkOfferRef(now, h, m); r != nil {
			return r
		}
	}
	p := m.Places
	if !t.leg.offers(p.ServiceCode) {
		return legacy.NewNegativeReply(h, legacy.CodeNoAvailability,
			fmt.Sprintf("train %s has no %ss", m.Journey.TrainNumber, legacy.ServiceName(p.ServiceCode)))
	}
	n := p.Places()
	if free := s.inventory.free(t.run); free < n {
		return legacy.NewNegativeReply(h, legacy.CodeNoAvailability, fmt.Sprintf(
			"train %s on %s has %d %s %ss left, %d asked for",
			m.Journey.TrainNumber, t.leg.ServiceDate, free, legacy.ClassName(p.TravelClass), legacy.ServiceName(p.ServiceCode), n))
	}
	if s.bookings.len() >= s.cfg.MaxEntries {
		nr := legacy.NewNegativeReply(h, legacy.CodeNoAvailability, fmt.Sprintf(
			"reservation system %d holds its maximum of %d bookings; try again when some have been cancelled or travelled",
			s.cfg.System, s.cfg.MaxEntries))
		nr.Retryable = true
		return nr
	}
	idx := s.inventory.take(t.run, n)
	b := &booking{
		ref:         s.newRef(),
		reservation: s.newReservationReference(),
		tcn:         newTicketControlNumber(),
		run:         t.run,
		from:        m.Journey.From,
		to:          m.Journey.To,
		departure:   t.leg.Departure,
		arrival:     t.leg.Arrival,
		index:       idx,
		tariffs:     append([]legacy.Tariff(nil), p.Tariffs...),
		passengers:  len(m.Passengers),
		price:       t.price,
		createdAt:   now,
		replies:     map[string]legacy.Reply{},
		freed:       make([]bool, n),
		names:       make([]legacy.Passenger, n),
	}
	for _, i := range idx {
		b.places = append(b.places, placeOf(t.run, t.leg.Services, i, s.cfg.Capacity))
	}
	fare := s.fares[[2]int{p.TravelClass, p.ServiceCode}]
	for _, tf := range p.Tariffs {
		for range tf.Count {
			b.placeTariff = append(b.placeTariff, tf.Code)
			b.placePrice = append(b.placePrice, (fare*int64(s.cfg.Tariffs[tf.Code])+50)/100)
		}
	}
	copy(b.names, m.Passengers)
	s.bookings.add(b)
	return &legacy.BookingReply{
		Header:               h,
		BookingRef:           b.ref,
		ReservationReference: b.reservation,
		Status:               legacy.StatusConfirmed,
		Price:                s.money(b.price),
		Places:               append([]legacy.Place(nil), b.places...),
		PlaceAmounts:         b.placeAmounts(s.decimals()),
		TicketControlNumber:  b.tcn,
	}
}

// referenceAlphabet has no letters a person confuses with digits.
const referenceAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// newReservationReference returns a 6-character reference not in use.
// Callers hold s.mu.
func (s *Sandbox) newReservationReference() string {
	for {
		var b [6]byte
		for i := range b {
			b[i] = referenceAlphabet[rand.IntN(len(referenceAlphabet))]
		}
		if ref := string(b[:]); !s.bookings.reservations[ref] {
			return ref
		}
	}
}

// newTicketControlNumber returns 12 digits, the last a Luhn check digit.
func newTicketControlNumber() string {
	digits := strconv.FormatInt(10_000_000_000+rand.Int64N(90_000_000_000), 10) // 11 digits
	sum := 0
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if (len(digits)-1-i)%2 == 0 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return digits + strconv.Itoa((10-sum%10)%10)
}
