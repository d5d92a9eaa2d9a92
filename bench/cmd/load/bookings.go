package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// madeBooking is a fulfilled booking made beforehand for an after-sales
// scenario, straight at the partner.
type madeBooking struct {
	// ref is its BookingRef (the OSDM booking id).
	ref string
	// day is how many days ahead it travels.
	day int
	// places are the places of its BookingReply.
	places []legacy.Place
}

// makeBookings books and fulfils n bookings of pax adults each at the
// partner directly (not through a front), spread over offerDays
// departure days: a legacy BookingRequest without OfferRef, converted in
// the driver (search, book, fulfil), with the current token of tokens
// for each call (a run outlives the partner's token lifetime). Every
// after-sales request acts on a booking of its own, as every D request
// books an offer of its own. first numbers the bookings, so that each
// batch of a run spreads over the days as the one before.
func makeBookings(ctx context.Context, partner string, tokens tokenauth.TokenSource, first, n, pax int) ([]madeBooking, error) {
	c, err := converter.New(converter.Config{Partner: partnerName})
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}
	defer tr.CloseIdleConnections()
	x := &httpCaller{rt: tr, base: partner, tokens: tokens}
	ids := newMessageIDs("prep")
	made, err := prepare(n, 8, func(i int) ([]madeBooking, error) {
		day := 20 + (first+i)%offerDays
		m := paxBookingRequest(ids.next(), day, pax)
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		res := c.Convert(cctx, m, x)
		if br, ok := res.Reply.(*legacy.BookingReply); ok && len(br.Places) == pax {
			return []madeBooking{{ref: br.BookingRef, day: day, places: br.Places}}, nil
		}
		return nil, fmt.Errorf("booking %d of %d: %s", i, n, replyText(res.Reply))
	})
	if err != nil {
		return nil, fmt.Errorf("making bookings: %w", err)
	}
	return made, nil
}

// replyText says what a reply that is not the one wanted is.
func replyText(r legacy.Reply) string {
	if nr, ok := r.(*legacy.NegativeReply); ok {
		return string(nr.Code) + ": " + nr.Text
	}
	return fmt.Sprintf("%T", r)
}

// paxBookingRequest books pax adults in second class on the bench train,
// day days ahead, letting the converter search and pick.
func paxBookingRequest(id string, day, pax int) *legacy.BookingRequest {
	m := bookingRequest(id, "")
	m.Journey = journey(day)
	m.Places.Tariffs = []legacy.Tariff{{Code: 1, Count: pax}}
	m.Passengers = nil
	for i := range pax {
		m.Passengers = append(m.Passengers, legacy.Passenger{FirstName: "Anna", LastName: fmt.Sprintf("Muster%d", i+1), DateOfBirth: "1990-05-17"})
	}
	return m
}
