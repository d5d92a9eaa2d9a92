package converter

import (
	"context"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// exchangeQuery is the query of POST .../exchange-offers: the spec
// requires embed.
const exchangeQuery = "embed=" + osdm.EmbedAll

// exchanged is the booking an exchange starts from: read back, with its
// live fulfilments and the passengers still holding places.
type exchanged struct {
	b    *osdm.Booking
	live []string
	pax  []osdm.Passenger
}

// readExchanged checks an exchange of booking id to journey j for places
// p (a journey not yet departed, known tariffs), then reads the booking and
// checks it can be one: fulfilled, with passengers left, as many as p's
// places. A non-nil Result ends the message.
func (r *run) readExchanged(ctx context.Context, j legacy.Journey, id string, p legacy.PlaceRequest) (*exchanged, *Result) {
	if why := r.c.pastDeparture(j); why != "" {
		return nil, r.invalid(why)
	}
	ts, err := r.c.travellers(p)
	if err != nil {
		return nil, r.invalid(err.Error())
	}
	if res := r.unsafeRef("ExchangeOf", id); res != nil {
		return nil, res
	}
	br := new(osdm.BookingResponse)
	if f := r.do(ctx, call{step: StepReadBooking, params: map[string]string{osdm.ParamBookingID: id}, out: br}); f != nil {
		return nil, r.exchangeFailed(f, id, "")
	}
	if br.Booking == nil {
		return nil, r.unknown(id)
	}
	b := br.Booking
	x := &exchanged{b: b}
	for _, fu := range b.Fulfillments {
		if !fulfillmentClosed(fu.Status) && fu.ID != "" {
			x.live = append(x.live, fu.ID)
		}
	}
	switch bookingState(b) {
	case bookingClosed:
		return nil, r.negative(&legacy.NegativeReply{Code: legacy.CodeAlreadyCancelled, BookingRef: id,
			Text: "Booking " + id + " at partner " + r.c.partner + " is cancelled or refunded; there is nothing to exchange."})
	case bookingProvisional:
		return nil, r.invalidAbout(id, "Booking "+id+" at partner "+r.c.partner+" is not confirmed, so it cannot be exchanged; cancel it and book the new journey.")
	}
	holds := map[string]bool{}
	for _, h := range heldPlaces(b) {
		holds[h.passengerID] = h.passengerID != ""
	}
	for _, bp := range travellersOf(b) {
		if holds[bp.ID] {
			x.pax = append(x.pax, bp)
		}
	}
	if len(x.pax) == 0 {
		return nil, r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, BookingRef: id,
			Text: "Partner " + r.c.partner + " does not say which passengers hold the places of booking " + id + ", so it cannot be exchanged; nothing was changed."})
	}
	if p.Places() != len(x.pax) {
		return nil, r.invalidAbout(id, "Booking "+id+" has "+strconv.Itoa(len(x.pax))+" passenger(s) with places; an exchange moves all of them, so ask for "+
			strconv.Itoa(len(x.pax))+" place(s), not "+strconv.Itoa(p.Places())+". Nothing was changed.")
	}
	// The i-th place asked for is the i-th traveller's, as in a booking:
	// the tariffs must give each traveller its own passenger type.
	for i, t := range ts {
		if t.tariff.Type != x.pax[i].Type {
			booked := typeList(len(x.pax), func(i int) osdm.PassengerType { return x.pax[i].Type })
			asked := typeList(len(ts), func(i int) osdm.PassengerType { return ts[i].tariff.Type })
			return nil, r.invalidAbout(id, "Booking "+id+" moves its travellers as they are: "+booked+
				", in that order, and the i-th place asked for is the i-th traveller's; the request's tariffs give "+asked+
				". Ask for the travellers' tariffs in their order. Nothing was changed.")
		}
	}
	return x, nil
}

// typeList lists n passenger types, "ADULT, CHILD": the i-th is typ(i).
func typeList(n int, typ func(i int) osdm.PassengerType) string {
	out := make([]string, n)
	for i := range out {
		out[i] = plain(string(typ(i)), 40)
	}
	return strings.Join(out, ", ")
}

// refs are the exchanged passengers' refs in the exchange offer request
// and operation: the externalRefs they were booked with (the partner
// matches them to the booking's passengers), or p1..pN when the partner
// did not give every passenger a distinct one.
func (x *exchanged) refs() []string {
	out := make([]string, len(x.pax))
	seen := map[string]bool{}
	for i, p := range x.pax {
		if p.ExternalRef == "" || seen[p.ExternalRef] {
			for k := range out {
				out[k] = "p" + strconv.Itoa(k+1)
			}
			return out
		}
		seen[p.ExternalRef] = true
		out[i] = p.ExternalRef
	}
	return out
}

// specs are the exchanged passengers as the exchange offer request
// names them: in the travellers' order, by refs, with their type, age and
// date of birth.
func (x *exchanged) specs() []osdm.AnonymousPassengerSpecification {
	refs := x.refs()
	out := make([]osdm.AnonymousPassengerSpecification, len(x.pax))
	for i, p := range x.pax {
		out[i] = osdm.AnonymousPassengerSpecification{ExternalRef: refs[i], Type: p.Type, Age: p.Age, DateOfBirth: p.DateOfBirth}
	}
	return out
}

// exchangeOffers asks the partner for exchange offers of x to journey j
// and returns the candidates matching p, each with its Exchange element,
// and the answer as an offer collection for the journey's times.
func (r *run) exchangeOffers(ctx context.Context, x *exchanged, j legacy.Journey, p legacy.PlaceRequest) ([]candidate, *offerAnswer, map[string]*osdm.ExchangeOffer, *Result) {
	departure, err := r.c.departureTime(j)
	if err != nil {
		return nil, nil, nil, r.invalid(err.Error())
	}
	search := offerRequest(j, p, departure, nil)
	body := &osdm.ExchangeOfferCollectionRequest{FulfillmentIDs: x.live, TripSearchCriteria: search.TripSearchCriteria,
		OfferSearchCriteria: search.OfferSearchCriteria, AnonymousPassengerSpecifications: x.specs()}
	resp := new(osdm.ExchangeOfferCollectionResponse)
	id := x.b.ID
	if f := r.do(ctx, call{step: StepExchangeOffers, params: map[string]string{osdm.ParamBookingID: id}, query: exchangeQuery, body: body, out: resp}); f != nil {
		return nil, nil, nil, r.exchangeFailed(f, id, "")
	}
	offers := &osdm.OfferCollectionResponse{Problems: resp.Problems, Trips: resp.Trips}
	byID := map[string]*osdm.ExchangeOffer{}
	for i := range resp.ExchangeOffers {
		xo := &resp.ExchangeOffers[i]
		byID[xo.OfferID] = xo
		offers.Offers = append(offers.Offers, osdm.Offer{OfferID: xo.OfferID, Summary: xo.Summary, OfferSummary: xo.OfferSummary,
			CreatedOn: xo.CreatedOn, PreBookableUntil: xo.PreBookableUntil, PassengerRefs: xo.PassengerRefs, Products: xo.Products,
			TripCoverage: xo.TripCoverage, AdmissionOfferParts: xo.AdmissionOfferParts, ReservationOfferParts: xo.ReservationOfferParts})
	}
	if len(offers.Offers) == 0 {
		if prob, code := firstProblem(StepExchangeOffers, resp.Problems); prob != nil && code != "" {
			return nil, nil, nil, r.exchangeFailed(&failure{step: StepExchangeOffers, code: code, problem: prob, status: 200,
				what: r.describeCall(StepExchangeOffers, id) + " answered 200 without offers" + describeProblem(prob)}, id, "")
		}
	}
	answer := offerAnswerOf(offers)
	cs := candidates(answer, p)
	kept := cs[:0]
	for _, c := range cs {
		if xo := byID[c.offer.OfferID]; xo != nil {
			c.legacy.Price = legacyPrice(&xo.ExchangePrice)
			c.legacy.Exchange = legacyExchange(xo)
		}
		// An exchange offer whose fee and difference the legacy system
		// cannot be told is neither offered nor picked: nobody agrees
		// to amounts they were not told of.
		if c.legacy.Exchange != nil && c.legacy.Price != nil {
			kept = append(kept, c)
		}
	}
	return kept, answer, byID, nil
}

// legacyExchange is the Exchange element of an exchange offer; nil when
// the partner's amounts cannot be carried.
func legacyExchange(xo *osdm.ExchangeOffer) *legacy.Exchange {
	e := &legacy.Exchange{Fee: legacyPrice(&xo.ExchangeFee)}
	switch {
	case xo.AmountToBePaid != nil:
		e.AmountToPay = legacyPrice(xo.AmountToBePaid)
	case xo.RefundableAmount != nil:
		e.RefundAmount = legacyPrice(xo.RefundableAmount)
	default:
		e.AmountToPay = &legacy.Price{Amount: "0", Currency: xo.ExchangePrice.Currency}
		if !legacy.ValidCurrency(xo.ExchangePrice.Currency) {
			return nil
		}
	}
	if e.Fee == nil || (e.AmountToPay == nil) == (e.RefundAmount == nil) {
		return nil
	}
	return e
}

// exchangeAvailability answers an AvailabilityRequest with ExchangeOf: the
// exchange offers of the booking to the journey, each with its Exchange
// element.
func (r *run) exchangeAvailability(ctx context.Context, m *legacy.AvailabilityRequest) *Result {
	x, end := r.readExchanged(ctx, m.Journey, m.ExchangeOf, m.Places)
	if end != nil {
		return end
	}
	cs, resp, _, end := r.exchangeOffers(ctx, x, m.Journey, m.Places)
	if end != nil {
		return end
	}
	offers := make([]legacy.Offer, 0, len(cs))
	for _, c := range cs {
		if len(offers) == legacy.MaxItems {
			break
		}
		offers = append(offers, c.legacy)
	}
	dep, arr := r.c.journeyTimes(resp, cs, m.Journey)
	return ok(&legacy.AvailabilityReply{Header: r.h, Journey: legacy.EchoJourney(m.Journey, dep, arr), Offers: offers})
}

// exchange answers a BookingRequest with ExchangeOf: exchange offers when
// there is no OfferRef (and the cheapest matching one picked), POST
// .../exchange-operations, then POST .../fulfillments to confirm. A failure
// before the confirmation deletes the operation: the old booking stands,
// and the NegativeReply says so.
func (r *run) exchange(ctx context.Context, m *legacy.BookingRequest) *Result {
	x, end := r.readExchanged(ctx, m.Journey, m.ExchangeOf, m.Places)
	if end != nil {
		return end
	}
	id := x.b.ID
	offerID := m.OfferRef
	var chosen *legacy.Exchange
	if offerID == "" {
		cs, _, _, end := r.exchangeOffers(ctx, x, m.Journey, m.Places)
		if end != nil {
			return end
		}
		best, found := cheapest(cs, len(x.pax))
		if !found {
			return r.negative(&legacy.NegativeReply{Code: legacy.CodeNoAvailability, BookingRef: id,
				Text: "Partner " + r.c.partner + " has no exchange offer for " + strconv.Itoa(len(x.pax)) + " place(s) of class " + strconv.Itoa(m.Places.TravelClass) +
					" and service code " + strconv.Itoa(m.Places.ServiceCode) + " on train " + m.Journey.TrainNumber + "; booking " + id + " stands unchanged."})
		}
		offerID, chosen = best.offer.OfferID, best.legacy.Exchange
	}
	r.j.exchanging(id)
	refs := x.refs()
	params := map[string]string{osdm.ParamBookingID: id}
	opr := new(osdm.ExchangeOperationResponse)
	f := r.do(ctx, call{step: StepExchangeOperation, params: params, out: opr,
		body: &osdm.ExchangeOperationRequest{ExchangeOffers: []osdm.OfferSelection{{OfferID: offerID, PassengerRefs: refs}}}})
	if f == nil && (opr.ExchangeOperation == nil || opr.ExchangeOperation.ID == "") {
		f = &failure{step: StepExchangeOperation, code: legacy.CodePartnerUnavailable, status: 200, uncertain: true,
			what: r.describeCall(StepExchangeOperation, id) + " answered without an exchange operation"}
	}
	if f != nil && f.uncertain {
		// The same call with the same Idempotency-Key answers the
		// operation the partner made, if it made one.
		gctx, cancel := graceContext(ctx)
		again := new(osdm.ExchangeOperationResponse)
		if r.do(gctx, call{step: StepExchangeOperation, params: params, out: again,
			body: &osdm.ExchangeOperationRequest{ExchangeOffers: []osdm.OfferSelection{{OfferID: offerID, PassengerRefs: refs}}}}) == nil &&
			again.ExchangeOperation != nil && again.ExchangeOperation.ID != "" {
			opr, f = again, nil
		}
		cancel()
	}
	if f != nil {
		return r.exchangeFailed(f, id, "")
	}
	op := opr.ExchangeOperation
	if len(op.ExchangeOffers) > 0 {
		if e := legacyExchange(&op.ExchangeOffers[0]); e != nil {
			chosen = e
		}
	}
	return r.confirmExchange(ctx, id, m.ExchangeOf, op.ID, chosen)
}

// confirmExchange confirms exchange operation opID of booking id (POST
// .../fulfillments, asked again once when the answer is lost) and answers
// the BookingReply of the booking as it now is; a confirmation refused
// deletes the operation.
func (r *run) confirmExchange(ctx context.Context, id, exchangeOf, opID string, e *legacy.Exchange) *Result {
	fr, f := r.fulfil(ctx, id)
	if f != nil && f.uncertain {
		// Confirmed or not: only the partner knows; settlement asks it
		// (GET of the operation) and the resend gets the outcome.
		return r.negative(&legacy.NegativeReply{Code: f.code, BookingRef: id, PartnerProblem: f.partnerProblem(), Retryable: true,
			Text: plain("Partner "+r.c.partner+" did not say whether it confirmed the exchange of booking "+id+" ("+f.what+"); the converter finds out and settles it: either the old journey or the new one stands, never both. Send the same message again later to get the outcome.", 1000)})
	}
	if f != nil {
		return r.exchangeFailed(f, id, opID)
	}
	br := new(osdm.BookingResponse)
	gctx, cancel := graceContext(ctx)
	rf := r.do(gctx, call{step: StepReadBooking, params: map[string]string{osdm.ParamBookingID: id}, out: br})
	cancel()
	if rf != nil || br.Booking == nil {
		// Confirmed: the reply says so with what the fulfilment gave.
		br.Booking = &osdm.Booking{ID: id}
	}
	reply := r.bookingReply(br.Booking, fr)
	reply.Places = placesInTravellerOrder(br.Booking, true)
	for _, fu := range fr.Fulfillments {
		if cn := plain(fu.ControlNumber, 200); cn != "" && fu.Status == osdm.FulfillmentFulfilled {
			reply.TicketControlNumber = cn
		}
	}
	reply.Exchange, reply.ExchangeOf = e, exchangeOf
	return ok(reply)
}

// exchangeFailed answers an exchange step that failed with f. A refusal by
// the partner is EXCHANGE_NOT_POSSIBLE (EXCHANGE_NOT_SUPPORTED for a 501);
// an operation made (opID) is deleted first; the reply says the old booking
// stands, or what is not known.
func (r *run) exchangeFailed(f *failure, id, opID string) *Result {
	if f.code == legacy.CodePartnerRejected {
		f.code = legacy.CodeExchangeNotPossible
		if f.status == 501 {
			f.code = legacy.CodeExchangeNotSupported
		}
	}
	stands := " Booking " + id + " stands unchanged."
	if opID != "" {
		gctx, cancel := context.WithTimeout(context.Background(), RollbackGrace)
		df := r.do(gctx, call{step: StepDeleteExchangeOperation, params: map[string]string{osdm.ParamBookingID: id, osdm.ParamExchangeOperationID: opID}})
		cancel()
		if df != nil && df.status != 404 {
			stands = " The exchange operation " + plain(opID, 128) + " could not be deleted (" + df.what + "); it lapses at the partner unless confirmed, and booking " + id + " stands until then. Send the exchange again to learn the outcome."
		}
	}
	res := r.failBooking(f, id)
	n := res.Reply.(*legacy.NegativeReply)
	if f.code != legacy.CodeBookingNotFound {
		n.Text = plain(n.Text+stands, 1000)
	}
	return res
}
