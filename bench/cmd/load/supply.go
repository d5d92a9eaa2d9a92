package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// supply holds the requests of a scenario that acts on fresh offers or
// bookings (D, E, P), each usable once, and makes more between its
// attacks: before each attack, as many as that attack may send, sized
// from the fastest rate the scenario has shown so far. Making them ahead
// of the whole run instead meant guessing its rate from A's: four times
// too many bookings for a partial cancellation, made for longer than the
// measurement took, and for longer than the partner's token lifetime.
// Nothing is made while a scenario is measured.
type supply struct {
	// make makes n more requests; first numbers the first of them.
	make func(ctx context.Context, first, n int) ([]vegeta.Target, error)
	// share is the scenario's rate before it has run, as a share of A's
	// warm-up rate; guess is that rate once A has run.
	share, guess float64
	// pending are the requests made and not sent yet.
	pending []vegeta.Target
	// made counts the requests made in all; rate is the fastest rate
	// (good answers a second) of an attack so far.
	made int
	rate float64
	// spent is the time spent making them.
	spent time.Duration
}

// supplyMargin is how many more requests an attack gets than its rate
// says it sends: an attack that ran out would end early.
const supplyMargin = 1.3

// need is how many requests an attack of p may send: the open loop its
// rate, the closed loop the scenario's fastest rate so far (its guess
// before it ran), with the margin and one per worker on top.
func (s *supply) need(p phase) int {
	rate := float64(p.rate)
	if p.rate == 0 {
		rate = s.rate
		if rate <= 0 {
			rate = s.guess
		}
	}
	return int(math.Ceil(rate*p.duration.Seconds()*supplyMargin)) + 2*p.concurrency + 10
}

// ready makes sure an attack of p has its requests and returns the
// targeter of the attack and how many it sent (after the attack).
func (s *supply) ready(ctx context.Context, name string, p phase) (vegeta.Targeter, func() int, error) {
	if short := s.need(p) - len(s.pending); short > 0 {
		start := time.Now()
		ts, err := s.make(ctx, s.made, short)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		took := time.Since(start)
		s.spent += took
		s.made += len(ts)
		s.pending = append(s.pending, ts...)
		log.Printf("%s: made %d fresh requests for its %s attack in %.1f s (%.0f a second; %d in all)",
			name, len(ts), p.name, took.Seconds(), float64(len(ts))/max(took.Seconds(), 1e-3), s.made)
	}
	tr, used := each(s.pending)
	return tr, used, nil
}

// sent drops the n requests an attack sent and notes its rate.
func (s *supply) sent(n int, rate float64) {
	s.pending = s.pending[min(n, len(s.pending)):]
	s.rate = max(s.rate, rate)
}

// newSupply is the supply of scenario sc: fresh offers (D) or fulfilled
// bookings (E, P) made straight at the partner with the driver's tokens,
// turned into sc's requests.
func newSupply(sc *scenario, e *env, partner string, tokens tokenauth.TokenSource) *supply {
	s := &supply{}
	switch {
	case sc.needsOffers:
		// A D request makes two partner calls, so it cannot go faster
		// than A; half again as much, as A's warm-up may have been slowed.
		s.share = 1.5
		s.make = func(ctx context.Context, first, n int) ([]vegeta.Target, error) {
			offers, err := makeOffers(ctx, partner, tokens, first, n)
			if err != nil {
				return nil, err
			}
			return sc.fresh(&env{front: e.front, ids: e.ids, offers: offers})
		}
	case sc.bookingPax > 0:
		// Three or four partner calls (the booking read back, then two or
		// three); sent directly, a partial cancellation ran at 0.3 of A's
		// rate.
		s.share = 0.45
		s.make = func(ctx context.Context, first, n int) ([]vegeta.Target, error) {
			bookings, err := makeBookings(ctx, partner, tokens, first, n, sc.bookingPax)
			if err != nil {
				return nil, err
			}
			return sc.fresh(&env{front: e.front, ids: e.ids, bookings: bookings})
		}
	}
	return s
}
