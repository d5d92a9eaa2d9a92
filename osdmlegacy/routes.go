package osdmlegacy

import (
	"context"
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// handler serves one OSDM operation of the façade.
type handler func(f *Facade, ctx context.Context, c *call) *Answer

// opGetBookingFulfillment reads a fulfilment under its booking: the spec
// reads it at /fulfillments/{fulfillmentId}; the nested form is served too.
var opGetBookingFulfillment = osdm.Operation{
	Method: http.MethodGet, Path: osdm.PathFulfillments + "/{" + osdm.ParamFulfillmentID + "}", Success: []int{http.StatusOK},
}

// routes are the operations the façade serves, one row each. The booking
// side's handlers live in the booking*, fulfil*, refund*, passenger* and
// exchange* files; every other operation of the spec is answered 501 by
// the router.
var routes = []osdm.Route[handler]{
	{Op: osdm.OpCreateOffers, Handle: (*Facade).searchOffers},
	{Op: osdm.OpCreateBooking, Handle: (*Facade).createBooking},
	{Op: osdm.OpGetBooking, Handle: either((*Facade).getJourney, (*Facade).getBooking)},
	{Op: osdm.OpDeleteBooking, Handle: either((*Facade).deleteJourney, (*Facade).deleteBooking)},
	{Op: osdm.OpCreateFulfillments, Handle: either((*Facade).fulfilJourney, (*Facade).createFulfillments)},
	{Op: osdm.OpGetFulfillment, Handle: (*Facade).getFulfillment},
	{Op: opGetBookingFulfillment, Handle: (*Facade).getFulfillment},
	{Op: osdm.OpCreateRefundOffers, Handle: either((*Facade).createJourneyRefundOffers, (*Facade).createRefundOffers)},
	{Op: osdm.OpGetRefundOffer, Handle: either((*Facade).getJourneyRefundOffer, (*Facade).getRefundOffer)},
	{Op: osdm.OpPatchRefundOffer, Handle: either((*Facade).patchJourneyRefundOffer, (*Facade).patchRefundOffer)},
	{Op: osdm.OpDeleteRefundOffer, Handle: either((*Facade).deleteJourneyRefundOffer, (*Facade).deleteRefundOffer)},
	{Op: osdm.OpGetPassenger, Handle: either((*Facade).getJourneyPassenger, (*Facade).getPassenger)},
	{Op: osdm.OpPatchPassenger, Handle: either((*Facade).patchJourneyPassenger, (*Facade).patchPassenger)},
	{Op: osdm.OpCreateExchangeOffers, Handle: either((*Facade).createJourneyExchangeOffers, (*Facade).createExchangeOffers)},
	{Op: osdm.OpCreateExchangeOperation, Handle: either((*Facade).createJourneyExchangeOperation, (*Facade).createExchangeOperation)},
	{Op: osdm.OpGetExchangeOperation, Handle: either((*Facade).getJourneyExchangeOperation, (*Facade).getExchangeOperation)},
	{Op: osdm.OpPatchExchangeOperation, Handle: (*Facade).patchExchangeOperation},
	{Op: osdm.OpDeleteExchangeOperation, Handle: either((*Facade).deleteJourneyExchangeOperation, (*Facade).deleteExchangeOperation)},
}

// either serves a call about a journey with changes (a booking id with
// JourneyIDPrefix) with journey, any other with single.
func either(journey, single handler) handler {
	return func(f *Facade, ctx context.Context, c *call) *Answer {
		if isJourneyID(c.params[osdm.ParamBookingID]) {
			return journey(f, ctx, c)
		}
		return single(f, ctx, c)
	}
}

// router routes the façade's calls.
var router = osdm.MustRouter(routes, osdm.RouterOptions{})

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
