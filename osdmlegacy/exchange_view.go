package osdmlegacy

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The OSDM exchange bodies the façade answers (OSDM 3.9's
// ExchangeOfferCollectionResponse, ExchangeOffer, ExchangeOperationResponse
// and ExchangeOperation), with the members it fills.

// exchangeOfferView is an ExchangeOffer: the new journey's offer with the
// exchange's fee, price and difference, and the fulfilment it replaces.
type exchangeOfferView struct {
	ExchangeFee           osdm.Price                  `json:"exchangeFee"`
	ExchangePrice         osdm.Price                  `json:"exchangePrice"`
	RefundableAmount      *osdm.Price                 `json:"refundableAmount,omitempty"`
	AmountToBePaid        *osdm.Price                 `json:"amountToBePaid,omitempty"`
	AppliedOverruleCode   osdm.OverruleCode           `json:"appliedOverruleCode,omitempty"`
	Fulfillments          []osdm.Fulfillment          `json:"fulfillments"`
	OfferID               string                      `json:"offerId"`
	Summary               string                      `json:"summary,omitempty"`
	OfferSummary          *osdm.OfferSummary          `json:"offerSummary,omitempty"`
	CreatedOn             time.Time                   `json:"createdOn"`
	PreBookableUntil      time.Time                   `json:"preBookableUntil"`
	PassengerRefs         []string                    `json:"passengerRefs"`
	Products              []osdm.Product              `json:"products,omitempty"`
	TripCoverage          *osdm.TripCoverage          `json:"tripCoverage,omitempty"`
	AdmissionOfferParts   []osdm.AdmissionOfferPart   `json:"admissionOfferParts"`
	ReservationOfferParts []osdm.ReservationOfferPart `json:"reservationOfferParts,omitempty"`
}

// exchangeOfferCollectionView is the 200 body of POST .../exchange-offers.
type exchangeOfferCollectionView struct {
	Problems       []osdm.Problem      `json:"problems,omitempty"`
	ExchangeOffers []exchangeOfferView `json:"exchangeOffers,omitempty"`
	Trips          []osdm.Trip         `json:"trips,omitempty"`
	Passengers     []osdm.Passenger    `json:"passengers,omitempty"`
}

// exchangeOperationView is an ExchangeOperation.
type exchangeOperationView struct {
	ID              string              `json:"id"`
	Status          string              `json:"status,omitempty"`
	ExchangeOffers  []exchangeOfferView `json:"exchangeOffers,omitempty"`
	TicketTimeLimit *time.Time          `json:"ticketTimeLimit,omitempty"`
	Fulfillments    []osdm.Fulfillment  `json:"fulfillments,omitempty"`
	Trips           []osdm.Trip         `json:"trips,omitempty"`
}

// exchangeOperationResponse is the body of the exchange operation calls.
type exchangeOperationResponse struct {
	ExchangeOperation *exchangeOperationView `json:"exchangeOperation,omitempty"`
}

// exchangeOfferOf is the ExchangeOffer of offer o quoted as q, replacing
// the fulfilment of rec.
func exchangeOfferOf(rec *BookingRecord, o osdm.Offer, q *ExchangeQuote) exchangeOfferView {
	v := exchangeOfferView{
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

// exchangeStatus is the OSDM ExchangeStatus of an exchange.
func exchangeStatus(x *ExchangeRecord) string {
	switch x.State {
	case ExchangePrebooked:
		return "PREBOOKED"
	case ExchangeConfirmed:
		return "FULFILLED"
	case ExchangeBooking:
		return "PREBOOKED"
	}
	return "ERROR"
}

// exchangeOperationOf is the ExchangeOperation of rec's exchange.
func (f *Facade) exchangeOperationOf(rec *BookingRecord) *exchangeOperationView {
	x := rec.Exchange
	v := &exchangeOperationView{ID: x.ID, Status: exchangeStatus(x)}
	o := f.osdmOffer(&x.Offer)
	o.OfferID = x.OfferID
	v.ExchangeOffers = []exchangeOfferView{exchangeOfferOf(rec, o, &x.Quote)}
	v.Trips = []osdm.Trip{tripView(&x.Offer)}
	if x.State == ExchangePrebooked {
		limit := x.HoldUntil
		v.TicketTimeLimit = &limit
	}
	if x.State == ExchangeConfirmed && rec.Fulfillment != nil {
		v.Fulfillments = []osdm.Fulfillment{fulfillmentView(rec)}
	}
	return v
}
