package osdmlegacy

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// An exchange replaces the whole journey by a new one (a direct train or
// a journey with changes): its exchange offers are searched and quoted as
// a booking's are, against the sum of the journey's prices; the exchange
// operation books the new legs all or nothing (a leg refused rolls back
// the new legs booked before it) and holds them; the fulfilment that
// confirms it cancels the old legs, then confirms the new ones, and the
// booking is the new journey. Deleting the operation, or its hold running
// out, gives the new legs back; the journey stands as it was. Settlement
// finishes what a crash left: new legs never answered are rolled back, a
// confirmation begun is carried on.

// journeyExchange is the exchange operation of a journey (the latest).
type journeyExchange struct {
	// ID is the exchange operation id.
	ID string `json:"id"`
	// N numbers the journey's exchange operations from 1 (what its
	// journey mark lists); 0 in one of an earlier release.
	N int `json:"n,omitempty"`
	// State is where it is (the exchangeState of a booking's exchange).
	State exchangeState `json:"state"`
	// CreatedOn is when it was asked; HoldUntil when its new legs are
	// released unless confirmed; LeaseUntil when the call booking or
	// confirming it is presumed dead.
	CreatedOn  time.Time `json:"createdOn"`
	HoldUntil  time.Time `json:"holdUntil"`
	LeaseUntil time.Time `json:"leaseUntil"`
	// OfferID is the exchange offer booked, Quote its terms, Offers its
	// legs and Legs the new leg bookings' ids.
	OfferID string        `json:"offerId"`
	Quote   exchangeQuote `json:"quote"`
	Offers  []offerRecord `json:"offers"`
	Legs    []string      `json:"legs"`
	// Failure is the refusal of a new leg (exchangeFailed).
	Failure *journeyFailure `json:"failure,omitempty"`
	// Confirming is set once the fulfilment began giving back the old
	// legs: settlement then carries the confirmation on.
	Confirming bool `json:"confirming,omitempty"`
	// RollingBack is set once settlement began giving back new legs never
	// answered: a retry of the operation no longer carries on.
	RollingBack bool `json:"rollingBack,omitempty"`
	// Old are the legs it replaced, once confirmed.
	Old []string `json:"old,omitempty"`
	// ConfirmedOn is when the new legs became the journey.
	ConfirmedOn *time.Time `json:"confirmedOn,omitempty"`
}

// open reports whether the exchange holds, or may hold, new legs the
// journey does not show yet.
func (x *journeyExchange) open() bool {
	return x != nil && (x.State == exchangeBooking || x.State == exchangePrebooked)
}

// exchangeQuote returns the journey's quote of exchange offer id, nil
// when none.
func (j *journeyRecord) exchangeQuote(offerID string) *exchangeQuote {
	k := exchangeOfferKey(offerID)
	for i := range j.ExchangeQuotes {
		if j.ExchangeQuotes[i].OfferKey == k {
			return &j.ExchangeQuotes[i]
		}
	}
	return nil
}

// journeyExchangeable says why journey j cannot be exchanged as ask asks,
// nil when it can: every leg fulfilled and wholly booked, every
// fulfilment named (an exchange replaces the whole journey), no exchange
// under way, the first train not left, and the search naming the
// booking's passengers as they were booked.
func (xs *exchanges) journeyExchangeable(j *journeyRecord, legs []*bookingRecord, ask *exchangeOfferAsk) *osdm.ProblemError {
	if j.Exchange.open() {
		return osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "booking "+j.ID+" has exchange operation "+j.Exchange.ID+
			" under way: confirm it (POST /bookings/"+j.ID+"/fulfillments) or delete it first")
	}
	for _, leg := range legs {
		one := &exchangeOfferAsk{overrule: ask.overrule, search: ask.search}
		if leg.Fulfillment != nil {
			one.fulfillmentIDs = []string{leg.Fulfillment.ID}
		}
		if p := xs.exchangeable(leg, one); p != nil {
			p.Detail = journeyDetail(p.Detail, j, leg)
			return p
		}
		if !contains(ask.fulfillmentIDs, leg.Fulfillment.ID) {
			return restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/fulfillmentIds",
				"an exchange replaces the whole journey: name the fulfilment of every train ("+leg.Offer.Train+"'s is missing)")
		}
	}
	for i, fid := range ask.fulfillmentIDs {
		found := false
		for _, leg := range legs {
			found = found || leg.Fulfillment.ID == fid
		}
		if !found {
			return osdm.NewProblem(http.StatusNotFound, osdm.CodeFulfillmentNotFound,
				"fulfilment "+quoteShort(fid)+" is not one of booking "+j.ID+"'s").WithPointer("#/fulfillmentIds/" + strconv.Itoa(i))
		}
	}
	return nil
}

// quoteJourneyExchange quotes the exchange of a fulfilled journey to the
// trips (direct or with changes) its search finds.
func (xs *exchanges) quoteJourneyExchange(ctx context.Context, c *call, ask *exchangeOfferAsk, embed osdm.ExchangeEmbed) (*Answer, bool) {
	j, legs, a := xs.journeys.journeyOf(ctx, c)
	if a != nil {
		return a, finalAnswer(a)
	}
	if p := xs.journeyExchangeable(j, legs, ask); p != nil {
		return problemAnswer(p), finalProblem(p)
	}
	q := ask.search
	ts, p := xs.offers.trips(q)
	if p != nil {
		return problemAnswer(p), true
	}
	if p := xs.offers.inSaleWindowSet(q, ts, c.now); p != nil {
		return problemAnswer(p), true
	}
	day, _ := time.Parse(time.DateOnly, ts.first().run.ServiceDate)
	pax, p := xs.exchangePassengers(q, day, &legs[0].Offer)
	if p != nil {
		return problemAnswer(p), true
	}
	probes := xs.offers.plan(ts.direct, q.classes, xs.cfg.ServiceCodes, tariffCounts(pax), c.now)
	legProbes := xs.offers.plan(ts.legs, q.classes, xs.cfg.ServiceCodes, tariffCounts(pax), c.now)
	c.answer.FanOut = len(probes) + len(legProbes)
	signer, err := xs.offers.offerSigner(ctx)
	if err != nil {
		return xs.offers.offerKeyFailed(c, err), false
	}
	xs.offers.fanOut(ctx, c.send, append(probes[:len(probes):len(probes)], legProbes...))
	sa, p := xs.offers.collect(c, q, probes, pax, signer, ts, legProbes)
	if p != nil {
		return problemAnswer(p), finalProblem(p)
	}
	old := make([]osdm.Price, 0, len(legs))
	for _, leg := range legs {
		old = append(old, leg.bookedPrice())
	}
	now := xs.now().UTC()
	quotes, offers, p := xs.quoteExchanges(sa.resp.Offers, old, ask.overrule, now, "journey", func(o osdm.Offer) (osdm.Price, bool) {
		if len(o.ReservationOfferParts) == 0 || o.OfferSummary == nil {
			return osdm.Price{}, false
		}
		return o.OfferSummary.MinimalPrice, true
	})
	if p != nil {
		return problemAnswer(p), true
	}
	quotesOf := func(r *journeyRecord) *[]exchangeQuote { return &r.ExchangeQuotes }
	if j, err = holdQuotes(ctx, xs, j.ID, xs.journeys.updateJourney, quotesOf, offers, quotes, now); err != nil {
		return xs.storeFailed(c, err), false
	}
	view := func(o osdm.Offer, q *exchangeQuote) osdm.ExchangeOffer { return xs.journeyExchangeOffer(j, legs, o, q) }
	return xs.exchangeOffersAnswer(c, embed, &sa.resp, offers, quotes, view, legs[0].Passengers), true
}

// journeyExchangeOffer is the ExchangeOffer of o quoted as q, replacing
// every fulfilment of the journey.
func (xs *exchanges) journeyExchangeOffer(j *journeyRecord, legs []*bookingRecord, o osdm.Offer, q *exchangeQuote) osdm.ExchangeOffer {
	v := exchangeOfferOf(legs[0], o, q)
	v.Fulfillments = []osdm.Fulfillment{}
	for _, leg := range legs {
		if leg.Fulfillment != nil {
			fv := fulfillmentView(leg)
			fv.BookingRef = j.ID
			v.Fulfillments = append(v.Fulfillments, fv)
		}
	}
	return v
}

// openExchangeOffer returns the legs of an exchange offer id: a journey's
// or a single train's.
func (xs *exchanges) openExchangeOffer(ctx context.Context, id string, now time.Time) ([]offerRecord, error) {
	if isJourneyOfferID(id) {
		jo, err := xs.offers.openJourneyOffer(ctx, id, now)
		if err != nil {
			return nil, err
		}
		return jo.Legs, nil
	}
	o, err := xs.offers.openOffer(ctx, id, now)
	if err != nil {
		return nil, err
	}
	return []offerRecord{*o}, nil
}

// createJourneyExchangeOperation books the new legs of an exchange offer
// of a journey, all or nothing, and holds them until the fulfilment.
func (xs *exchanges) createJourneyExchangeOperation(ctx context.Context, c *call) *Answer {
	sel, p := readExchangeOperationRequest(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	return xs.idempotent(ctx, c, func() string { return newID(exchangeOperationIDPrefix) }, func(xid string) (*Answer, bool) {
		j, legs, a := xs.journeys.journeyOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		if x := j.Exchange; x != nil && x.ID == xid {
			return xs.resumeJourneyExchange(ctx, c, j, legs)
		}
		now := xs.now()
		notFound := osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound,
			"no exchange offer of booking "+j.ID+" has this id, or it expired; ask for exchange offers again").WithPointer("#/exchangeOffers/0/offerId")
		offers, err := xs.openExchangeOffer(ctx, sel.OfferID, now)
		if err != nil && !errors.Is(err, errOfferNotFound) {
			return xs.offers.offerKeyFailed(c, err), false
		}
		q := j.exchangeQuote(sel.OfferID)
		if offers == nil || q == nil || !now.Before(q.ValidUntil) {
			return problemAnswer(notFound), true
		}
		if p := exchangePassengers(sel, &offers[0]); p != nil {
			return problemAnswer(p), true
		}
		claim := offers[0]
		claim.ID = sel.OfferID
		claimed, err := xs.bookings.claimOffer(ctx, &claim, j.ID, now)
		if err != nil {
			return xs.storeFailed(c, err), false
		}
		if !claimed {
			return problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound,
				"the exchange offer is booked already; ask for exchange offers again").WithPointer("#/exchangeOffers/0/offerId")), true
		}
		j, err = xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
			if r.Exchange.open() {
				p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "booking "+r.ID+" has exchange operation "+r.Exchange.ID+" under way")
				p.Retryable = true // the same request gets past once that exchange is settled
				return &errRefused{p}
			}
			// The journey's mark for this exchange, then its record: a
			// crash leaves at worst a stale mark.
			n := r.exchangeN() + 1
			if err := xs.journeys.markJourneyOpen(ctx, r.ID, n, now); err != nil {
				return err
			}
			x := &journeyExchange{
				ID: xid, N: n, State: exchangeBooking, CreatedOn: now.UTC(),
				HoldUntil:  now.Add(xs.cfg.Hold).UTC().Truncate(time.Second),
				LeaseUntil: now.Add(xs.cfg.Timeout), OfferID: sel.OfferID, Quote: *q, Offers: offers,
			}
			for range offers {
				x.Legs = append(x.Legs, newID(bookingIDPrefix))
			}
			r.Exchange = x
			return nil
		})
		if p := refusedBy(err); p != nil {
			return problemAnswer(p), finalProblem(p)
		}
		if err != nil {
			return xs.storeFailed(c, err), false
		}
		return xs.bookJourneyExchange(ctx, c, j, legs)
	})
}

// exchangeLegSet is the legSet of j's exchange: the new legs, for the
// passengers of the journey as booked (names as they stand).
func (xs *exchanges) exchangeLegSet(j *journeyRecord, legs []*bookingRecord) *legSet {
	x := j.Exchange
	return &legSet{
		journeyID: j.ID, client: j.Client, ids: x.Legs, offers: x.Offers, holdUntil: x.HoldUntil, externalRef: j.ExternalRef,
		passengers: func(offer *offerRecord) ([]passengerRecord, []legacy.Passenger, *osdm.ProblemError) {
			pax := inOfferOrder(offer, append([]passengerRecord(nil), legs[0].Passengers...))
			if pax == nil {
				return nil, nil, restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/exchangeOffers/0/offerId",
					"the exchange offer's passengers are not the booking's")
			}
			names := markNamesSent(offer, pax)
			return pax, names, nil
		},
	}
}

// bookJourneyExchange books the new legs of j's exchange and answers the
// exchange operation: PREBOOKED once every new leg is held; a leg refused
// rolls the new legs back (FAILED, the journey stands).
func (xs *exchanges) bookJourneyExchange(ctx context.Context, c *call, j *journeyRecord, legs []*bookingRecord) (*Answer, bool) {
	res, err := xs.journeys.bookLegs(ctx, c.send, xs.exchangeLegSet(j, legs))
	switch {
	case err != nil:
		return xs.storeFailed(c, err), false
	case res.p != nil:
		_, _ = xs.failJourneyExchange(ctx, c.send, j, nil)
		return problemAnswer(res.p), true
	case res.at >= 0:
		leg := res.legs[res.at]
		subject := "train " + leg.Offer.Train + " on " + leg.Offer.ServiceDate + " (leg " + strconv.Itoa(res.at+1) + " of the new journey)"
		if a := xs.settlement.unsettled(c, res.d, subject,
			"the exchange is being settled: retry with the same Idempotency-Key to get it; new legs not booked in full are given back"); a != nil {
			return a, false
		}
		failure := &journeyFailure{Leg: res.at, Train: leg.Offer.Train, Refusal: leg.Failure}
		if res.d.proposal != nil {
			failure.Alternatives = alternativesOf(res.d.proposal, leg.Offer.Train)
		}
		j, err = xs.failJourneyExchange(ctx, c.send, j, failure)
		if err != nil {
			return xs.storeFailed(c, err), false
		}
		p := xs.journeys.journeyRefusal(&journeyRecord{ID: j.ID, Legs: j.Exchange.Legs, Failure: failure}, leg)
		p.Detail = strings.Replace(p.Detail, "nothing of the journey is booked", "the journey stands as it was", 1)
		return problemAnswer(p), true
	}
	if i := mixedCurrency(res.legs); i > 0 || res.legs[0].Legacy.Price.Currency != j.Exchange.Quote.ExchangePrice.Currency {
		// The new trains booked in currencies the exchange cannot add
		// up (with each other, or with the journey's): not exchanged,
		// the new trains given back without a fee.
		leg, other := res.legs[i], "the journey's price"
		if i > 0 {
			other = "train " + res.legs[0].Offer.Train + " in " + res.legs[0].Legacy.Price.Currency
		} else {
			other += " in " + j.Exchange.Quote.ExchangePrice.Currency
		}
		if _, err := xs.failJourneyExchange(ctx, c.send, j, &journeyFailure{Leg: i, Train: leg.Offer.Train}); err != nil {
			return xs.storeFailed(c, err), false
		}
		return problemAnswer(osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, "train "+leg.Offer.Train+" on "+leg.Offer.ServiceDate+
			" (leg "+strconv.Itoa(i+1)+" of the new journey): the reservation system booked it in "+leg.Legacy.Price.Currency+" and "+other+
			", which the exchange cannot add up; the journey stands as it was")), true
	}
	j, err = xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if r.Exchange == nil || r.Exchange.State != exchangeBooking {
			return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the exchange of booking "+r.ID+" was not completed in time and was given back; the journey stands as it was")}
		}
		r.Exchange.State = exchangePrebooked
		return nil
	})
	if p := refusedBy(err); p != nil {
		return problemAnswer(p), true
	}
	if err != nil {
		return xs.storeFailed(c, err), false
	}
	return xs.json(c, http.StatusOK, osdm.ExchangeOperationResponse{ExchangeOperation: xs.journeyExchangeView(j, legs, res.legs)}), true
}

// alternativesOf keeps a ReplacementProposal's alternatives for train.
func alternativesOf(rp *legacy.ReplacementProposal, train string) []alternativeRecord {
	var out []alternativeRecord
	for _, a := range rp.Alternatives {
		if a.TrainNumber == "" {
			a.TrainNumber = train
		}
		out = append(out, alternativeRecord{TrainNumber: a.TrainNumber, TravelClass: a.TravelClass,
			ReservationSystem: a.ReservationSystem, Operator: a.Operator, Priority: a.Priority})
	}
	return out
}

// failJourneyExchange gives back the new legs of j's exchange and records
// it FAILED (failure set) or DROPPED; the journey stands as it was.
func (xs *exchanges) failJourneyExchange(ctx context.Context, send Sender, j *journeyRecord, failure *journeyFailure) (*journeyRecord, error) {
	done, err := xs.journeys.rollBackLegs(ctx, send, j.ID, j.Exchange.Legs)
	if err != nil || !done {
		return j, err
	}
	j, err = xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if !r.Exchange.open() {
			return errNoChange
		}
		r.Exchange.State = exchangeDropped
		if failure != nil {
			r.Exchange.State, r.Exchange.Failure = exchangeFailed, failure
		}
		return nil
	})
	if err == nil {
		xs.journeys.dropJourneyMark(ctx, j)
	}
	return j, err
}

// resumeJourneyExchange answers a repeated POST .../exchange-operations
// from the exchange as it stands, carrying on with its new legs once the
// first call's lease is over.
func (xs *exchanges) resumeJourneyExchange(ctx context.Context, c *call, j *journeyRecord, legs []*bookingRecord) (*Answer, bool) {
	x := j.Exchange
	if x.State != exchangeBooking {
		return xs.journeyExchangeAnswer(ctx, c, j, legs)
	}
	now := xs.now()
	if now.Before(x.LeaseUntil) {
		return problemAnswer(underWay("the exchange of booking "+j.ID, "messages")), false
	}
	j, err := xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		if r.Exchange == nil || r.Exchange.ID != x.ID || r.Exchange.State != exchangeBooking || r.Exchange.RollingBack || now.Before(r.Exchange.LeaseUntil) {
			return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the exchange of booking "+r.ID+" is being settled; retry in a few seconds")}
		}
		r.Exchange.LeaseUntil = now.Add(xs.cfg.Timeout)
		return nil
	})
	if p := refusedBy(err); p != nil {
		return problemAnswer(p), false
	}
	if err != nil {
		return xs.storeFailed(c, err), false
	}
	return xs.bookJourneyExchange(ctx, c, j, legs)
}

// journeyExchangeAnswer answers the exchange operation of j as it stands.
func (xs *exchanges) journeyExchangeAnswer(ctx context.Context, c *call, j *journeyRecord, legs []*bookingRecord) (*Answer, bool) {
	x := j.Exchange
	switch x.State {
	case exchangeDropped:
		return problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "exchange operation "+x.ID+" was deleted or released; the journey stands as it was")), true
	case exchangeBooking:
		return problemAnswer(underWay("the exchange of booking "+j.ID, "messages")), false
	}
	newLegs, err := xs.journeys.loadLegs(ctx, &journeyRecord{ID: j.ID, Legs: x.Legs})
	if err != nil {
		return xs.storeFailed(c, err), false
	}
	v := osdm.ExchangeOperationResponse{ExchangeOperation: xs.journeyExchangeView(j, legs, newLegs)}
	if x.State == exchangeFailed && x.Failure != nil {
		for _, leg := range newLegs {
			if leg != nil && leg.Offer.Train == x.Failure.Train && leg.Failure != nil {
				v.Problems = []osdm.Problem{xs.journeys.journeyRefusal(&journeyRecord{ID: j.ID, Legs: x.Legs, Failure: x.Failure}, leg).Inline()}
				break
			}
		}
	}
	return xs.json(c, http.StatusOK, v), true
}

// journeyExchangeView is the ExchangeOperation of j's exchange; legs are
// the journey's legs before it (for the fulfilments it replaces), newLegs
// the new ones.
func (xs *exchanges) journeyExchangeView(j *journeyRecord, legs, newLegs []*bookingRecord) *osdm.ExchangeOperation {
	x := j.Exchange
	status := osdm.ExchangePrebooked
	switch x.State {
	case exchangeConfirmed:
		status = osdm.ExchangeFulfilled
	case exchangeFailed:
		status = osdm.ExchangeError
	}
	v := &osdm.ExchangeOperation{ID: x.ID, Status: status}
	var o osdm.Offer
	if len(x.Offers) == 1 {
		o = xs.offers.osdmOffer(&x.Offers[0])
		v.Trips = []osdm.Trip{tripView(&x.Offers[0])}
	} else {
		o = xs.offers.journeyOffer(&journeyOffer{ID: x.OfferID, Partner: xs.cfg.Partner, Legs: x.Offers})
		runs := make([]TrainRun, len(x.Offers))
		for i, r := range x.Offers {
			runs[i] = TrainRun{Train: r.Train, ServiceDate: r.ServiceDate, Origin: r.Origin, Destination: r.Destination,
				OriginName: r.OriginName, DestinationName: r.DestinationName, Departure: r.Departure, Arrival: r.Arrival, Carrier: r.Carrier}
		}
		v.Trips = []osdm.Trip{journeyTripView(x.Offers[0].TripID, runs)}
	}
	o.OfferID = x.OfferID
	q := x.Quote
	booked := make([]osdm.Price, 0, len(newLegs))
	for _, leg := range newLegs {
		if leg == nil || leg.Legacy == nil || leg.Legacy.Price.Currency != q.ExchangePrice.Currency {
			booked = nil
			break
		}
		booked = append(booked, leg.Legacy.Price)
	}
	if len(booked) > 0 && len(booked) == len(x.Offers) {
		q = q.bookedAt(sumPrices(booked)) // what the new trains were booked at
	}
	v.ExchangeOffers = []osdm.ExchangeOffer{xs.journeyExchangeOffer(j, legs, o, &q)}
	if x.State == exchangePrebooked {
		limit := x.HoldUntil
		v.TicketTimeLimit = &limit
	}
	if x.State == exchangeConfirmed {
		for _, leg := range newLegs {
			if leg != nil && leg.Fulfillment != nil {
				fv := fulfillmentView(leg)
				fv.BookingRef = j.ID
				v.Fulfillments = append(v.Fulfillments, fv)
			}
		}
	}
	return v
}

// journeyExchangeOf loads the journey of the call's path with the
// exchange operation it names.
func (xs *exchanges) journeyExchangeOf(ctx context.Context, c *call) (*journeyRecord, []*bookingRecord, *Answer) {
	j, legs, a := xs.journeys.journeyOf(ctx, c)
	if a != nil {
		return nil, nil, a
	}
	xid := c.params[osdm.ParamExchangeOperationID]
	if j.Exchange == nil || j.Exchange.ID != xid {
		return nil, nil, problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "booking "+j.ID+" has no exchange operation "+quoteShort(xid)))
	}
	if j.Exchange.State == exchangeConfirmed {
		// The legs before the exchange are the ones its offer replaced.
		old, err := xs.journeys.loadLegs(ctx, &journeyRecord{ID: j.ID, Legs: j.Exchange.Old})
		if err != nil {
			return nil, nil, xs.storeFailed(c, err)
		}
		legs = old
	}
	return j, legs, nil
}

// getJourneyExchangeOperation answers GET (and PATCH, whose preferences
// change nothing here) of a journey's exchange operation.
func (xs *exchanges) getJourneyExchangeOperation(ctx context.Context, c *call) *Answer {
	j, legs, a := xs.journeyExchangeOf(ctx, c)
	if a != nil {
		return a
	}
	a, _ = xs.journeyExchangeAnswer(ctx, c, j, legs)
	return a
}

// deleteJourneyExchangeOperation gives back the new legs of an exchange
// not confirmed: 204 once the legacy system freed them.
func (xs *exchanges) deleteJourneyExchangeOperation(ctx context.Context, c *call) *Answer {
	xid := c.params[osdm.ParamExchangeOperationID]
	return xs.idempotent(ctx, c, func() string { return xid }, func(string) (*Answer, bool) {
		j, _, a := xs.journeyExchangeOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		x := j.Exchange
		switch {
		case x.State == exchangeDropped, x.State == exchangeFailed:
			return xs.noContent(c), true
		case x.State == exchangeConfirmed || x.Confirming:
			return problemAnswer(osdm.NewProblem(http.StatusConflict, osdm.CodeBookingFulfilled, "exchange operation "+x.ID+" is confirmed; refund or exchange the booking instead")), true
		case x.State == exchangeBooking && xs.now().Before(x.LeaseUntil):
			return problemAnswer(underWay("the exchange of booking "+j.ID, "messages")), false
		}
		j, err := xs.failJourneyExchange(ctx, c.send, j, nil)
		if err != nil {
			return xs.storeFailed(c, err), false
		}
		if j.Exchange.open() {
			p := osdm.NewProblem(http.StatusServiceUnavailable, osdm.CodeServiceUnavailable, "the new legs of exchange operation "+x.ID+" are being given back; retry to learn when")
			p.Retryable = true
			return problemAnswer(p), false
		}
		return xs.noContent(c), true
	})
}

// confirmJourneyExchange confirms j's PREBOOKED exchange: the old legs are
// given back (a CancelRequest each, the quote's reason code when it had
// an overrule code), then the new legs are fulfilled and become the
// journey. It returns the journey as stored and the new legs, or a
// problem; an unanswered message leaves Confirming set for the retry or
// settlement.
func (xs *exchanges) confirmJourneyExchange(ctx context.Context, send Sender, j *journeyRecord) (*journeyRecord, []*bookingRecord, *osdm.ProblemError, *delivery, error) {
	now := xs.now()
	x := j.Exchange
	newLegs, err := xs.journeys.loadLegs(ctx, &journeyRecord{ID: j.ID, Legs: x.Legs})
	if err != nil {
		return j, nil, nil, nil, err
	}
	if !x.Confirming {
		for _, leg := range newLegs {
			if leg == nil || leg.State != statePrebooked || !now.Before(x.HoldUntil) {
				return j, nil, osdm.NewProblem(http.StatusConflict, osdm.CodeBookingExpired,
					"exchange operation "+x.ID+" passed its ticketTimeLimit "+x.HoldUntil.Format(time.RFC3339)+" and is released; the journey stands as it was"), nil, nil
			}
		}
		if !now.Before(j.Offers[0].Departure) {
			return j, nil, osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
				"the first train of booking "+j.ID+" has left; the journey can no longer be exchanged"), nil, nil
		}
		if err := xs.journeys.markJourneyOpen(ctx, j.ID, x.N, now); err != nil {
			return j, nil, nil, nil, err
		}
		j, err = xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
			if r.Exchange == nil || r.Exchange.ID != x.ID || r.Exchange.State != exchangePrebooked {
				return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the exchange of booking "+r.ID+" changed meanwhile; retry")}
			}
			r.Exchange.Confirming, r.Exchange.LeaseUntil = true, now.Add(xs.cfg.Timeout)
			return nil
		})
		if p := refusedBy(err); p != nil {
			return j, nil, p, nil, nil
		}
		if err != nil {
			return j, nil, nil, nil, err
		}
		x = j.Exchange
	}
	// As for one train: an exchange quoted with an overrule code gives
	// the old trains back with its reason code, one quoted without a fee
	// with the technical one, so the legacy system keeps no cancellation
	// fee; else it keeps its cancellation fee on each, which the quote
	// summed (exchange_fee is refund_fee).
	var reason *int
	if code, ok := xs.cfg.Reasons[x.Quote.OverruleCode]; ok && x.Quote.OverruleCode != "" {
		reason = &code
	} else if x.Quote.Fee.Amount == 0 {
		reason = xs.bookings.releaseReason()
	}
	old, err := xs.journeys.loadLegs(ctx, j)
	if err != nil {
		return j, nil, nil, nil, err
	}
	for _, leg := range old {
		if leg == nil || !leg.State.holdsPlaces() {
			continue
		}
		after, d, p := xs.bookings.cancel(ctx, send, leg, cancelReplaced, "", reason)
		if p != nil {
			p.Detail = journeyDetail(p.Detail, j, leg)
			return j, nil, p, nil, nil
		}
		if !d.settled() {
			return j, nil, nil, d, nil
		}
		if after.State.holdsPlaces() {
			p := osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, "train "+leg.Offer.Train+" of booking "+j.ID+": the reservation system did not give back the old places; retry")
			if d.refusal != nil {
				p = NegativeProblem(d.refusal, "train "+leg.Offer.Train+" of booking "+j.ID)
			}
			return j, nil, p, nil, nil
		}
	}
	for i, leg := range newLegs {
		rec, err := xs.bookings.updateBooking(ctx, leg.ID, func(r *bookingRecord) error {
			if r.Fulfillment != nil {
				return errNoChange
			}
			if r.State != statePrebooked {
				return &errRefused{stateProblem(r, "fulfilled")}
			}
			r.State = stateFulfilled
			r.Fulfillment = &fulfillmentRecord{ID: fulfillmentID(r.ID), CreatedOn: xs.now().UTC(), ControlNumber: controlNumber(r)}
			return nil
		})
		if p := refusedBy(err); p != nil {
			return j, nil, p, nil, nil
		}
		if err != nil {
			return j, nil, nil, nil, err
		}
		xs.dropHold(ctx, rec)
		newLegs[i] = xs.passengers.sendUnsentData(ctx, send, rec)
	}
	j, err = xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		rx := r.Exchange
		if rx == nil || rx.ID != x.ID || rx.State == exchangeConfirmed {
			return errNoChange
		}
		confirmed := xs.now().UTC()
		rx.State, rx.Confirming, rx.ConfirmedOn, rx.Old = exchangeConfirmed, false, &confirmed, r.Legs
		r.Legs, r.Offers, r.OfferID = rx.Legs, rx.Offers, rx.OfferID
		r.End = rx.Offers[len(rx.Offers)-1].Arrival
		r.HoldUntil = rx.HoldUntil
		r.RefundOffers = nil
		r.ExchangeQuotes = nil
		return nil
	})
	if err != nil {
		return j, nil, nil, nil, err
	}
	xs.journeys.dropJourneyMark(ctx, j)
	return j, newLegs, nil, nil, nil
}

// fulfilJourneyExchange answers the fulfilment that confirms j's exchange.
func (xs *exchanges) fulfilJourneyExchange(ctx context.Context, c *call, j *journeyRecord) (*Answer, bool) {
	if j.Exchange.State == exchangeBooking {
		return problemAnswer(underWay("the exchange of booking "+j.ID, "messages")), false
	}
	if j.Exchange.Confirming && xs.now().Before(j.Exchange.LeaseUntil) {
		p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the exchange of booking "+j.ID+" is being confirmed; retry in a few seconds")
		p.Retryable = true
		return problemAnswer(p), false
	}
	j, newLegs, p, d, err := xs.confirmJourneyExchange(ctx, c.send, j)
	switch {
	case err != nil:
		return xs.storeFailed(c, err), false
	case p != nil:
		return problemAnswer(p), finalProblem(p)
	case d != nil:
		a := xs.settlement.unsettled(c, d, "confirming the exchange of booking "+j.ID, "the confirmation is being settled: retry with the same Idempotency-Key to learn its outcome")
		return a, false
	}
	out := osdm.FulfillmentCollectionResponse{}
	for _, leg := range newLegs {
		fv := fulfillmentView(leg)
		fv.BookingRef = j.ID
		out.Fulfillments = append(out.Fulfillments, fv)
	}
	out.FulfillmentDocuments, out.Problems = xs.journeys.documents.legTickets(c, newLegs, out.Fulfillments)
	return xs.json(c, http.StatusOK, out), true
}

// settleJourneyExchange finishes j's exchange once its call's lease is
// over: new legs never answered are given back, a confirmation begun is
// carried on, new legs past their hold are released. It reports whether
// nothing is left to do.
func (xs *exchanges) settleJourneyExchange(ctx context.Context, send Sender, j *journeyRecord) (bool, error) {
	x := j.Exchange
	now := xs.now()
	switch {
	case x == nil || !x.open():
		return true, nil
	case x.Confirming:
		if now.Before(x.LeaseUntil) {
			return false, nil
		}
		j, err := xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
			if r.Exchange == nil || !r.Exchange.Confirming || now.Before(r.Exchange.LeaseUntil) {
				return &errRefused{}
			}
			r.Exchange.LeaseUntil = now.Add(xs.cfg.Timeout)
			return nil
		})
		if err != nil {
			var taken *errRefused
			if errors.As(err, &taken) {
				return false, nil
			}
			return false, err
		}
		_, _, p, d, err := xs.confirmJourneyExchange(ctx, send, j)
		return err == nil && p == nil && d == nil, err
	case x.State == exchangeBooking && !now.Before(x.LeaseUntil),
		x.State == exchangePrebooked && !now.Before(x.HoldUntil):
		j, err := xs.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
			rx := r.Exchange
			if rx == nil || rx.ID != x.ID || !rx.open() || rx.State == exchangeBooking && now.Before(rx.LeaseUntil) {
				return &errRefused{}
			}
			rx.RollingBack, rx.LeaseUntil = true, now.Add(xs.cfg.Timeout)
			return nil
		})
		if err != nil {
			var taken *errRefused
			if errors.As(err, &taken) {
				return false, nil
			}
			return false, err
		}
		after, err := xs.failJourneyExchange(ctx, send, j, nil)
		return err == nil && !after.Exchange.open(), err
	}
	return false, nil
}
