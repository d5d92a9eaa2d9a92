package legacysandbox

import (
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// passengerData answers a PassengerDataRequest: the named passengers'
// personal data is set (an item left out stays as it was), and the reply
// lists every passenger of the booking. A passenger is a place, in booking
// order (index 1 is the first place). An index the booking does not have,
// a place cancelled, a train that has left, or a date of birth outside the
// age range of the place's tariff (Config.TariffAges, on the day of
// travel) is INVALID_MESSAGE, and nothing is changed. Callers hold s.mu.
func (s *Sandbox) passengerData(now time.Time, h legacy.ReplyHeader, m *legacy.PassengerDataRequest) legacy.Reply {
	b, notFound := s.heldBooking(h, m.BookingRef)
	if b == nil {
		return notFound
	}
	refuse := func(code legacy.Code, text string) legacy.Reply {
		nr := legacy.NewNegativeReply(h, code, text+"; nothing was changed")
		nr.BookingRef = b.ref
		return nr
	}
	if b.cancelled() {
		return refuse(legacy.CodeAlreadyCancelled, "booking "+b.ref+" was cancelled")
	}
	if !b.departure.After(now) {
		return refuse(legacy.CodeInvalidMessage, "the train of booking "+b.ref+" has left: personal data is set before departure")
	}
	for _, p := range m.Passengers {
		i := p.Index - 1
		if i < 0 || i >= len(b.places) {
			return refuse(legacy.CodeInvalidMessage, fmt.Sprintf("booking %s has no passenger %d (it has %d)", b.ref, p.Index, len(b.places)))
		}
		if b.freed[i] {
			return refuse(legacy.CodeInvalidMessage, fmt.Sprintf("passenger %d of booking %s was cancelled", p.Index, b.ref))
		}
		if p.DateOfBirth == "" {
			continue
		}
		r, ok := s.cfg.TariffAges[b.placeTariff[i]]
		if !ok {
			continue
		}
		age, ok := legacy.AgeOn(p.DateOfBirth, b.departure)
		if !ok || age < r.Min || age > r.Max {
			return refuse(legacy.CodeInvalidMessage, fmt.Sprintf(
				"passenger %d was booked at tariff %d, for ages %d..%d; born %s they would be %d on the day of travel, another tariff",
				p.Index, b.placeTariff[i], r.Min, r.Max, p.DateOfBirth, age))
		}
	}
	for _, p := range m.Passengers {
		n := &b.names[p.Index-1]
		if p.FirstName != "" {
			n.FirstName = p.FirstName
		}
		if p.LastName != "" {
			n.LastName = p.LastName
		}
		if p.DateOfBirth != "" {
			n.DateOfBirth = p.DateOfBirth
		}
	}
	return &legacy.PassengerDataReply{Header: h, BookingRef: b.ref, Passengers: b.passengerData()}
}

// passengerData lists the booking's passengers as stored, by place.
func (b *booking) passengerData() []legacy.PassengerData {
	out := make([]legacy.PassengerData, len(b.names))
	for i, n := range b.names {
		out[i] = legacy.PassengerData{Index: i + 1, FirstName: n.FirstName, LastName: n.LastName, DateOfBirth: n.DateOfBirth}
	}
	return out
}
