package osdmlegacy

import (
	"context"
	"net/http"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The after-sales of a journey with changes act on every leg booking in
// turn, each through the single train's own path (its intent recorded,
// its legacy message de-duplicated by messageId), and answer for the
// journey as a whole.

// getJourney answers GET /bookings/{bookingId} of a journey.
func (js *journeys) getJourney(ctx context.Context, c *call) *Answer {
	j, legs, a := js.journeyOf(ctx, c)
	if a != nil {
		return a
	}
	return js.journeyAnswer(c, j, legs)
}

// deleteJourney cancels every leg of a journey not yet fulfilled: 204
// once the legacy system holds none of its places.
func (js *journeys) deleteJourney(ctx context.Context, c *call) *Answer {
	id := c.params[osdm.ParamBookingID]
	return js.idempotent(ctx, c, func() string { return id }, func(string) (*Answer, bool) {
		_, legs, a := js.journeyOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		all := true
		for _, leg := range legs {
			all = all && leg.State == stateCancelled && leg.Cancel != nil && leg.Cancel.Why == cancelDelete
		}
		if all {
			return js.noContent(c), true
		}
		// Every train must be deletable before any is cancelled: a journey
		// is not left half deleted.
		for _, leg := range legs {
			deleted := leg.State == stateCancelled && leg.Cancel != nil && leg.Cancel.Why == cancelDelete
			resending := leg.State == stateCancelling && leg.Pending != nil && leg.Pending.Cancel == cancelDelete
			if !deleted && !resending && leg.State != statePrebooked {
				p := stateProblem(leg, "deleted")
				p.Detail = journeyDetail(p.Detail, &journeyRecord{ID: id}, leg)
				return problemAnswer(p), finalProblem(p)
			}
		}
		for _, leg := range legs {
			if leg.State == stateCancelled && leg.Cancel != nil && leg.Cancel.Why == cancelDelete {
				continue
			}
			after, d, p := js.bookings.cancel(ctx, c.send, leg, cancelDelete, "", nil)
			if p != nil {
				p.Detail = strings.Replace(p.Detail, "booking "+leg.ID, "booking "+id+" (train "+leg.Offer.Train+")", 1)
				return problemAnswer(p), finalProblem(p)
			}
			if a, final := js.bookings.cancelFailed(c, after, d); a != nil {
				return a, final
			}
		}
		return js.noContent(c), true
	})
}

// fulfilJourney confirms every leg of a PREBOOKED journey within its
// hold: one fulfilment per leg, each with its own control number.
func (js *journeys) fulfilJourney(ctx context.Context, c *call) *Answer {
	id := c.params[osdm.ParamBookingID]
	return js.idempotent(ctx, c, func() string { return id }, func(string) (*Answer, bool) {
		j, legs, a := js.journeyOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		if x := j.Exchange; x.open() || x != nil && x.Confirming {
			return js.exchanges.fulfilJourneyExchange(ctx, c, j)
		}
		// Every leg must be confirmable before any is confirmed: a journey
		// is fulfilled as a whole.
		now := js.now()
		for _, leg := range legs {
			if leg.Fulfillment == nil && !(leg.State == statePrebooked && now.Before(leg.HoldUntil)) {
				p := stateProblem(leg, "fulfilled")
				p.Detail = strings.Replace(p.Detail, "booking "+leg.ID, "booking "+id+" (train "+leg.Offer.Train+")", 1)
				return problemAnswer(p), finalProblem(p)
			}
		}
		out := osdm.FulfillmentCollectionResponse{}
		for i, leg := range legs {
			rec, fulfilled, a := js.documents.fulfilBooking(ctx, c, leg.ID)
			if a != nil {
				return a, finalAnswer(a)
			}
			js.dropHold(ctx, rec)
			if fulfilled {
				rec = js.passengers.sendUnsentData(ctx, c.send, rec)
			}
			legs[i] = rec
			fv := fulfillmentView(rec)
			fv.BookingRef = j.ID
			out.Fulfillments = append(out.Fulfillments, fv)
		}
		out.FulfillmentDocuments, out.Problems = js.documents.legTickets(c, legs, out.Fulfillments)
		return js.json(c, http.StatusOK, out), true
	})
}

// getJourneyPassenger answers GET .../passengers/{passengerId} of a
// journey: the passenger as every leg has it.
func (js *journeys) getJourneyPassenger(ctx context.Context, c *call) *Answer {
	j, legs, a := js.journeyOf(ctx, c)
	if a != nil {
		return a
	}
	pid := c.params[osdm.ParamPassengerID]
	pr := legs[0].passenger(pid)
	if pr == nil {
		return problemAnswer(passengerNotFound(j.ID, pid))
	}
	v := passengerView(pr)
	return js.json(c, http.StatusOK, osdm.PassengerResponse{Passenger: &v})
}

// patchJourneyPassenger changes a passenger of a journey on every leg in
// turn (a PassengerDataRequest each when the legacy system must hear of
// it); a retry carries on with the legs not changed yet.
func (js *journeys) patchJourneyPassenger(ctx context.Context, c *call) *Answer {
	body, p := readPassengerPatch(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	pid := c.params[osdm.ParamPassengerID]
	return js.idempotent(ctx, c, func() string { return pid }, func(string) (*Answer, bool) {
		j, legs, a := js.journeyOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		var last *Answer
		for _, leg := range legs {
			a, final := js.passengers.patchBookingPassenger(ctx, c, leg, pid, body)
			if a.Status != http.StatusOK {
				if a.Problem != nil {
					p := *a.Problem
					p.Detail = journeyDetail(p.Detail, j, leg)
					return problemAnswer(&p), final
				}
				return a, final
			}
			last = a
		}
		return last, true
	})
}
