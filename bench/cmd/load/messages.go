package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// partnerName is the partner label of the converter front's route; the
// converter derives Idempotency-Keys from it, so the direct calls use it too.
const partnerName = "alpine"

// idPlaceholder stands for the messageId in the message templates; every
// request gets its own id, since osdm_convert answers a resent messageId
// from its reply cache without calling the partner.
const idPlaceholder = "BENCHMSGIDxxxxxxxxxxxxxxxx"

// journey is the train run every scenario asks about: the example of
// legacy-protocol.md, days ahead so that the sandbox sells it.
func journey(daysAhead int) legacy.Journey {
	return legacy.Journey{
		TrainNumber:   "9203",
		DepartureDate: time.Now().AddDate(0, 0, daysAhead).Format(time.DateOnly),
		DepartureTime: "07:56",
		From:          "8727100",
		To:            "8500010",
	}
}

// availabilityRequest is scenario B's message: two adults and a child in
// second class, as in legacy-protocol.md.
func availabilityRequest(id string) *legacy.AvailabilityRequest {
	return &legacy.AvailabilityRequest{
		Header:  legacy.Header{MessageID: id, Sender: 87},
		Journey: journey(30),
		Places: legacy.PlaceRequest{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat,
			Tariffs: []legacy.Tariff{{Code: 1, Count: 2}, {Code: 2, Count: 1}}},
	}
}

// bookingRequest is scenario D's message: one adult, booking offerRef.
func bookingRequest(id, offerRef string) *legacy.BookingRequest {
	return &legacy.BookingRequest{
		Header:  legacy.Header{MessageID: id, Sender: 87},
		Journey: journey(30),
		Places: legacy.PlaceRequest{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat,
			Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}},
		OfferRef:   offerRef,
		Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Muster", DateOfBirth: "1990-05-17"}},
	}
}

// exchangeRequest is scenario E's message: the booking exchanged, every
// passenger, to the same train a week later (the converter asks for
// exchange offers and picks one).
func exchangeRequest(id string, b madeBooking) legacy.Message {
	m := paxBookingRequest(id, b.day+7, len(b.places))
	m.ExchangeOf = b.ref
	return m
}

// partialCancel is scenario P's message: the first place of the booking
// cancelled, the others kept.
func partialCancel(id string, b madeBooking) legacy.Message {
	return &legacy.CancelRequest{Header: legacy.Header{MessageID: id, Sender: 87}, BookingRef: b.ref, Places: b.places[:1]}
}

// oneAdultSearch is the search that makes D's offers: one adult, second
// class, on the given day; the converter books such an offer for a
// BookingRequest of one place at tariff 1.
func oneAdultSearch(id string, daysAhead int) *legacy.AvailabilityRequest {
	r := availabilityRequest(id)
	r.Journey = journey(daysAhead)
	r.Places.Tariffs = []legacy.Tariff{{Code: 1, Count: 1}}
	return r
}

// errCaptured ends a conversion once the call of interest is captured.
var errCaptured = errors.New("captured")

// osdmCall returns the first OSDM call the converter makes for m: the
// exact request that the bare-proxy scenarios send, so that A and B (and
// both halves of D) ask the partner the same thing.
func osdmCall(m legacy.Request) (*converter.Call, error) {
	c, err := converter.New(converter.Config{Partner: partnerName})
	if err != nil {
		return nil, err
	}
	var got *converter.Call
	c.Convert(context.Background(), m, converter.CallerFunc(func(_ context.Context, call *converter.Call) (*converter.Answer, error) {
		if got == nil {
			got = call
		}
		return nil, errCaptured
	}))
	if got == nil {
		return nil, fmt.Errorf("the converter made no OSDM call for %s", m.Kind())
	}
	return got, nil
}

// encodeXML writes a legacy message as the reservation system sends it.
func encodeXML(m legacy.Message) ([]byte, error) {
	return legacy.Encode(legacy.XML, m)
}

// messageIDs hands out unique messageIds for one scenario run.
type messageIDs struct {
	prefix string
	n      atomic.Uint64
}

func newMessageIDs(scenario string) *messageIDs {
	return &messageIDs{prefix: scenario + "-" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36) + "-"}
}

// next returns a new id, as long as idPlaceholder so that every body of
// a scenario has the same length.
func (ids *messageIDs) next() string {
	return fmt.Sprintf("%s%0*d", ids.prefix, len(idPlaceholder)-len(ids.prefix), ids.n.Add(1))
}

// jsonHeader is the header of every OSDM call the driver sends itself.
func jsonHeader(token string) http.Header {
	h := http.Header{}
	h.Set("Accept", "application/json")
	h.Set("Content-Type", "application/json")
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return h
}
