package converter

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// A legacy system reads a BookingReply's places in the order of its
// request: the first place is its first traveller's (the first place of
// its first Tariff), and so on. The partner groups places as it likes (by
// coach, by tariff), so the converter puts them back in the travellers'
// order: a booking's passengers carry the externalRefs p1..pN the
// converter gave them (travellers), each reservedPlace pairs its
// passengerIds with its placeNumbers position by position, as heldPlaces
// reads them for a partial cancellation.

// travellerRank returns, for each passenger id of b, its place among the
// travellers: k-1 for externalRef pk, else after them in b's order.
func travellerRank(b *osdm.Booking) map[string]int {
	rank := make(map[string]int, len(b.Passengers))
	for i, p := range b.Passengers {
		k, err := strconv.Atoi(strings.TrimPrefix(p.ExternalRef, "p"))
		if !strings.HasPrefix(p.ExternalRef, "p") || err != nil || k < 1 || k > legacy.MaxItems {
			k = legacy.MaxItems + 1 + i
		}
		rank[p.ID] = k - 1
	}
	return rank
}

// travellersOf returns b's passengers in the travellers' order
// (travellerRank): the legacy messages' passenger index i is the i-th.
func travellersOf(b *osdm.Booking) []osdm.Passenger {
	rank := travellerRank(b)
	pax := append([]osdm.Passenger(nil), b.Passengers...)
	sort.SliceStable(pax, func(i, j int) bool { return rank[pax[i].ID] < rank[pax[j].ID] })
	return pax
}

// placesInTravellerOrder returns the places of b's reservations (with
// live, of those that still hold their places), as a BookingReply names
// them, in the order of the travellers they were booked for; places whose
// passenger the partner does not name keep their order, after the others.
func placesInTravellerOrder(b *osdm.Booking, live bool) []legacy.Place {
	rank := travellerRank(b)
	rankOf := func(h heldPlace) int {
		if r, ok := rank[h.passengerID]; ok {
			return r
		}
		return len(rank) + legacy.MaxItems + 1
	}
	// Every booking reply walks this: the named places are kept in the
	// walk's own slice and sorted without reflection.
	named := bookedPlaces(b, live)
	n := 0
	for _, h := range named {
		if h.place.Number != "" {
			named[n] = h
			n++
		}
	}
	named = named[:n]
	if n == 0 {
		return nil
	}
	slices.SortStableFunc(named, func(x, y heldPlace) int { return cmp.Compare(rankOf(x), rankOf(y)) })
	places := make([]legacy.Place, min(n, legacy.MaxItems))
	for i := range places {
		places[i] = named[i].place
	}
	return places
}
