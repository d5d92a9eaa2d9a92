package osdmlegacy

import (
	"fmt"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// bookingView is the OSDM booking of a record: every answer about a
// booking is built here, from the store alone.
func (b *bookings) bookingView(rec *bookingRecord) *osdm.Booking {
	view := &osdm.Booking{
		ID:          rec.ID,
		ExternalRef: rec.ExternalRef,
		CreatedOn:   rec.CreatedOn,
		Summary:     fmt.Sprintf("Reservation on train %s on %s, %s", rec.Offer.Train, rec.Offer.ServiceDate, b.cfg.Partner),
	}
	for i := range rec.Passengers {
		view.Passengers = append(view.Passengers, passengerView(&rec.Passengers[i]))
	}
	status := partStatus(rec)
	price := rec.bookedPrice()
	if rec.Legacy != nil {
		view.BookingCode = rec.Legacy.ReservationReference
	}
	switch status {
	case osdm.BookingPartPrebooked:
		p := price
		view.ProvisionalPrice = &p
		limit := rec.HoldUntil
		view.ConfirmationTimeLimit = &limit
	case osdm.BookingPartFulfilled, osdm.BookingPartRefunded:
		// What the customer keeps paying: the price less what was refunded.
		kept := price
		if refunded, ok := rec.refundedTotal(); ok {
			sc := max(price.EffectiveScale(), refunded.EffectiveScale())
			kept = osdm.NewPrice(rescale(price, sc)-rescale(refunded, sc), sc, price.Currency)
		}
		view.ConfirmedPrice = &kept
	}
	view.BookedOffers = []osdm.BookedOffer{b.bookedOffer(rec, status, price)}
	view.Trips = []osdm.Trip{tripView(&rec.Offer)}
	view.Fulfillments = fulfillmentsView(rec)
	for i := range rec.RefundOffers {
		view.RefundOffers = append(view.RefundOffers, refundOfferView(rec, &rec.RefundOffers[i]))
	}
	return view
}

// partStatus is the OSDM status of the booking's reservation.
func partStatus(rec *bookingRecord) osdm.BookingPartStatus {
	s := rec.State
	if (s == stateCancelling || s == stateUpdating || s == stateExchanging) && rec.Pending != nil {
		s = rec.Pending.Revert
	}
	switch s {
	case statePrebooked:
		return osdm.BookingPartPrebooked
	case stateFulfilled:
		return osdm.BookingPartFulfilled
	case stateCancelled:
		return osdm.BookingPartCancelled
	case stateReleased:
		return osdm.BookingPartReleased
	case stateRefunded:
		return osdm.BookingPartRefunded
	}
	return osdm.BookingPartError
}

// reservationID is the id of the booking's one reservation part: the id
// of the offer part it booked, so a consumer matches the two (a record
// kept from before offer part ids were stored gets one from the booking).
func reservationID(rec *bookingRecord) string {
	if rec.Offer.PartID != "" {
		return rec.Offer.PartID
	}
	return "rs-" + strings.TrimPrefix(rec.ID, bookingIDPrefix)
}

// bookedOffer is the booking's one booked offer: one reservation for all
// passengers, with the places the BookingReply gave.
func (b *bookings) bookedOffer(rec *bookingRecord, status osdm.BookingPartStatus, price osdm.Price) osdm.BookedOffer {
	o := &rec.Offer
	// The conditions the offer stated (osdmOffer), the same in the booking.
	_, refundable := b.offers.flexibility()
	var paxIDs []string
	for _, p := range rec.Passengers {
		paxIDs = append(paxIDs, p.ID)
	}
	part := osdm.Reservation{BookingPart: osdm.BookingPart{
		ObjectType:   osdm.ObjectTypeReservation,
		ID:           reservationID(rec),
		Summary:      fmt.Sprintf("%s class %s on train %s", className(o.TravelClass), legacy.ServiceName(o.ServiceCode), o.Train),
		CreatedOn:    rec.CreatedOn,
		ValidFrom:    rec.CreatedOn,
		Price:        price,
		TripCoverage: &osdm.TripCoverage{CoveredTripID: o.TripID, CoveredLegIDs: []string{o.LegID}},
		Status:       status,
		OfferMode:    osdm.OfferModeCollective,
		PassengerIDs: paxIDs,
		Refundable:   refundable,
		Exchangeable: b.offers.exchangeability(),
		Products:     []osdm.ProductLegAssociation{{ProductID: o.ProductID, LegIDs: []string{o.LegID}}},
	}}
	if !o.Departure.IsZero() {
		end := o.Arrival
		if end.IsZero() {
			end = o.Departure
		}
		part.ValidUntil = &end
	}
	if rec.Legacy != nil {
		part.BookingPartCode = rec.Legacy.ReservationReference
		part.PlaceAllocation = placeAllocation(rec, paxIDs)
	}
	if status == osdm.BookingPartPrebooked {
		limit := rec.HoldUntil
		part.ConfirmableUntil = &limit
	}
	if rec.Fulfillment != nil {
		on := rec.Fulfillment.CreatedOn
		part.ConfirmedOn = &on
	}
	if refunded, ok := rec.refundedTotal(); ok {
		part.RefundAmount = &refunded
	}
	return osdm.BookedOffer{
		OfferID:      o.ID,
		Summary:      part.Summary,
		Reservations: []osdm.Reservation{part},
		TripCoverage: part.TripCoverage,
		Products:     []osdm.Product{b.offers.offerProduct(o)},
	}
}

// placeAllocation groups the BookingReply's places by coach; each place
// is its passenger's (placeOwners). While the reservation holds places,
// the places of passengers refunded alone (a partial refund) are left
// out: the legacy system freed them, and a consumer reads reservedPlaces
// as the places still held. Once every passenger is refunded, the
// reservation (REFUNDED) shows the places it had.
func placeAllocation(rec *bookingRecord, paxIDs []string) *osdm.PlaceAllocation {
	places := rec.Legacy.Places
	if len(places) == 0 || len(paxIDs) == 0 {
		return nil
	}
	freed := map[int]bool{} // places of passengers refunded alone
	owners := rec.placeOwners()
	if left := rec.unrefunded(); len(left) > 0 {
		for i, owner := range owners {
			if i < len(places) && owner < len(rec.Passengers) && rec.Passengers[owner].RefundedBy != "" {
				freed[i] = true
			}
		}
	}
	pa := &osdm.PlaceAllocation{
		AccommodationType:    accommodation(rec.Offer.ServiceCode),
		AccommodationSubType: accommodationSub(rec.Offer.ServiceCode),
		TripLegCoverage:      osdm.TripLegCoverage{TripID: rec.Offer.TripID, LegID: rec.Offer.LegID},
	}
	byCoach := map[string]int{}
	for i, pl := range places {
		if freed[i] {
			continue
		}
		pax := paxIDs[i%len(paxIDs)]
		if i < len(owners) && owners[i] < len(paxIDs) {
			pax = paxIDs[owners[i]]
		}
		j, ok := byCoach[pl.Coach]
		if !ok {
			j = len(pa.ReservedPlaces)
			byCoach[pl.Coach] = j
			pa.ReservedPlaces = append(pa.ReservedPlaces, osdm.ReservedPlace{
				ID: fmt.Sprintf("pl-%d", j+1), VehicleNumber: rec.Offer.Train, CoachNumber: pl.Coach,
			})
		}
		rp := &pa.ReservedPlaces[j]
		rp.PlaceNumbers = append(rp.PlaceNumbers, pl.Number)
		if !contains(rp.PassengerIDs, pax) {
			rp.PassengerIDs = append(rp.PassengerIDs, pax)
		}
	}
	return pa
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// accommodation is the OSDM accommodation of a legacy service code.
func accommodation(serviceCode int) osdm.AccommodationType {
	switch serviceCode {
	case 2:
		return osdm.AccommodationCouchette
	case 3:
		return osdm.AccommodationBerth
	}
	return osdm.AccommodationSeat
}

func accommodationSub(serviceCode int) osdm.AccommodationSubType {
	switch serviceCode {
	case 2:
		return "ANY_COUCHETTE"
	case 3:
		return "ANY_BED"
	}
	return osdm.AccommodationSubAnySeat
}

func className(c int) string {
	if c == 1 {
		return "first"
	}
	return "second"
}

// tripView is the one-leg trip of an offer record.
func tripView(o *offerRecord) osdm.Trip {
	end := o.Arrival
	if end.IsZero() {
		end = o.Departure
	}
	origin := osdm.NewStopPlaceRef(osdm.UICStation(o.Origin))
	dest := osdm.NewStopPlaceRef(osdm.UICStation(o.Destination))
	service := osdm.DatedJourney{VehicleNumbers: []string{o.Train}, Carriers: []osdm.NamedCompany{{Ref: carrierRef(o.Carrier)}}}
	dur := isoDuration(end.Sub(o.Departure))
	return osdm.Trip{
		ID: o.TripID, Duration: dur, Origin: &origin, Destination: &dest,
		StartTime: o.Departure, EndTime: end,
		Legs: []osdm.TripLeg{{ID: o.LegID, TimedLeg: &osdm.TimedLeg{
			Start:    osdm.Board{StopPlaceRef: origin, StopPlaceName: nameOr(o.OriginName, o.Origin), ServiceDeparture: osdm.ServiceTime{TimetabledTime: o.Departure}},
			End:      osdm.Alight{StopPlaceRef: dest, StopPlaceName: nameOr(o.DestinationName, o.Destination), ServiceArrival: osdm.ServiceTime{TimetabledTime: end}},
			Service:  service,
			Duration: dur,
		}}},
	}
}

func nameOr(name, code string) string {
	if name != "" {
		return name
	}
	return code
}

// carrierRef is the OSDM company code of a RICS code; an unknown carrier
// is named by the UIC's placeholder "urn:uic:rics:0000".
func carrierRef(rics string) string {
	if rics == "" {
		rics = "0000"
	}
	return ricsPrefix + rics
}

// ricsPrefix starts an OSDM company code of a RICS code.
const ricsPrefix = "urn:uic:rics:"

// isoDuration writes d as an ISO 8601 duration, e.g. PT3H12M.
func isoDuration(d time.Duration) string {
	if d <= 0 {
		return "PT0M"
	}
	h := int(d / time.Hour)
	m := int((d % time.Hour) / time.Minute)
	s := "PT"
	if h > 0 {
		s += fmt.Sprintf("%dH", h)
	}
	return s + fmt.Sprintf("%dM", m)
}

// refundOffer returns the refund offer id of the booking, nil when none.
func (rec *bookingRecord) refundOffer(id string) *refundOfferRecord {
	for i := range rec.RefundOffers {
		if rec.RefundOffers[i].ID == id {
			return &rec.RefundOffers[i]
		}
	}
	return nil
}

// The OSDM exchange bodies the façade answers: ExchangeOffer and
// ExchangeOperation of what a booking's exchange records.

// exchangeOfferOf is the ExchangeOffer of offer o quoted as q, replacing
// the fulfilment of rec.
func exchangeOfferOf(rec *bookingRecord, o osdm.Offer, q *exchangeQuote) osdm.ExchangeOffer {
	v := osdm.ExchangeOffer{
		ExchangeFee: q.Fee, ExchangePrice: q.ExchangePrice, RefundableAmount: q.Refundable, AmountToBePaid: q.ToPay,
		AppliedOverruleCode: q.OverruleCode, Fulfillments: []osdm.Fulfillment{},
		OfferID: o.OfferID, Summary: o.Summary, OfferSummary: o.OfferSummary,
		CreatedOn: o.CreatedOn, PreBookableUntil: o.PreBookableUntil, PassengerRefs: o.PassengerRefs,
		Products: o.Products, TripCoverage: o.TripCoverage,
		AdmissionOfferParts: []osdm.AdmissionOfferPart{}, ReservationOfferParts: o.ReservationOfferParts,
	}
	if rec.Fulfillment != nil {
		v.Fulfillments = []osdm.Fulfillment{fulfillmentView(rec)}
	}
	return v
}

// exchangeStatus is the OSDM ExchangeStatus of an exchange (one that was
// refused or dropped is answered as a problem, never read).
func exchangeStatus(x *exchangeRecord) osdm.ExchangeStatus {
	switch x.State {
	case exchangeConfirmed:
		return osdm.ExchangeFulfilled
	case exchangeFailed:
		return osdm.ExchangeError
	}
	return osdm.ExchangePrebooked
}

// exchangeOperationOf is the ExchangeOperation of rec's exchange.
func (xs *exchanges) exchangeOperationOf(rec *bookingRecord) *osdm.ExchangeOperation {
	x := rec.Exchange
	v := &osdm.ExchangeOperation{ID: x.ID, Status: exchangeStatus(x)}
	o := xs.offers.osdmOffer(&x.Offer)
	o.OfferID = x.OfferID
	q := x.Quote
	if x.Legacy != nil {
		q = q.bookedAt(x.Legacy.Price) // what the new places were booked at
	}
	v.ExchangeOffers = []osdm.ExchangeOffer{exchangeOfferOf(rec, o, &q)}
	v.Trips = []osdm.Trip{tripView(&x.Offer)}
	if x.State == exchangePrebooked {
		limit := x.HoldUntil
		v.TicketTimeLimit = &limit
	}
	if x.State == exchangeConfirmed && rec.Fulfillment != nil {
		v.Fulfillments = []osdm.Fulfillment{fulfillmentView(rec)}
	}
	return v
}
