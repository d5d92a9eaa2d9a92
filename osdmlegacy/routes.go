package osdmlegacy

import (
	"context"
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// handler serves one OSDM operation of the façade.
type handler func(ctx context.Context, c *call) *Answer

// opGetBookingFulfillment reads a fulfilment under its booking: the spec
// reads it at /fulfillments/{fulfillmentId}; the nested form is served too.
var opGetBookingFulfillment = osdm.Operation{
	Method: http.MethodGet, Path: osdm.PathFulfillments + "/{" + osdm.ParamFulfillmentID + "}", Success: []int{http.StatusOK},
}

// routes are the operations f serves, one row each. The booking
// side's handlers live in the booking*, fulfil*, refund*, passenger* and
// exchange* files; every other operation of the spec is answered 501 by
// the router.
func (f *Facade) routes() []osdm.Route[handler] {
	return []osdm.Route[handler]{
		{Op: osdm.OpCreateOffers, Handle: f.offers.searchOffers},
		{Op: osdm.OpCreateBooking, Handle: f.bookings.createBooking},
		{Op: osdm.OpGetBooking, Handle: bookingEmbedChecked(either(f.journeys.getJourney, f.bookings.getBooking))},
		{Op: osdm.OpDeleteBooking, Handle: either(f.journeys.deleteJourney, f.bookings.deleteBooking)},
		{Op: osdm.OpCreateFulfillments, Handle: either(f.journeys.fulfilJourney, f.documents.createFulfillments)},
		{Op: osdm.OpGetFulfillment, Handle: f.documents.getFulfillment},
		{Op: opGetBookingFulfillment, Handle: f.documents.getFulfillment},
		{Op: osdm.OpCreateRefundOffers, Handle: either(f.refunds.createJourneyRefundOffers, f.refunds.createRefundOffers)},
		{Op: osdm.OpGetRefundOffer, Handle: either(f.refunds.getJourneyRefundOffer, f.refunds.getRefundOffer)},
		{Op: osdm.OpPatchRefundOffer, Handle: f.refunds.patchRefundOffer},
		{Op: osdm.OpDeleteRefundOffer, Handle: either(f.refunds.deleteJourneyRefundOffer, f.refunds.deleteRefundOffer)},
		{Op: osdm.OpGetPassenger, Handle: either(f.journeys.getJourneyPassenger, f.passengers.getPassenger)},
		{Op: osdm.OpPatchPassenger, Handle: either(f.journeys.patchJourneyPassenger, f.passengers.patchPassenger)},
		{Op: osdm.OpCreateExchangeOffers, Handle: f.exchanges.createExchangeOffers},
		{Op: osdm.OpCreateExchangeOperation, Handle: either(f.exchanges.createJourneyExchangeOperation, f.exchanges.createExchangeOperation)},
		{Op: osdm.OpGetExchangeOperation, Handle: either(f.exchanges.getJourneyExchangeOperation, f.exchanges.getExchangeOperation)},
		{Op: osdm.OpPatchExchangeOperation, Handle: f.exchanges.patchExchangeOperation},
		{Op: osdm.OpDeleteExchangeOperation, Handle: either(f.exchanges.deleteJourneyExchangeOperation, f.exchanges.deleteExchangeOperation)},
	}
}

// either serves a call about a journey with changes (a booking id with
// journeyIDPrefix) with journey, any other with single.
func either(journey, single handler) handler {
	return func(ctx context.Context, c *call) *Answer {
		if isJourneyID(c.params[osdm.ParamBookingID]) {
			return journey(ctx, c)
		}
		return single(ctx, c)
	}
}

// bookingEmbedChecked refuses, before h reads the booking, an embed
// query parameter the spec does not list; h answers the whole booking,
// the spec's default (ALL), whatever embed asks.
func bookingEmbedChecked(h handler) handler {
	return func(ctx context.Context, c *call) *Answer {
		if p := osdm.CheckBookingEmbed(c.query); p != nil {
			return problemAnswer(p)
		}
		return h(ctx, c)
	}
}

// notOfferedWhy says, for the operations a restriction rules out (by
// operationId), which.
var notOfferedWhy = map[string]string{
	"postReleaseOffers":                      "release (restriction 7)",
	"getReleaseOffer":                        "release (restriction 7)",
	"patchReleaseOffers":                     "release (restriction 7)",
	"deleteReleaseOffers":                    "release (restriction 7)",
	"createOnHoldOffer":                      "on-hold (restriction 7)",
	"confirmOnHoldOffer":                     "on-hold (restriction 7)",
	"deleteOnHoldOffer":                      "on-hold (restriction 7)",
	"postCancelFulfillmentsOffers":           "cancelling fulfilments (restriction 7: a partial refund is a refund offer naming passengers)",
	"getCancelFulfillmentOffers":             "cancelling fulfilments (restriction 7: a partial refund is a refund offer naming passengers)",
	"patchCancelFulfillmentsOffers":          "cancelling fulfilments (restriction 7: a partial refund is a refund offer naming passengers)",
	"deleteCancelFulfillmentOffers":          "cancelling fulfilments (restriction 7: a partial refund is a refund offer naming passengers)",
	"deleteBookingBookedOffersIdPassengerId": "removing a passenger (restriction 7: a partial refund is a refund offer naming passengers)",
	"postBookingBookedOffers":                "adding offers to a booking (restriction 6)",
}

// unserved is the problem of a call no route serves, with the
// restriction that rules the operation out when there is one.
func unserved(m osdm.Match[handler]) *osdm.ProblemError {
	if m.Unserved != nil {
		if why, ok := notOfferedWhy[m.Unserved.ID]; ok {
			m.Problem.Detail += ": " + why
		}
	}
	return m.Problem
}
