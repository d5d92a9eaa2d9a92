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
// side's handlers live in the booking*, fulfil*, refund* and passenger*
// files; every other operation of the spec is answered 501 by the router.
var routes = []osdm.Route[handler]{
	{Op: osdm.OpCreateOffers, Handle: (*Facade).searchOffers},
	{Op: osdm.OpCreateBooking, Handle: (*Facade).createBooking},
	{Op: osdm.OpGetBooking, Handle: (*Facade).getBooking},
	{Op: osdm.OpDeleteBooking, Handle: (*Facade).deleteBooking},
	{Op: osdm.OpCreateFulfillments, Handle: (*Facade).createFulfillments},
	{Op: osdm.OpGetFulfillment, Handle: (*Facade).getFulfillment},
	{Op: opGetBookingFulfillment, Handle: (*Facade).getFulfillment},
	{Op: osdm.OpCreateRefundOffers, Handle: (*Facade).createRefundOffers},
	{Op: osdm.OpGetRefundOffer, Handle: (*Facade).getRefundOffer},
	{Op: osdm.OpPatchRefundOffer, Handle: (*Facade).patchRefundOffer},
	{Op: osdm.OpDeleteRefundOffer, Handle: (*Facade).deleteRefundOffer},
	{Op: osdm.OpGetPassenger, Handle: (*Facade).getPassenger},
	{Op: osdm.OpPatchPassenger, Handle: (*Facade).patchPassenger},
}

// router routes the façade's calls.
var router = osdm.MustRouter(routes, osdm.RouterOptions{})

// notOfferedWhy says, for the operations a restriction rules out (by
// operationId), which.
var notOfferedWhy = map[string]string{
	"createExchangeOffersCollection":         "exchange (restriction 7)",
	"createBookingsExchangeOperations":       "exchange (restriction 7)",
	"getBookingsExchangeOperations":          "exchange (restriction 7)",
	"updateBookingsExchangeOperations":       "exchange (restriction 7)",
	"deleteBookingsExchangeOperation":        "exchange (restriction 7)",
	"postReleaseOffers":                      "release (restriction 7)",
	"getReleaseOffer":                        "release (restriction 7)",
	"patchReleaseOffers":                     "release (restriction 7)",
	"deleteReleaseOffers":                    "release (restriction 7)",
	"createOnHoldOffer":                      "on-hold (restriction 7)",
	"confirmOnHoldOffer":                     "on-hold (restriction 7)",
	"deleteOnHoldOffer":                      "on-hold (restriction 7)",
	"postCancelFulfillmentsOffers":           "partial refund (restriction 7)",
	"getCancelFulfillmentOffers":             "partial refund (restriction 7)",
	"patchCancelFulfillmentsOffers":          "partial refund (restriction 7)",
	"deleteCancelFulfillmentOffers":          "partial refund (restriction 7)",
	"deleteBookingBookedOffersIdPassengerId": "partial refund (restriction 7)",
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
