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

// shareOf is the part of price that n of the passengers still booked
// stand for. The legacy system prices the whole booking, so a refund offer
// quotes an equal part, per passenger still booked, of what the places
// still held stand for: price less what the confirmed refunds cancelled
// (heldPrice). The rest of a partly refunded booking is so quoted as the
// legacy system refunds it; the CancelReply's amounts are what is
// confirmed.
func (rec *BookingRecord) shareOf(price osdm.Price, n int) osdm.Price {
	held := rec.heldPrice(price)
	left := len(rec.unrefunded())
	if left == 0 || n >= left {
		return held
	}
	return osdm.NewPrice(held.Amount*int64(n)/int64(left), held.EffectiveScale(), held.Currency)
}

// heldPrice is price less the refunded amounts and fees of the confirmed
// refunds (what the CancelReplies said the cancelled places stood for),
// never below zero.
func (rec *BookingRecord) heldPrice(price osdm.Price) osdm.Price {
	sc := price.EffectiveScale()
	var cancelled int64
	for _, ro := range rec.RefundOffers {
		if ro.Status != osdm.RefundConfirmed {
			continue
		}
		for _, p := range []osdm.Price{ro.Refundable, ro.Fee} {
			if p.Currency != "" && p.Currency != price.Currency {
				return price // amounts in another currency: not comparable
			}
			sc = max(sc, p.EffectiveScale())
		}
	}
	held := rescale(price, sc)
	for _, ro := range rec.RefundOffers {
		if ro.Status == osdm.RefundConfirmed {
			cancelled += rescale(ro.Refundable, sc) + rescale(ro.Fee, sc)
		}
	}
	return osdm.NewPrice(max(held-cancelled, 0), sc, price.Currency)
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
