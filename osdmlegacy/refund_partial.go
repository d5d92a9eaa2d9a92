package osdmlegacy

import (
	"sort"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// A partial refund names passengers (refundSpecifications' passengerIds);
// it covers their places, which a partial CancelRequest lists. Each place
// belongs to the passenger it was booked for: the legacy PlaceRequest
// groups the passengers by tariff code (in order of first appearance), and
// the BookingReply's places follow that order.

// placeOwners returns, for each place of the BookingReply in order, the
// index in rec.Passengers of the passenger it was booked for (the offer's
// placeOrder; rec.Passengers are in the offer's order).
func (rec *BookingRecord) placeOwners() []int {
	var owners []int
	for _, i := range rec.Offer.placeOrder() {
		if i < len(rec.Passengers) {
			owners = append(owners, i)
		}
	}
	return owners
}

// placesOf returns the places of the passengers ids, in the BookingReply's
// order.
func (rec *BookingRecord) placesOf(ids []string) []legacy.Place {
	if rec.Legacy == nil {
		return nil
	}
	var out []legacy.Place
	for i, owner := range rec.placeOwners() {
		if i < len(rec.Legacy.Places) && contains(ids, rec.Passengers[owner].ID) {
			out = append(out, rec.Legacy.Places[i])
		}
	}
	return out
}

// unrefunded lists the ids of the passengers whose places are still
// booked, in booking order.
func (rec *BookingRecord) unrefunded() []string {
	var out []string
	for _, p := range rec.Passengers {
		if p.RefundedBy == "" {
			out = append(out, p.ID)
		}
	}
	return out
}

// shareOf is the part of price that n of the booking's passengers stand
// for: a refund offer quotes a passenger's share as an equal part of the
// price (the legacy system prices the whole booking); the CancelReply's
// amounts are what is confirmed.
func (rec *BookingRecord) shareOf(price osdm.Price, n int) osdm.Price {
	all := len(rec.Passengers)
	if all == 0 || n >= all {
		return price
	}
	return osdm.NewPrice(price.Amount*int64(n)/int64(all), price.EffectiveScale(), price.Currency)
}

// refundSummary describes what a refund offer refunds.
func refundSummary(rec *BookingRecord, ro *RefundOfferRecord) string {
	if len(ro.PassengerIDs) == 0 || len(ro.PassengerIDs) == len(rec.Passengers) {
		return "Whole refund of booking " + rec.ID
	}
	ids := append([]string(nil), ro.PassengerIDs...)
	sort.Strings(ids)
	return "Refund of passengers " + strings.Join(ids, ", ") + " of booking " + rec.ID
}

// refundedTotal is the sum of the confirmed refunds' amounts, and whether
// there is any.
func (rec *BookingRecord) refundedTotal() (osdm.Price, bool) {
	var total osdm.Price
	any := false
	for _, ro := range rec.RefundOffers {
		if ro.Status != osdm.RefundConfirmed {
			continue
		}
		if !any {
			total, any = ro.Refundable, true
			continue
		}
		sc := max(total.EffectiveScale(), ro.Refundable.EffectiveScale())
		total = osdm.NewPrice(rescale(total, sc)+rescale(ro.Refundable, sc), sc, total.Currency)
	}
	return total, any
}
