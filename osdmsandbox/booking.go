package osdmsandbox

import (
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// bookingState is where a booking is in its life.
type bookingState int

const (
	statePrebooked bookingState = iota // holds places until its limit
	stateFulfilled                     // tickets issued, places sold
	stateRefunded                      // refund confirmed, places freed
	stateReleased                      // not fulfilled in time, places freed
	stateDeleted                       // deleted while provisional; gone for OSDM
)

// String names the state as the debug listing shows it.
func (st bookingState) String() string {
	switch st {
	case statePrebooked:
		return "PREBOOKED"
	case stateFulfilled:
		return "FULFILLED"
	case stateRefunded:
		return "REFUNDED"
	case stateReleased:
		return "RELEASED"
	}
	return "DELETED"
}

// partStatus is the OSDM status of the booking's parts in this state.
func (st bookingState) partStatus() osdm.BookingPartStatus {
	switch st {
	case stateFulfilled:
		return osdm.BookingPartFulfilled
	case stateRefunded:
		return osdm.BookingPartRefunded
	case stateReleased, stateDeleted:
		return osdm.BookingPartReleased
	}
	return osdm.BookingPartPrebooked
}

// maxKeysPerBooking bounds the idempotency keys a booking lists.
const maxKeysPerBooking = 8

// booking is a stored booking: about 700 bytes for one offer and two passengers.
type booking struct {
	id          string
	code        string
	externalRef string
	createdOn   time.Time
	limit       time.Time // confirmationTimeLimit
	state       bookingState
	// dropAt is when the booking is forgotten: Retention after it ended
	// (released, deleted, refunded, or fulfilled and arrived).
	dropAt      time.Time
	passengers  []osdm.Passenger
	parts       []*bookedPart
	fulfillment *osdm.Fulfillment
	// oldFulfillments are the fulfilments exchanges replaced (EXCHANGED).
	oldFulfillments []osdm.Fulfillment
	// exchanges are the booking's exchange operations.
	exchanges    []*exchangeOp
	refundOffers []*refundOffer
	keys         []string // Idempotency-Keys of the calls that acted on it
	// client is the client whose call made the booking (AnonymousClient
	// when none): only its calls see the booking and what hangs off it.
	client string
}

// bookedPart is one booked offer: its reservation and places.
type bookedPart struct {
	id      string
	offerID string
	// route is the trip of the offer booked, leg the index of this part's
	// train in it (journey is route[leg]).
	route        route
	leg          int
	journey      journey
	group        group
	passengerIDs []string
	price        int64
	places       []int // place indexes in the group, see place()
	held         bool  // the places are still taken in the inventory
	confirmedOn  *time.Time
	refunded     *int64
	// paxPrice is each passenger's share of price, as passengerIDs.
	paxPrice []int64
	// gone marks, as passengerIDs, the passengers refunded by a partial
	// refund: their places are free again.
	gone []bool
	// exchanged: an exchange replaced the part; its places are free.
	exchanged bool
}

// live reports whether passenger k of the part is still booked.
func (part *bookedPart) live(k int) bool { return k >= len(part.gone) || !part.gone[k] }

// liveCount is the number of passengers of the part still booked.
func (part *bookedPart) liveCount() int {
	n := 0
	for k := range part.passengerIDs {
		if part.live(k) {
			n++
		}
	}
	return n
}

// price is the total of the booking's parts, in cents.
func (b *booking) price() int64 {
	var total int64
	for _, p := range b.parts {
		if !p.exchanged {
			total += p.price
		}
	}
	return total
}

// lastArrival is when the last booked train arrives.
func (b *booking) lastArrival() time.Time {
	var last time.Time
	for _, p := range b.parts {
		if p.journey.arrival.After(last) {
			last = p.journey.arrival
		}
	}
	return last
}

// noteKey records an Idempotency-Key used on the booking, for the debug listing.
func (b *booking) noteKey(key string) {
	if key != "" && len(b.keys) < maxKeysPerBooking {
		b.keys = append(b.keys, key)
	}
}

// shortCode derives a code of n characters from id, in the alphabet of
// booking codes (no 0/O, 1/I).
func shortCode(id string, n int) string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	v := h.Sum64()
	out := make([]byte, n)
	for i := range out {
		out[i] = alphabet[v%uint64(len(alphabet))]
		v /= uint64(len(alphabet))
	}
	return string(out)
}

// osdm renders the booking as OSDM.
func (b *booking) osdm(operator string, capacity int) *osdm.Booking {
	out := &osdm.Booking{
		ID:               b.id,
		BookingCode:      b.code,
		ExternalRef:      b.externalRef,
		CreatedOn:        b.createdOn,
		Passengers:       b.passengers,
		ProvisionalPrice: ptr(price(b.price())),
	}
	if b.state == statePrebooked || b.state == stateReleased {
		out.ConfirmationTimeLimit = ptr(b.limit)
	} else {
		out.ConfirmedPrice = ptr(price(b.price()))
	}
	seenTrips := map[string]bool{}
	for i, part := range b.parts {
		if id := part.route.tripID(); !seenTrips[id] {
			seenTrips[id] = true
			out.Trips = append(out.Trips, part.route.trip(operator))
		}
		// The parts of one offer (one per leg) are one booked offer, with
		// the products the offer listed.
		prod := product(part.group, operator)
		if n := len(out.BookedOffers); n > 0 && out.BookedOffers[n-1].OfferID == part.offerID {
			last := &out.BookedOffers[n-1]
			last.Reservations = append(last.Reservations, part.reservation(b, i, operator, capacity))
			if !slices.ContainsFunc(last.Products, func(p osdm.Product) bool { return p.ID == prod.ID }) {
				last.Products = append(last.Products, prod)
			}
			continue
		}
		out.BookedOffers = append(out.BookedOffers, osdm.BookedOffer{
			OfferID:      part.offerID,
			Reservations: []osdm.Reservation{part.reservation(b, i, operator, capacity)},
			Products:     []osdm.Product{prod},
		})

	}
	out.Fulfillments = append(out.Fulfillments, b.oldFulfillments...)
	if b.fulfillment != nil {
		out.Fulfillments = append(out.Fulfillments, *b.fulfillment)
	}
	for _, ro := range b.refundOffers {
		out.RefundOffers = append(out.RefundOffers, ro.osdm(b))
	}
	return out
}

// reservation renders part number i of b.
func (part *bookedPart) reservation(b *booking, i int, operator string, capacity int) osdm.Reservation {
	j := part.journey
	tripID, leg := part.route.tripID(), legID(part.leg)
	coverage := osdm.TripLegCoverage{TripID: tripID, LegID: leg}
	prod := product(part.group, operator)
	r := osdm.Reservation{
		BookingPart: osdm.BookingPart{
			ObjectType:      osdm.ObjectTypeReservation,
			ID:              part.id,
			Summary:         serviceName(j.train) + " " + serviceClass(part.group).Name + " reservation",
			CreatedOn:       b.createdOn,
			ValidFrom:       j.departure,
			ValidUntil:      ptr(j.arrival),
			ConfirmedOn:     part.confirmedOn,
			Price:           price(part.price),
			TripCoverage:    &osdm.TripCoverage{CoveredTripID: tripID, CoveredLegIDs: []string{leg}},
			Status:          b.state.partStatus(),
			OfferMode:       osdm.OfferModeCollective,
			BookingPartCode: b.code + "-" + strconv.Itoa(i+1),
			PassengerIDs:    part.passengerIDs,
			Refundable:      refundable,
			Exchangeable:    exchangeable,
			Products:        []osdm.ProductLegAssociation{{ProductID: prod.ID, LegIDs: []string{leg}}},
		},
		PlaceAllocation: &osdm.PlaceAllocation{
			AccommodationType:    part.group.acc,
			AccommodationSubType: subType(part.group),
			ReservedPlaces:       reservedPlaces(part, capacity),
			TripLegCoverage:      coverage,
		},
	}
	switch {
	case part.exchanged:
		r.Status = osdm.BookingPartExchanged
	case part.liveCount() == 0 && b.state == stateFulfilled:
		// Every passenger of the part was refunded by partial refunds.
		r.Status = osdm.BookingPartRefunded
	}
	if b.state == statePrebooked {
		// Deprecated in favour of the booking's confirmationTimeLimit,
		// but required of a PREBOOKED part and still read by consumers.
		r.ConfirmableUntil = ptr(b.limit)
	}
	if part.refunded != nil {
		r.RefundAmount = ptr(price(*part.refunded))
	}
	return r
}

// reservedPlaces groups a part's places by coach, passengers in order.
func reservedPlaces(part *bookedPart, capacity int) []osdm.ReservedPlace {
	var out []osdm.ReservedPlace
	// A part every passenger of which was refunded shows the places it
	// had, as a part refunded whole does.
	all := part.liveCount() == 0
	for k, idx := range part.places {
		if !all && !part.live(k) {
			continue
		}
		coach, number := place(part.journey.train, part.group, idx, capacity)
		if n := len(out); n == 0 || out[n-1].CoachNumber != coach {
			out = append(out, osdm.ReservedPlace{
				ID:            part.id + "-c" + coach,
				VehicleNumber: part.journey.train,
				CoachNumber:   coach,
			})
		}
		last := &out[len(out)-1]
		last.PassengerIDs = append(last.PassengerIDs, part.passengerIDs[k])
		last.PlaceNumbers = append(last.PlaceNumbers, number)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
