package osdmlegacy

import (
	"net/http"
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
func (rec *bookingRecord) placeOwners() []int {
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
func (rec *bookingRecord) placesOf(ids []string) []legacy.Place {
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
func (rec *bookingRecord) unrefunded() []string {
	var out []string
	for _, p := range rec.Passengers {
		if p.RefundedBy == "" {
			out = append(out, p.ID)
		}
	}
	return out
}

// partPrice is what the places of the passengers pax stand for at the
// legacy system, which a CancelRequest of them refunds before its fee:
// every place still held (price less what the confirmed refunds
// cancelled, heldPrice) when pax are all the passengers left; else the
// sum of their places' prices as the BookingReply gave them; else, when
// every passenger left has one tariff, an equal share (each place then
// costs the same). Without place prices the places of passengers of
// different tariffs cannot be priced: a problem says to refund the rest
// of the booking whole.
func (rec *bookingRecord) partPrice(price osdm.Price, pax []string) (osdm.Price, *osdm.ProblemError) {
	held := rec.heldPrice(price)
	left := rec.unrefunded()
	if len(left) == 0 || len(pax) >= len(left) {
		return held, nil
	}
	if rec.Legacy != nil && len(rec.Legacy.PlacePrices) == len(rec.Legacy.Places) && len(rec.Legacy.Places) > 0 {
		sc := held.EffectiveScale()
		owners := rec.placeOwners()
		for i := range owners {
			if i < len(rec.Legacy.PlacePrices) {
				sc = max(sc, rec.Legacy.PlacePrices[i].EffectiveScale())
			}
		}
		var sum int64
		n := 0
		for i, owner := range owners {
			if i < len(rec.Legacy.PlacePrices) && contains(pax, rec.Passengers[owner].ID) {
				if rec.Legacy.PlacePrices[i].Currency != price.Currency {
					break
				}
				sum += rescale(rec.Legacy.PlacePrices[i], sc)
				n++
			}
		}
		if n == len(pax) {
			return osdm.NewPrice(sum, sc, price.Currency), nil
		}
	}
	tariff := -1
	for i, p := range rec.Passengers {
		if p.RefundedBy != "" || i >= len(rec.Offer.Passengers) {
			continue
		}
		if t := rec.Offer.Passengers[i].Tariff; tariff >= 0 && t != tariff {
			return osdm.Price{}, osdm.NewProblem(http.StatusConflict, osdm.CodeRejected,
				"the reservation system gave no place prices for booking "+rec.ID+" and its passengers have different tariffs: the refund of some of them cannot be quoted to the cent; refund the whole booking")
		} else {
			tariff = t
		}
	}
	return osdm.NewPrice(held.Amount*int64(len(pax))/int64(len(left)), held.EffectiveScale(), held.Currency), nil
}

// quoteRefund is the fee and refundable amount of refunding the places of
// the passengers pax now, with the refund fee fee (none when overrule):
// what the legacy system's CancelRequest of them keeps and refunds, given
// the refunds confirmed so far.
func (rec *bookingRecord) quoteRefund(fee Fee, pax []string, overrule bool) (feeP, refundable osdm.Price, p *osdm.ProblemError) {
	price := rec.bookedPrice()
	part, p := rec.partPrice(price, pax)
	if p != nil {
		return feeP, refundable, p
	}
	feeP, refundable, err := partRefundQuote(fee, rec.feeBase(price), part, overrule)
	if err != nil {
		return feeP, refundable, osdm.NewProblem(http.StatusInternalServerError, osdm.CodeInternalError, "the refund cannot be quoted: "+err.Error())
	}
	return feeP, refundable, nil
}

// quoteStands says whether refund offer ro would be quoted now as it was:
// a refund of other passengers confirmed since changes what ro's places
// are refunded and what fee the legacy system keeps on them (the fee is
// rounded on the running total, an equal share on the places left), and
// ro is then no longer what its confirmation would pay. A problem
// (409 REFUND_OFFER_EXPIRED) says so, nil when it stands.
func (rec *bookingRecord) quoteStands(fee Fee, ro *refundOfferRecord) *osdm.ProblemError {
	left := rec.unrefunded()
	for _, pid := range ro.PassengerIDs {
		if !contains(left, pid) {
			return nil // refunded since: refundPlaces refuses it as such
		}
	}
	feeP, refundable, p := rec.quoteRefund(fee, ro.PassengerIDs, ro.OverruleCode != "")
	if p != nil {
		return p
	}
	if !equalAmount(feeP, ro.Fee) || !equalAmount(refundable, ro.Refundable) {
		return osdm.NewProblem(http.StatusConflict, osdm.CodeRefundOfferExpired,
			"refund offer "+ro.ID+" of booking "+rec.ID+" was quoted before another refund of the booking was confirmed, which changes its amounts (now a fee of "+
				priceText(feeP)+" and "+priceText(refundable)+" refunded); ask for a new one")
	}
	return nil
}

// feeBase is the price of the places the confirmed ordinary refunds
// (without an overrule code) cancelled: what the legacy system has taken
// its percentage fee on so far.
func (rec *bookingRecord) feeBase(price osdm.Price) osdm.Price {
	sc := price.EffectiveScale()
	for _, ro := range rec.RefundOffers {
		if ro.Status == osdm.RefundConfirmed && ro.OverruleCode == "" {
			sc = max(sc, ro.Refundable.EffectiveScale(), ro.Fee.EffectiveScale())
		}
	}
	var base int64
	for _, ro := range rec.RefundOffers {
		if ro.Status == osdm.RefundConfirmed && ro.OverruleCode == "" {
			base += rescale(ro.Refundable, sc) + rescale(ro.Fee, sc)
		}
	}
	return osdm.NewPrice(base, sc, price.Currency)
}

// heldPrice is price less the refunded amounts and fees of the confirmed
// refunds (what the CancelReplies said the cancelled places stood for),
// never below zero.
func (rec *bookingRecord) heldPrice(price osdm.Price) osdm.Price {
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
func refundSummary(rec *bookingRecord, ro *refundOfferRecord) string {
	if len(ro.PassengerIDs) == 0 || len(ro.PassengerIDs) == len(rec.Passengers) {
		return "Whole refund of booking " + rec.ID
	}
	ids := append([]string(nil), ro.PassengerIDs...)
	sort.Strings(ids)
	return "Refund of passengers " + strings.Join(ids, ", ") + " of booking " + rec.ID
}

// refundedTotal is the sum of the confirmed refunds' amounts, and whether
// there is any.
func (rec *bookingRecord) refundedTotal() (osdm.Price, bool) {
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
