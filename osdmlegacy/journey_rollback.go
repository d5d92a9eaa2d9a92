package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// rollBackJourney undoes every leg of journey j that holds places
// (rollBackLegs); once none does, the journey is JOURNEY_FAILED and off
// settlement's list.
func (js *journeys) rollBackJourney(ctx context.Context, send Sender, j *journeyRecord) (bool, error) {
	done, err := js.rollBackLegs(ctx, send, j.ID, j.Legs)
	if !done || err != nil {
		return false, err
	}
	_, err = js.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if r.State == journeyFailed {
			return errNoChange
		}
		r.State = journeyFailed
		return nil
	})
	if err != nil {
		return false, err
	}
	_ = js.store.Delete(ctx, storeKey(js.cfg.Partner, kindJourneyOpen, j.ID))
	_ = js.store.Delete(ctx, js.bookings.offerClaimKey(j.OfferID))
	return true, nil
}

// rollBackLegs undoes every leg booking of ids (of journey jid) that
// holds places, last first: a leg whose BookingRequest's outcome is
// unknown is asked about first (settleOne), a leg booked is cancelled
// with the technical reason code (no fee). It reports whether no leg
// holds places any more.
func (j *journeys) rollBackLegs(ctx context.Context, send Sender, jid string, ids []string) (bool, error) {
	legs, err := j.loadLegs(ctx, &journeyRecord{ID: jid, Legs: ids})
	if err != nil {
		return false, err
	}
	reason, ok := j.cfg.Reasons[osdm.OverruleTechnicalFailure]
	if !ok {
		reason = DefaultReasons()[osdm.OverruleTechnicalFailure]
	}
	done := true
	for i := len(legs) - 1; i >= 0; i-- {
		leg := legs[i]
		if leg == nil {
			continue // never recorded, so never sent
		}
		if leg.State == stateBooking && leg.Pending != nil {
			var rep SettleReport
			j.settlement.settleOne(ctx, send, leg, &rep)
			if leg, _, err = j.bookings.loadBooking(ctx, leg.ID); err != nil {
				return false, err
			}
		}
		switch {
		case leg.State == statePrebooked,
			leg.State == stateCancelling && leg.Pending != nil && leg.Pending.Cancel == cancelRollback:
			after, d, p := j.bookings.cancel(ctx, send, leg, cancelRollback, "", &reason)
			if p != nil || d == nil || !d.settled() || after.State.holdsPlaces() {
				done = false
			}
		case leg.State.holdsPlaces():
			done = false
		}
	}
	return done, nil
}

// settleJourneys settles every journey whose booking is open and whose
// call's lease is over: never answered booked, it is rolled back (a
// crash between legs leaves no journey half booked).
func (js *journeys) settleJourneys(ctx context.Context, send Sender, rep *SettleReport) {
	marks, err := js.settlement.listMarks(ctx, kindJourneyOpen)
	if err != nil {
		rep.Errors++
		return
	}
	for id, v := range marks {
		if ctx.Err() != nil {
			return
		}
		var m intentMark
		_ = json.Unmarshal(v, &m)
		now := js.now()
		j, _, err := js.loadJourney(ctx, id)
		switch {
		case errors.Is(err, errJourneyMissing):
			js.settlement.dropStaleMark(ctx, kindJourneyOpen, id, now.Sub(m.At), rep)
			continue
		case err != nil:
			rep.Errors++
			continue
		}
		switch j.State {
		case journeyBooked:
			if x := j.Exchange; x.open() || x != nil && x.Confirming {
				switch done, err := js.exchanges.settleJourneyExchange(ctx, send, j); {
				case err != nil:
					rep.Errors++
				case done:
					rep.Settled++
				default:
					rep.Waiting++
				}
				continue
			}
			_ = js.store.Delete(ctx, storeKey(js.cfg.Partner, kindJourneyOpen, id))
			rep.Stale++
			continue
		case journeyFailed:
			_ = js.store.Delete(ctx, storeKey(js.cfg.Partner, kindJourneyOpen, id))
			rep.Stale++
			continue
		}
		if now.Before(j.LeaseUntil) {
			rep.Waiting++
			continue
		}
		j, err = js.updateJourney(ctx, id, func(r *journeyRecord) error {
			if r.State != journeyBooking && r.State != journeyRollingBack || now.Before(r.LeaseUntil) {
				return &errRefused{}
			}
			r.State, r.LeaseUntil = journeyRollingBack, now.Add(js.cfg.Timeout)
			return nil
		})
		var taken *errRefused
		if errors.As(err, &taken) {
			continue
		}
		if err != nil {
			rep.Errors++
			continue
		}
		done, err := js.rollBackJourney(ctx, send, j)
		switch {
		case err != nil:
			rep.Errors++
		case done:
			rep.Settled++
		default:
			rep.Unresolved++
		}
	}
}
