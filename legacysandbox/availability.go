package legacysandbox

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// availability answers an AvailabilityRequest or an informationOnly
// BookingRequest: one Offer for the class and service code asked, whose
// AvailablePlaces says how many are left (fewer than asked, even 0, when
// so: booking it is then NO_AVAILABILITY); no Offer when the train has no
// places of that service code. Callers hold s.mu.
func (s *Sandbox) availability(now time.Time, h legacy.ReplyHeader, j legacy.Journey, p legacy.PlaceRequest) legacy.Reply {
	t, refusal := s.check(now, h, j, p)
	if refusal != nil {
		return refusal
	}
	reply := &legacy.AvailabilityReply{
		Header:  h,
		Journey: legacy.EchoJourney(j, t.leg.Departure.Format("15:04"), t.leg.Arrival.Format("15:04")),
	}
	if !t.leg.offers(p.ServiceCode) {
		return reply
	}
	free := s.inventory.free(t.run)
	validUntil := now.Add(s.cfg.OfferTTL)
	if t.leg.Departure.Before(validUntil) {
		validUntil = t.leg.Departure
	}
	validUntil = validUntil.Truncate(time.Second)
	reply.Offers = []legacy.Offer{{
		OfferRef:        s.offerRef(j, p, validUntil),
		TravelClass:     p.TravelClass,
		ServiceCode:     p.ServiceCode,
		ServiceLevel:    p.ServiceLevel,
		Price:           s.money(t.price),
		AvailablePlaces: &free,
		ValidUntil:      validUntil,
	}}
	return reply
}
