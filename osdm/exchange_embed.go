package osdm

import (
	"net/url"
	"strconv"
	"strings"
)

// ExchangeEmbed is what the embed query parameter of POST
// /bookings/{bookingId}/exchange-offers asks the answer to embed.
type ExchangeEmbed struct {
	// Offers, Trips and Passengers: EXCHANGEOFFERS, TRIP, PASSENGERS.
	Offers, Trips, Passengers bool
}

// ReadExchangeEmbed reads the embed query parameter of an exchange offer
// search. The spec marks it required, but clients (the UIC's own test
// suite among them) send none: absent means ALL, as the spec's default
// for embed elsewhere. Repeated or comma separated values are joined; an
// unknown value is a 400 INVALID_REQUEST naming it.
func ReadExchangeEmbed(query url.Values) (ExchangeEmbed, *ProblemError) {
	var e ExchangeEmbed
	values := query["embed"]
	if len(values) == 0 {
		values = []string{EmbedAll}
	}
	for _, v := range values {
		for _, s := range strings.Split(v, ",") {
			switch s {
			case EmbedAll:
				e = ExchangeEmbed{Offers: true, Trips: true, Passengers: true}
			case "EXCHANGEOFFERS":
				e.Offers = true
			case "TRIP":
				e.Trips = true
			case "PASSENGERS":
				e.Passengers = true
			case "NONE":
			default:
				if len(s) > 40 {
					s = s[:40] + "..."
				}
				return e, Invalid(CodeInvalidRequest, "", "embed "+strconv.Quote(s)+" is not one of ALL, EXCHANGEOFFERS, TRIP, PASSENGERS, NONE (absent means ALL)")
			}
		}
	}
	return e, nil
}
