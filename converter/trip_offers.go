package converter

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// tripOffersQuery is the query string of GET /trip-offers, the offer
// search of `offer_search trip-offers`. OSDM 3.9 has no such operation;
// older partners search with the criteria in the query string, and the
// converter and osdm_sandbox implement this contract:
//
//	GET /trip-offers?originCode=urn:uic:stn:8727100
//	    &destinationCode=urn:uic:stn:8500010
//	    &departureTime=2026-12-01T07:56:00+01:00
//	    &vehicleNumbers=9203
//	    &travelClasses=SECOND
//	    &requestedOfferParts=RESERVATION
//	    &passenger=p1,ADULT,30&passenger=p2,ADULT,30&passenger=p3,CHILD,8
//
// The parameters:
//   - originCode, destinationCode: the stations as OSDM StopPlaceRef codes.
//   - departureTime: RFC 3339 with the departure station's UTC offset (the
//     same instant POST /offers sends), the earliest departure wanted.
//   - vehicleNumbers: the train number; only that train is wanted.
//   - travelClasses: FIRST or SECOND.
//   - requestedOfferParts: RESERVATION.
//   - passenger: one per place, "<externalRef>,<TYPE>,<age>"; the
//     externalRefs come back in the offers' passengerRefs.
//
// Values are query-escaped (the offset's "+" is sent as %2B, the commas as
// %2C) and the parameters are sent in the order above. The answer is a
// 200 with an OSDM OfferCollectionResponse, or a problem+json error, read
// exactly as the answers of POST /offers.
func tripOffersQuery(j legacy.Journey, p legacy.PlaceRequest, departure time.Time, ts []traveller) string {
	var b strings.Builder
	param := func(name, value string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(value))
	}
	param("originCode", osdm.UICStation(j.From))
	param("destinationCode", osdm.UICStation(j.To))
	param("departureTime", departure.Format(time.RFC3339))
	param("vehicleNumbers", j.TrainNumber)
	param("travelClasses", string(travelClass(p.TravelClass)))
	param("requestedOfferParts", string(osdm.OfferPartReservation))
	for _, t := range ts {
		param("passenger", t.ref+","+string(t.tariff.Type)+","+strconv.Itoa(t.tariff.Age))
	}
	return b.String()
}
