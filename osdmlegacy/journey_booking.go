package osdmlegacy

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// POST /bookings of a journey offer: one BookingRequest per leg, in order
// of travel, each leg's intent recorded before it leaves; a leg refused
// rolls back the legs booked before it.

// createJourneyBooking books the journey offer of req for all its
// passengers, all or nothing.
func (js *journeys) createJourneyBooking(ctx context.Context, c *call, req *osdm.BookingRequest) *Answer {
	return bookOnce(ctx, js.core, c, journeyIDPrefix, js.loadJourney, errJourneyMissing,
		func(id string) (*Answer, bool) { return js.newJourneyBooking(ctx, c, id, req) },
		func(j *journeyRecord) (*Answer, bool) { return js.resumeJourney(ctx, c, j) })
}

// newJourneyBooking checks the request against its journey offer, records
// the journey and books its legs.
func (js *journeys) newJourneyBooking(ctx context.Context, c *call, id string, req *osdm.BookingRequest) (*Answer, bool) {
	now := js.now()
	jo, err := js.offers.openJourneyOffer(ctx, req.Offers[0].OfferID, now)
	if err != nil {
		return js.offers.openFailed(c, err)
	}
	first := &jo.Legs[0]
	if _, _, p := bookingPassengers(req, first, js.cfg.Tariffs); p != nil {
		return problemAnswer(p), true
	}
	claimed, err := js.bookings.claimOffer(ctx, first, id, now)
	if err != nil {
		return js.storeFailed(c, err), false
	}
	if !claimed {
		return problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, offerBookedAlready).
			WithPointer("#/offers/0/offerId")), true
	}
	j := &journeyRecord{
		ID: id, Partner: js.cfg.Partner, Client: c.client, State: journeyBooking,
		CreatedOn: now.UTC(), HoldUntil: now.Add(js.cfg.Hold).UTC().Truncate(time.Second),
		LeaseUntil: now.Add(js.cfg.Timeout), ExternalRef: req.ExternalRef, OfferID: jo.ID,
		Offers: jo.Legs, End: jo.Legs[len(jo.Legs)-1].Arrival,
	}
	for range jo.Legs {
		j.Legs = append(j.Legs, newID(bookingIDPrefix))
	}
	// The work list first, then the record: a crash in between leaves a
	// stale mark, never a journey nobody settles.
	if err := js.markJourneyOpen(ctx, id, 0, now); err != nil {
		return js.storeFailed(c, err), false
	}
	ok, err := js.putNewJourney(ctx, j)
	if err != nil {
		return js.storeFailed(c, err), false
	}
	if !ok {
		j, _, err = js.loadJourney(ctx, id)
		if err != nil {
			return js.storeFailed(c, err), false
		}
		return js.resumeJourney(ctx, c, j)
	}
	return js.bookJourney(ctx, c, j, req)
}

// legSet is leg bookings booked together, in order of travel: a
// journey's, or the new legs of its exchange.
type legSet struct {
	journeyID   string
	client      string
	ids         []string
	offers      []offerRecord
	holdUntil   time.Time
	externalRef string
	// passengers returns the passengers of a leg's offer and the names
	// its BookingRequest carries.
	passengers func(offer *offerRecord) ([]passengerRecord, []legacy.Passenger, *osdm.ProblemError)
}

// legsResult is what became of booking a legSet.
type legsResult struct {
	// legs are the leg bookings, nil from the first not recorded.
	legs []*bookingRecord
	// at is the leg that stopped the booking, -1 when every leg is held;
	// d its delivery: unsettled (the outcome is unknown), or settled with
	// the leg refused (d.proposal for a ReplacementProposal).
	at int
	d  *delivery
	// p is a problem of the request, found before the leg was sent.
	p *osdm.ProblemError
}

// bookLegs sends the BookingRequest of each leg of ls in turn, each
// recorded (startLeg) before it leaves, carrying on after a leg already
// booked or whose outcome a retry learns (redeliver asks first).
func (js *journeys) bookLegs(ctx context.Context, send Sender, ls *legSet) (*legsResult, error) {
	res := &legsResult{legs: make([]*bookingRecord, len(ls.ids)), at: -1}
	for i, id := range ls.ids {
		leg, _, err := js.bookings.loadBooking(ctx, id)
		resumed := err == nil
		switch {
		case errors.Is(err, errBookingMissing):
			offer := ls.offers[i]
			pax, names, p := ls.passengers(&offer)
			if p != nil {
				res.at, res.p = i, p
				return res, nil
			}
			if leg, err = js.startLeg(ctx, ls, i, &offer, pax, names); err != nil {
				return res, err
			}
		case err != nil:
			return res, err
		}
		d := &delivery{}
		if leg.State == stateBooking && leg.Pending != nil {
			leg, d = js.redeliverOrDeliver(ctx, send, leg, resumed)
		}
		res.legs[i] = leg
		if !d.settled() || leg.State != statePrebooked {
			res.at, res.d = i, d
			return res, nil
		}
	}
	return res, nil
}

// bookJourney books the legs of journey j (legSet), and answers: the
// booking once every leg is held; a leg refused rolls the journey back;
// a leg whose answer was lost leaves the journey to its retry or to
// settlement (which rolls it back once the call's lease is over).
func (js *journeys) bookJourney(ctx context.Context, c *call, j *journeyRecord, req *osdm.BookingRequest) (*Answer, bool) {
	res, err := js.bookLegs(ctx, c.send, &legSet{
		journeyID: j.ID, client: j.Client, ids: j.Legs, offers: j.Offers, holdUntil: j.HoldUntil, externalRef: j.ExternalRef,
		passengers: func(offer *offerRecord) ([]passengerRecord, []legacy.Passenger, *osdm.ProblemError) {
			return bookingPassengers(req, offer, js.cfg.Tariffs)
		},
	})
	switch {
	case err != nil:
		return js.storeFailed(c, err), false
	case res.p != nil:
		return problemAnswer(res.p), true
	case res.at >= 0:
		leg := res.legs[res.at]
		subject := "train " + leg.Offer.Train + " on " + leg.Offer.ServiceDate
		if a := js.settlement.unsettled(c, res.d, subject+" (leg "+strconv.Itoa(res.at+1)+" of the journey)",
			"the journey's booking is being settled: retry with the same Idempotency-Key to get it; a journey not booked in full is rolled back"); a != nil {
			return a, false
		}
		return js.failJourney(ctx, c, j, res.at, leg, res.d.proposal)
	}
	if i := mixedCurrency(res.legs); i > 0 {
		// One booking, one price: trains the legacy system booked in
		// different currencies cannot be added up, so the journey is
		// not sold (its trains given back without a fee).
		leg, first := res.legs[i], res.legs[0]
		p := osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, "journey leg "+strconv.Itoa(i+1)+", train "+leg.Offer.Train+" on "+leg.Offer.ServiceDate+
			": the reservation system booked it in "+leg.Legacy.Price.Currency+" and train "+first.Offer.Train+" in "+first.Legacy.Price.Currency+
			", which one booking cannot add up; nothing of the journey is booked")
		return js.failJourneyWith(ctx, c, j, &journeyFailure{Leg: i, Train: leg.Offer.Train}, p)
	}
	j, err = js.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if r.State != journeyBooking {
			return &errRefused{journeyUnbooked(r)}
		}
		r.State = journeyBooked
		return nil
	})
	if p := refusedBy(err); p != nil {
		return problemAnswer(p), true
	}
	if err != nil {
		return js.storeFailed(c, err), false
	}
	js.dropJourneyMark(ctx, j)
	return js.journeyAnswer(c, j, res.legs), true
}

// redeliverOrDeliver sends the pending BookingRequest of a leg: the first
// time as it is, after that through redeliver (which asks first).
func (js *journeys) redeliverOrDeliver(ctx context.Context, send Sender, leg *bookingRecord, resumed bool) (*bookingRecord, *delivery) {
	if resumed {
		return js.settlement.redeliver(ctx, send, leg)
	}
	return js.settlement.deliver(ctx, send, leg)
}

// startLeg records leg i of ls and its BookingRequest's intent, not yet
// sent.
func (js *journeys) startLeg(ctx context.Context, ls *legSet, i int, offer *offerRecord, pax []passengerRecord, names []legacy.Passenger) (*bookingRecord, error) {
	now := js.now()
	id := ls.ids[i]
	pending, err := js.settlement.newPending(stepBook, bookingRequestOf(id, offer, names, now), now)
	if err != nil {
		return nil, err
	}
	rec := &bookingRecord{
		ID: id, Partner: js.cfg.Partner, Client: ls.client, State: stateBooking, JourneyID: ls.journeyID,
		CreatedOn: now.UTC(), HoldUntil: ls.holdUntil,
		ExternalRef: ls.externalRef, Offer: *offer, Passengers: pax, Pending: pending,
	}
	if err := js.settlement.markHold(ctx, id, now); err != nil {
		return nil, err
	}
	ok, err := js.bookings.putNewBooking(ctx, rec)
	if err != nil {
		return nil, err
	}
	if !ok {
		rec, _, err = js.bookings.loadBooking(ctx, id)
	}
	return rec, err
}

// failJourney rolls back journey j after leg i was refused (leg holds
// nothing) and answers the refusal: the leg's train and legacy reason.
func (js *journeys) failJourney(ctx context.Context, c *call, j *journeyRecord, i int, leg *bookingRecord, proposal *legacy.ReplacementProposal) (*Answer, bool) {
	failure := &journeyFailure{Leg: i, Train: leg.Offer.Train, Refusal: leg.Failure}
	if proposal != nil {
		for _, a := range proposal.Alternatives {
			if a.TrainNumber == "" {
				a.TrainNumber = leg.Offer.Train
			}
			failure.Alternatives = append(failure.Alternatives, alternativeRecord{TrainNumber: a.TrainNumber, TravelClass: a.TravelClass,
				ReservationSystem: a.ReservationSystem, Operator: a.Operator, Priority: a.Priority})
		}
	}
	return js.failJourneyWith(ctx, c, j, failure, js.journeyRefusal(&journeyRecord{ID: j.ID, Legs: j.Legs, Failure: failure}, leg))
}

// failJourneyWith rolls back journey j, which failure stopped, and
// answers p.
func (js *journeys) failJourneyWith(ctx context.Context, c *call, j *journeyRecord, failure *journeyFailure, p *osdm.ProblemError) (*Answer, bool) {
	j, err := js.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if r.State != journeyBooking {
			return errNoChange
		}
		r.State, r.Failure = journeyRollingBack, failure
		return nil
	})
	if err != nil {
		return js.storeFailed(c, err), false
	}
	done, err := js.rollBackJourney(ctx, c.send, j)
	if err != nil {
		return js.storeFailed(c, err), false
	}
	if !done {
		p.Detail += "; the legs booked before it are being released"
	}
	return problemAnswer(p), done
}

// journeyRefusal is the problem of a journey whose leg was refused: the
// leg's train and the legacy reason (no places left: 409), or, for a
// train another system sells, ALTERNATIVE_SYSTEM_PROPOSAL with its
// proposals.
func (js *journeys) journeyRefusal(j *journeyRecord, leg *bookingRecord) *osdm.ProblemError {
	subject := "journey leg " + strconv.Itoa(indexOf(j.Legs, leg.ID)+1) + ", train " + leg.Offer.Train + " on " + leg.Offer.ServiceDate
	fl := leg.Failure
	switch {
	case fl == nil:
		return osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, subject+": the reservation system refused the booking; nothing of the journey is booked")
	case fl.Code == codeReplacementProposal && j.Failure != nil && len(j.Failure.Alternatives) > 0:
		c := &candidate{run: TrainRun{Train: leg.Offer.Train, ServiceDate: leg.Offer.ServiceDate}}
		var alts []legacy.Alternative
		for _, a := range j.Failure.Alternatives {
			alts = append(alts, legacy.Alternative{TrainNumber: a.TrainNumber, TravelClass: a.TravelClass,
				ReservationSystem: a.ReservationSystem, Operator: a.Operator, Priority: a.Priority})
		}
		asp := aspProblem(c, alts, "")
		p := osdm.Fail(osdm.CodeAlternativeSystemProposal, subject+" is sold by another reservation system; nothing of the journey is booked")
		p.Type, p.Title = asp.Type, asp.Title
		p.AlternativeSystemProposals = asp.AlternativeSystemProposals
		return p
	case fl.Code == codeReplacementProposal:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, subject+": another reservation system sells this train; nothing of the journey is booked")
	}
	p := NegativeProblem(&legacy.NegativeReply{Code: fl.Code, Retryable: fl.Retryable}, subject)
	p.Detail += " (legacy " + string(fl.Code) + "); nothing of the journey is booked"
	return p
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// journeyUnbooked is the problem of a journey whose booking did not end
// booked (rolled back by settlement meanwhile).
func journeyUnbooked(j *journeyRecord) *osdm.ProblemError {
	p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the booking of journey "+j.ID+" was not completed in time and was rolled back; nothing of it is booked")
	if j.Failure != nil {
		p.Detail = "journey leg " + strconv.Itoa(j.Failure.Leg+1) + ", train " + j.Failure.Train + ": the booking was refused; nothing of the journey is booked"
	}
	return p
}

// resumeJourney answers a repeated POST /bookings (same Idempotency-Key)
// of a journey: from the journey as it stands, carrying on with its legs
// once the first call's lease is over.
func (js *journeys) resumeJourney(ctx context.Context, c *call, j *journeyRecord) (*Answer, bool) {
	legs, err := js.loadLegs(ctx, j)
	if err != nil {
		return js.storeFailed(c, err), false
	}
	switch j.State {
	case journeyBooked:
		return js.journeyAnswer(c, j, legs), true
	case journeyRollingBack, journeyFailed:
		for _, leg := range legs {
			if leg != nil && j.Failure != nil && leg.ID == j.Legs[j.Failure.Leg] && leg.Failure != nil {
				return problemAnswer(js.journeyRefusal(j, leg)), j.State == journeyFailed
			}
		}
		return problemAnswer(journeyUnbooked(j)), j.State == journeyFailed
	}
	now := js.now()
	if now.Before(j.LeaseUntil) {
		return problemAnswer(underWay("booking "+j.ID, "messages")), false
	}
	j, err = js.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if r.State != journeyBooking || now.Before(r.LeaseUntil) {
			return &errRefused{journeyUnbooked(r)}
		}
		r.LeaseUntil = now.Add(js.cfg.Timeout)
		return nil
	})
	if p := refusedBy(err); p != nil {
		return problemAnswer(p), false
	}
	if err != nil {
		return js.storeFailed(c, err), false
	}
	req, p := readBookingRequest(c.body)
	if p != nil {
		return problemAnswer(p), true
	}
	return js.bookJourney(ctx, c, j, req)
}

// rollBackJourney undoes every leg of journey j that holds places
// (rollBackLegs); once none does, the journey is JOURNEY_FAILED and off
// settlement's list.
func (js *journeys) rollBackJourney(ctx context.Context, send Sender, j *journeyRecord) (bool, error) {
	done, err := js.rollBackLegs(ctx, send, j.ID, j.Legs)
	if !done || err != nil {
		return false, err
	}
	after, err := js.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if r.State == journeyFailed {
			return errNoChange
		}
		r.State = journeyFailed
		return nil
	})
	if err != nil {
		return false, err
	}
	js.dropJourneyMark(ctx, after)
	_ = js.store.Delete(ctx, js.bookings.offerClaimKey(j.OfferID))
	return true, nil
}

// rollBackLegs undoes every leg booking of ids (of journey jid) that
// holds places, last first: a leg whose BookingRequest's outcome is
// unknown is asked about first (settleOne), a leg booked is cancelled
// with the technical reason code (no fee). It reports whether no leg
// holds places any more.
func (js *journeys) rollBackLegs(ctx context.Context, send Sender, jid string, ids []string) (bool, error) {
	legs, err := js.loadLegs(ctx, &journeyRecord{ID: jid, Legs: ids})
	if err != nil {
		return false, err
	}
	reason, ok := js.cfg.Reasons[osdm.OverruleTechnicalFailure]
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
			js.settlement.settleOne(ctx, send, leg, &rep)
			if leg, _, err = js.bookings.loadBooking(ctx, leg.ID); err != nil {
				return false, err
			}
		}
		switch {
		case leg.State == statePrebooked,
			leg.State == stateCancelling && leg.Pending != nil && leg.Pending.Cancel == cancelRollback:
			after, d, p := js.bookings.cancel(ctx, send, leg, cancelRollback, "", &reason)
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
	js.settlement.eachMark(ctx, kindJourneyOpen, rep, func(id string, v []byte, m workMark, now time.Time) {
		j, _, err := js.loadJourney(ctx, id)
		if !js.settlement.recordFound(ctx, kindJourneyOpen, id, v, now.Sub(m.At), err, rep) {
			return
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
				return
			}
			// An exchange starting meanwhile writes the mark again, and
			// one started before writes its mark before its record: a
			// mark of an exchange the record does not show goes only
			// once stale.
			if m.ahead(j.exchangeN()) {
				js.settlement.dropStaleMark(ctx, kindJourneyOpen, id, v, now.Sub(m.At), rep)
				return
			}
			js.settlement.dropMark(ctx, kindJourneyOpen, id, v, rep)
			return
		case journeyFailed:
			js.settlement.dropMark(ctx, kindJourneyOpen, id, v, rep)
			return
		}
		if now.Before(j.LeaseUntil) {
			rep.Waiting++
			return
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
			return
		}
		if err != nil {
			rep.Errors++
			return
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
	})
}

// mixedCurrency is the index of the first leg the legacy system booked in
// another currency than the first leg, 0 when all are in one.
func mixedCurrency(legs []*bookingRecord) int {
	for i, leg := range legs {
		if leg != nil && leg.Legacy != nil && legs[0].Legacy != nil && leg.Legacy.Price.Currency != legs[0].Legacy.Price.Currency {
			return i
		}
	}
	return 0
}
