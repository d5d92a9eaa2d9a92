package osdmlegacy

import (
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

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
	v.ExchangeOffers = []osdm.ExchangeOffer{exchangeOfferOf(rec, o, &x.Quote)}
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
