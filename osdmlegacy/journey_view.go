package osdmlegacy

import (
	"net/http"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// journeyView is the OSDM booking of a journey with changes, built from
// its leg bookings: one booked offer with one reservation per train, the
// journey's trip, one fulfilment per leg, the prices their sums.
func (js *journeys) journeyView(j *journeyRecord, legs []*bookingRecord) *osdm.Booking {
	b := &osdm.Booking{ID: j.ID, ExternalRef: j.ExternalRef, CreatedOn: j.CreatedOn}
	var trains []string
	runs := make([]TrainRun, 0, len(j.Offers))
	for _, o := range j.Offers {
		trains = append(trains, o.Train)
		runs = append(runs, TrainRun{
			Train: o.Train, ServiceDate: o.ServiceDate, Origin: o.Origin, Destination: o.Destination,
			OriginName: o.OriginName, DestinationName: o.DestinationName, Departure: o.Departure, Arrival: o.Arrival, Carrier: o.Carrier,
		})
	}
	b.Summary = "Reservations on trains " + strings.Join(trains, ", ") + " on " + j.Offers[0].ServiceDate + ", " + js.cfg.Partner
	b.Trips = []osdm.Trip{journeyTripView(j.Offers[0].TripID, runs)}
	var first *bookingRecord
	for _, leg := range legs {
		if leg != nil {
			first = leg
			break
		}
	}
	if first == nil {
		return b
	}
	for i := range first.Passengers {
		b.Passengers = append(b.Passengers, passengerView(&first.Passengers[i]))
	}
	offer := osdm.BookedOffer{OfferID: j.OfferID, TripCoverage: &osdm.TripCoverage{CoveredTripID: j.Offers[0].TripID}}
	var prices, kept []osdm.Price
	prebooked, confirmed := true, false
	for _, leg := range legs {
		if leg == nil {
			prebooked = false
			continue
		}
		status := partStatus(leg)
		price := leg.bookedPrice()
		prices = append(prices, price)
		switch status {
		case osdm.BookingPartPrebooked:
		case osdm.BookingPartFulfilled, osdm.BookingPartRefunded:
			prebooked, confirmed = false, true
			k := price
			if refunded, ok := leg.refundedTotal(); ok {
				sc := max(price.EffectiveScale(), refunded.EffectiveScale())
				k = osdm.NewPrice(rescale(price, sc)-rescale(refunded, sc), sc, price.Currency)
			}
			kept = append(kept, k)
		default:
			prebooked = false
		}
		bo := js.bookings.bookedOffer(leg, status, price)
		offer.Reservations = append(offer.Reservations, bo.Reservations...)
		offer.Products = append(offer.Products, bo.Products...)
		if leg.Fulfillment != nil {
			fv := fulfillmentView(leg)
			fv.BookingRef = j.ID
			b.Fulfillments = append(b.Fulfillments, fv)
		}
		if leg.Legacy != nil && b.BookingCode == "" {
			b.BookingCode = leg.Legacy.ReservationReference
		}
	}
	offer.Summary = "Reservations on trains " + strings.Join(trains, ", ")
	b.BookedOffers = []osdm.BookedOffer{offer}
	if prebooked && len(prices) > 0 {
		p := sumPrices(prices)
		b.ProvisionalPrice = &p
		limit := j.HoldUntil
		b.ConfirmationTimeLimit = &limit
	}
	if confirmed {
		p := sumPrices(kept)
		b.ConfirmedPrice = &p
	}
	for i := range j.RefundOffers {
		if jr := &j.RefundOffers[i]; len(jr.Legs) > 0 && legs[jr.Legs[0]] != nil && legs[jr.Legs[0]].refundOffer(jr.ID) != nil {
			b.RefundOffers = append(b.RefundOffers, js.refunds.journeyRefundView(j, legs, jr))
		}
	}
	return b
}

// journeyAnswer is the BookingResponse of journey j, with the ticket of
// every leg fulfilled.
func (js *journeys) journeyAnswer(c *call, j *journeyRecord, legs []*bookingRecord) *Answer {
	b := js.journeyView(j, legs)
	docs, problems := js.documents.legTickets(c, legs, b.Fulfillments)
	b.FulfillmentDocuments = docs
	return js.json(c, http.StatusOK, osdm.BookingResponse{Problems: problems, Booking: b})
}

// sumPrices adds prices of one currency at the largest scale among them.
func sumPrices(ps []osdm.Price) osdm.Price {
	scale := 0
	for _, p := range ps {
		scale = max(scale, p.EffectiveScale())
	}
	var sum int64
	for _, p := range ps {
		sum += rescale(p, scale)
	}
	return osdm.NewPrice(sum, scale, ps[0].Currency)
}
