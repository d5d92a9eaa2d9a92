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

// quoteShort quotes s for a problem text, cut to 40 bytes.
func quoteShort(s string) string { return strconv.Quote(shorten(s, 40)) }
