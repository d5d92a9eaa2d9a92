package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// POST /bookings/{id}/exchange-offers: the new trip searched as an offer
// search is (within the restrictions), for the booking's passengers, each
// offer quoted with exchange_fee (none with an overruleCode) and the
// difference to the booking's price. Nothing is held; the quotes are kept
// with the booking for the exchange operation that books one.

// exchangeOfferAsk is POST .../exchange-offers as read.
type exchangeOfferAsk struct {
	fulfillmentIDs []string
	overrule       osdm.OverruleCode
	search         *offerRequest
}

// readExchangeOfferRequest reads an ExchangeOfferCollectionRequest: its
// exchange members here, the rest as the offer search it is.
func readExchangeOfferRequest(body []byte) (*exchangeOfferAsk, *osdm.ProblemError) {
	var members map[string]json.RawMessage
	if p := decodeBody(body, &members); p != nil {
		return nil, p
	}
	ask := &exchangeOfferAsk{}
	if raw, ok := members["fulfillmentIds"]; ok {
		if p := decodeBody(raw, &ask.fulfillmentIDs); p != nil {
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/fulfillmentIds", "fulfillmentIds must be an array of the booking's fulfilment ids")
		}
	}
	if len(ask.fulfillmentIDs) == 0 {
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/fulfillmentIds", "fulfillmentIds must name the booking's fulfilment")
	}
	for i, id := range ask.fulfillmentIDs {
		if id == "" || len(id) > maxRefBytes {
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/fulfillmentIds/"+strconv.Itoa(i), "a fulfilment id is 1.."+strconv.Itoa(maxRefBytes)+" bytes")
		}
	}
	if raw, ok := members["overruleCode"]; ok {
		if p := decodeBody(raw, &ask.overrule); p != nil || len(ask.overrule) > 64 {
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/overruleCode", "overruleCode must be a code of at most 64 bytes")
		}
	}
	if raw, ok := members["exchangeFee"]; ok && string(raw) != "null" {
		return nil, restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/exchangeFee",
			"the exchange fee is this provider's (exchange_fee); it is quoted, not asked")
	}
	delete(members, "fulfillmentIds")
	delete(members, "overruleCode")
	delete(members, "exchangeFee")
	rest, _ := json.Marshal(members)
	q, p := readOfferRequest(rest)
	if p != nil {
		return nil, p
	}
	ask.search = q
	return ask, nil
}

// createExchangeOffers answers POST /bookings/{id}/exchange-offers: the
// exchange of a fulfilled booking (of one train or a journey) quoted to
// the trips its search finds.
func (xs *exchanges) createExchangeOffers(ctx context.Context, c *call) *Answer {
	ask, p := readExchangeOfferRequest(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	embed, p := osdm.ReadExchangeEmbed(c.query)
	if p != nil {
		return problemAnswer(p)
	}
	quote := xs.quoteBookingExchange
	if isJourneyID(c.params[osdm.ParamBookingID]) {
		quote = xs.quoteJourneyExchange
	}
	return xs.idempotent(ctx, c, func() string { return newID("xq-") }, func(string) (*Answer, bool) {
		return quote(ctx, c, ask, embed)
	})
}

// quoteBookingExchange quotes the exchange of a fulfilled booking of one
// train to the trains its search finds.
func (xs *exchanges) quoteBookingExchange(ctx context.Context, c *call, ask *exchangeOfferAsk, embed osdm.ExchangeEmbed) (*Answer, bool) {
	rec, a := xs.bookings.bookingOf(ctx, c)
	if a != nil {
		return a, finalAnswer(a)
	}
	if p := xs.exchangeable(rec, ask); p != nil {
		return problemAnswer(p), finalProblem(p)
	}
	q := ask.search
	if q.legs != nil {
		p := restricted(restrictAfterSales, osdm.CodeOfferOutOfBounds, "#/tripSpecifications/0/legs",
			"a booking of one train is exchanged for another train, not a journey with changes")
		return problemAnswer(p), true
	}
	cands, p := xs.offers.candidates(q)
	if p != nil {
		return problemAnswer(p), true
	}
	day, _ := time.Parse(time.DateOnly, cands[0].run.ServiceDate)
	pax, p := xs.exchangePassengers(q, day, &rec.Offer)
	if p != nil {
		return problemAnswer(p), true
	}
	probes := xs.offers.plan(cands, q.classes, xs.cfg.ServiceCodes, tariffCounts(pax), c.now)
	c.answer.FanOut = len(probes)
	signer, err := xs.offers.offerSigner(ctx)
	if err != nil {
		return xs.offers.offerKeyFailed(c, err), false
	}
	xs.offers.fanOut(ctx, c.send, probes)
	sa, p := xs.offers.collect(c, q, probes, pax, signer, nil, nil)
	if p != nil {
		return problemAnswer(p), finalProblem(p)
	}
	old := rec.bookedPrice()
	now := xs.now().UTC()
	quotes, offers, p := xs.quoteExchanges(sa.resp.Offers, []osdm.Price{old}, ask.overrule, now, "booking", func(o osdm.Offer) (osdm.Price, bool) {
		if len(o.ReservationOfferParts) == 0 {
			return osdm.Price{}, false
		}
		return o.ReservationOfferParts[0].Price, true
	})
	if p != nil {
		return problemAnswer(p), true
	}
	quotesOf := func(r *bookingRecord) *[]exchangeQuote { return &r.ExchangeQuotes }
	if rec, err = holdQuotes(ctx, xs, rec.ID, xs.bookings.updateBooking, quotesOf, offers, quotes, now); err != nil {
		return xs.storeFailed(c, err), false
	}
	view := func(o osdm.Offer, q *exchangeQuote) osdm.ExchangeOffer { return exchangeOfferOf(rec, o, q) }
	return xs.exchangeOffersAnswer(c, embed, &sa.resp, offers, quotes, view, rec.Passengers), true
}

// exchangePassengers are the passengers of the exchange search q for a
// travel day, at the tariffs booked: restriction 5 after the sale, a
// change of tariff is a new booking, not an exchange. booked is the
// booking's offer (a journey's first leg).
func (xs *exchanges) exchangePassengers(q *offerRequest, day time.Time, booked *offerRecord) ([]offerPassenger, *osdm.ProblemError) {
	pax := make([]offerPassenger, 0, len(q.passengers))
	for _, pa := range q.passengers {
		op, p := xs.offers.tariffOf(pa, day)
		if p != nil {
			return nil, p
		}
		if was := booked.passenger(pa.ref); was != nil && was.Tariff != op.Tariff {
			return nil, restricted(RestrictPassengers, osdm.CodeOutOfBounds, pa.ptr,
				"passenger "+quoteShort(pa.ref)+" was booked at legacy tariff "+strconv.Itoa(was.Tariff)+
					"; as given here it would travel at tariff "+strconv.Itoa(op.Tariff)+": an exchange keeps the tariffs booked")
		}
		pax = append(pax, op)
	}
	return pax, nil
}

// quoteExchanges quotes the exchange from a booking (what: "booking" or
// "journey") whose legacy bookings are priced old to each offer found
// that priceOf prices (the others are not exchanged to), and returns the
// quotes with their offers; a 409 when there is none.
func (xs *exchanges) quoteExchanges(found []osdm.Offer, old []osdm.Price, overrule osdm.OverruleCode, now time.Time,
	what string, priceOf func(osdm.Offer) (osdm.Price, bool)) ([]exchangeQuote, []osdm.Offer, *osdm.ProblemError) {
	var quotes []exchangeQuote
	var offers []osdm.Offer
	for _, o := range found {
		price, ok := priceOf(o)
		if !ok {
			continue
		}
		quote, err := exchangeQuoteOf(xs.cfg.ExchangeFee, old, price, overrule, now, o.PreBookableUntil)
		if err != nil {
			return nil, nil, osdm.NewProblem(http.StatusInternalServerError, osdm.CodeInternalError, "the exchange cannot be quoted: "+err.Error())
		}
		quote.OfferKey = exchangeOfferKey(o.OfferID)
		quotes = append(quotes, quote)
		offers = append(offers, o)
	}
	if len(quotes) == 0 {
		return nil, nil, osdm.NewProblem(http.StatusConflict, osdm.CodeRejected,
			"the search found no offer the "+what+" can be exchanged to (a train of another reservation system is not exchanged to)")
	}
	return quotes, offers, nil
}

// exchangeOffersAnswer is the 200 of POST .../exchange-offers: the
// offers quoted (each as view makes it), the trips found and the
// booking's passengers, as embed asks, with the search's problems.
func (xs *exchanges) exchangeOffersAnswer(c *call, embed osdm.ExchangeEmbed, found *osdm.OfferCollectionResponse, offers []osdm.Offer,
	quotes []exchangeQuote, view func(osdm.Offer, *exchangeQuote) osdm.ExchangeOffer, pax []passengerRecord) *Answer {
	resp := osdm.ExchangeOfferCollectionResponse{Problems: found.Problems}
	if embed.Offers {
		for i, o := range offers {
			resp.ExchangeOffers = append(resp.ExchangeOffers, view(o, &quotes[i]))
		}
	}
	if embed.Trips {
		resp.Trips = found.Trips
	}
	if embed.Passengers {
		for i := range pax {
			resp.Passengers = append(resp.Passengers, passengerView(&pax[i]))
		}
	}
	return xs.json(c, http.StatusOK, resp)
}

// keepQuotes adds quotes to the ones held, the expired ones making room,
// and keeps the last maxExchangeQuotes.
func keepQuotes(held, quotes []exchangeQuote, now time.Time) []exchangeQuote {
	kept := held[:0]
	for _, xq := range held {
		if now.Before(xq.ValidUntil) {
			kept = append(kept, xq)
		}
	}
	kept = append(kept, quotes...)
	if over := len(kept) - maxExchangeQuotes; over > 0 {
		kept = append(kept[:0], kept[over:]...)
	}
	return kept
}

// holdQuotes keeps the quotes of offers with booking id (of one train or
// a journey: update changes its record, whose quotes quotesOf finds) and
// claims the offers for it, so that each is booked by an exchange
// operation, never as a new booking. It returns the record as stored.
func holdQuotes[R any](ctx context.Context, x *exchanges, id string, update func(context.Context, string, func(*R) error) (*R, error),
	quotesOf func(*R) *[]exchangeQuote, offers []osdm.Offer, quotes []exchangeQuote, now time.Time) (*R, error) {
	rec, err := update(ctx, id, func(r *R) error {
		held := quotesOf(r)
		*held = keepQuotes(*held, quotes, now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, o := range offers {
		claim := &offerRecord{ID: o.OfferID, ExpiresAt: quotes[i].ValidUntil}
		if _, err := x.bookings.claimOffer(ctx, claim, id, now); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// exchangeable says why booking rec cannot be exchanged as ask asks, nil
// when it can: it is fulfilled, wholly booked (an exchange covers every
// passenger), has no exchange under way, and the search names its
// passengers (by the externalRefs the booking has).
func (xs *exchanges) exchangeable(rec *bookingRecord, ask *exchangeOfferAsk) *osdm.ProblemError {
	if rec.State != stateFulfilled || rec.Fulfillment == nil {
		if rec.State == statePrebooked {
			return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingNotFulfilled, "booking "+rec.ID+" is not fulfilled: delete it and book the new journey instead of exchanging it")
		}
		return stateProblem(rec, "exchanged")
	}
	for i, fid := range ask.fulfillmentIDs {
		if fid != rec.Fulfillment.ID {
			return fulfillmentNotOf(rec, fid, "#/fulfillmentIds/"+strconv.Itoa(i))
		}
	}
	if rec.Exchange.holds() {
		return exchangeUnderWay(rec, xs.now())
	}
	if p := exchangeDeparted(rec, xs.now()); p != nil {
		return p
	}
	if len(rec.unrefunded()) != len(rec.Passengers) {
		return restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/fulfillmentIds",
			"an exchange covers every passenger of the booking, and some were refunded")
	}
	if ask.overrule != "" {
		if _, ok := xs.cfg.Reasons[ask.overrule]; !ok {
			return restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/overruleCode",
				"overrule code "+quoteShort(string(ask.overrule))+" is not taken (the reason table maps "+xs.refunds.reasonList()+")")
		}
	}
	pax := ask.search.passengers
	if len(pax) != len(rec.Passengers) {
		return restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/anonymousPassengerSpecifications",
			"an exchange covers every passenger of the booking: name its "+strconv.Itoa(len(rec.Passengers))+" passengers by their externalRef")
	}
	for _, pa := range pax {
		found := false
		for _, pr := range rec.Passengers {
			if pr.ExternalRef == pa.ref {
				found = true
				if pa.typ != pr.Type {
					return restricted(RestrictPassengers, osdm.CodeOutOfBounds, pa.tPtr, "passenger "+quoteShort(pa.ref)+" was booked as "+string(pr.Type))
				}
				if pa.age != nil && pr.Age != nil && *pa.age != *pr.Age {
					return restricted(RestrictPassengers, osdm.CodeOutOfBounds, pa.ptr+"/age",
						"passenger "+quoteShort(pa.ref)+" was booked aged "+strconv.Itoa(*pr.Age)+": the age cannot change")
				}
			}
		}
		if !found {
			return restricted(restrictAfterSales, osdm.CodeOutOfBounds, pa.ptr+"/externalRef",
				"passenger "+quoteShort(pa.ref)+" is not a passenger of booking "+rec.ID+" (name them by the externalRef they were booked with)")
		}
	}
	return nil
}

// exchangeQuoteOf quotes the exchange of a booking whose legacy bookings
// (one, or one per train of a journey) are priced olds to a new journey
// priced price: the fee (none with an overrule code, else exchange_fee of
// each old legacy booking's price, summed: what the legacy system keeps
// on each CancelRequest, rounded as it rounds each) and what is paid on
// top or refunded.
func exchangeQuoteOf(fee Fee, olds []osdm.Price, price osdm.Price, overrule osdm.OverruleCode, now, until time.Time) (exchangeQuote, error) {
	q := exchangeQuote{ExchangePrice: price, OverruleCode: overrule, CreatedOn: now, ValidUntil: until}
	fees := make([]osdm.Price, 0, len(olds))
	for _, old := range olds {
		if price.Currency != old.Currency {
			return q, fmt.Errorf("the new journey is priced in %s, the booking in %s", price.Currency, old.Currency)
		}
		feeP, _, err := refundQuote(fee, old, overrule != "")
		if err != nil {
			return q, err
		}
		fees = append(fees, feeP)
	}
	if len(olds) == 0 {
		return q, errors.New("the booking has no price")
	}
	old, feeP := sumPrices(olds), sumPrices(fees)
	q.Fee = feeP
	sc := max(old.EffectiveScale(), price.EffectiveScale(), feeP.EffectiveScale())
	q.setNet(rescale(price, sc)+rescale(feeP, sc)-rescale(old, sc), sc, old.Currency)
	return q, nil
}
