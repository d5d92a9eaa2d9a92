package osdm

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// BookingEmbeds are the values of the embed query parameter of GET
// /bookings/{bookingId} (BookingResponseContent), in the spec's order.
var BookingEmbeds = []string{
	"ALL", "BOOKING", "BOOKING_PASSENGERS", "BOOKING_PURCHASER", "BOOKING_TRIPS", "BOOKING_BOOKEDOFFERS",
	"BOOKING_FULFILLMENTS", "BOOKING_DOCUMENTS", "BOOKING_REFUNDOFFERS", "BOOKING_RELEASEOFFERS",
	"BOOKING_CANCELFULFILLMENTSOFFER", "BOOKING_EXCHANGEOPERATIONS", "NONE",
}

// CheckBookingEmbed checks the embed query parameter of GET
// /bookings/{bookingId}: repeated or comma separated values, each one of
// BookingEmbeds. A server that always answers the whole booking (the
// spec's default, ALL) takes every listed value; an unknown one is a 400
// INVALID_REQUEST naming it, as for an exchange offer search.
func CheckBookingEmbed(query url.Values) *ProblemError {
	for _, v := range query["embed"] {
		for _, s := range strings.Split(v, ",") {
			if !slices.Contains(BookingEmbeds, s) {
				if len(s) > 40 {
					s = s[:40] + "..."
				}
				return Invalid(CodeInvalidRequest, "", "embed "+strconv.Quote(s)+" is not one of "+strings.Join(BookingEmbeds, ", ")+" (absent means ALL)")
			}
		}
	}
	return nil
}
