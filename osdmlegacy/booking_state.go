package osdmlegacy

import (
	"net/http"
	"strconv"
)

// Problem codes of booking states (409): the operation does not fit where
// the booking is. Spelt as OSDM spells its problem codes.
const (
	// CodeBookingExpired: a PREBOOKED booking past its
	// confirmationTimeLimit, released or about to be.
	CodeBookingExpired = "urn:uic:problem:BOOKING_CONFIRMATION_TIME_LIMIT_EXCEEDED"
	// CodeBookingFulfilled: a fulfilled booking cannot be deleted or its
	// passengers changed; it is refunded.
	CodeBookingFulfilled = "urn:uic:problem:BOOKING_ALREADY_CONFIRMED"
	// CodeBookingNotFulfilled: a booking not fulfilled is deleted, not
	// refunded.
	CodeBookingNotFulfilled = "urn:uic:problem:BOOKING_NOT_CONFIRMED"
	// CodeBookingRefunded: a refunded booking.
	CodeBookingRefunded = "urn:uic:problem:BOOKING_ALREADY_REFUNDED"
	// CodeRefundOfferNotFound: no such refund offer of the booking.
	CodeRefundOfferNotFound = "urn:uic:problem:REFUND_OFFER_NOT_FOUND"
	// CodeRefundOfferExpired: a refund offer past its validUntil.
	CodeRefundOfferExpired = "urn:uic:problem:REFUND_OFFER_EXPIRED"
	// CodeFulfillmentNotFound: a fulfillmentId that is not the booking's.
	CodeFulfillmentNotFound = "urn:uic:problem:FULFILLMENT_NOT_FOUND"
)

func init() {
	problemTitles[CodeBookingExpired] = "Confirmation time limit exceeded"
	problemTitles[CodeBookingFulfilled] = "Booking already confirmed"
	problemTitles[CodeBookingNotFulfilled] = "Booking not confirmed"
	problemTitles[CodeBookingRefunded] = "Booking already refunded"
	problemTitles[CodeRefundOfferNotFound] = "Refund offer not found"
	problemTitles[CodeRefundOfferExpired] = "Refund offer expired"
	problemTitles[CodeFulfillmentNotFound] = "Fulfillment not found"
}

// stateProblem says why booking rec cannot be <verb> where it is.
func stateProblem(rec *BookingRecord, verb string) *Problem {
	subject := "booking " + rec.ID
	switch rec.State {
	case StateBooking, StateCancelling, StateUpdating, StateExchanging:
		p := NewProblem(http.StatusConflict, CodeRejected, subject+" has a message to the reservation system under way; retry in a few seconds")
		p.Retryable = true
		return p
	case StatePrebooked:
		if verb == "refunded" {
			return NewProblem(http.StatusConflict, CodeBookingNotFulfilled, subject+" is not fulfilled: delete it (DELETE /bookings/"+rec.ID+") instead of refunding it")
		}
		return NewProblem(http.StatusConflict, CodeBookingExpired, subject+" passed its confirmationTimeLimit "+rec.HoldUntil.Format("2006-01-02T15:04:05Z07:00")+" and is released")
	case StateFulfilled:
		return NewProblem(http.StatusConflict, CodeBookingFulfilled, subject+" is fulfilled and cannot be "+verb+"; refund it (POST /bookings/"+rec.ID+"/refund-offers)")
	case StateReleased:
		return NewProblem(http.StatusConflict, CodeBookingExpired, subject+" was released: it was not fulfilled by its confirmationTimeLimit")
	case StateCancelled:
		return NewProblem(http.StatusConflict, CodeAlreadyCancelled, subject+" was cancelled")
	case StateRefunded:
		return NewProblem(http.StatusConflict, CodeBookingRefunded, subject+" was refunded")
	}
	return bookingNotFound(rec.ID)
}

// quoteShort quotes s for a problem text, cut to 40 bytes.
func quoteShort(s string) string { return strconv.Quote(shorten(s, 40)) }
