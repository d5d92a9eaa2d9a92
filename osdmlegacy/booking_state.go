package osdmlegacy

import (
	"net/http"
	"strconv"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// stateProblem says why booking rec cannot be <verb> where it is.
func stateProblem(rec *bookingRecord, verb string) *osdm.ProblemError {
	subject := "booking " + rec.ID
	switch rec.State {
	case stateBooking, stateCancelling, stateUpdating, stateExchanging:
		return underWay(subject, "a message")
	case statePrebooked:
		if verb == "refunded" {
			return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingNotFulfilled, subject+" is not fulfilled: delete it (DELETE /bookings/"+rec.ID+") instead of refunding it")
		}
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingExpired, subject+" passed its confirmationTimeLimit "+rec.HoldUntil.Format("2006-01-02T15:04:05Z07:00")+" and is released")
	case stateFulfilled:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingFulfilled, subject+" is fulfilled and cannot be "+verb+"; refund it (POST /bookings/"+rec.ID+"/refund-offers)")
	case stateReleased:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingExpired, subject+" was released: it was not fulfilled by its confirmationTimeLimit")
	case stateCancelled:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, subject+" was cancelled")
	case stateRefunded:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingRefunded, subject+" was refunded")
	}
	return bookingNotFound(rec.ID)
}

// underWay is the retryable 409 of a call that finds subject's legacy
// messages under way ("a message" of a booking, "messages" of a journey
// or of its exchange): the same call gets past once they are answered.
func underWay(subject, messages string) *osdm.ProblemError {
	p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, subject+" has "+messages+" to the reservation system under way; retry in a few seconds")
	p.Retryable = true
	return p
}

// quoteShort quotes s for a problem text, cut to 40 bytes.
func quoteShort(s string) string { return strconv.Quote(shorten(s, 40)) }
