package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// exchangeOperationBody is POST .../exchange-operations as read.
type exchangeOperationBody struct {
	ExchangeOffers []exchangeSelection `json:"exchangeOffers"`
}

// exchangeSelection is an OfferSelection of an exchange operation.
type exchangeSelection struct {
	osdm.OfferSelection
	ExternalRef                   string          `json:"externalRef"`
	OptionalReservationSelections json.RawMessage `json:"optionalReservationSelections"`
	OptionalAncillarySelections   json.RawMessage `json:"optionalAncillarySelections"`
	PlaceSelections               json.RawMessage `json:"placeSelections"`
	AfterSaleByRetailerOnly       *bool           `json:"afterSaleByRetailerOnly"`
}

// readExchangeOperationRequest reads an ExchangeOperationRequest: one
// exchange offer, for every passenger.
func readExchangeOperationRequest(body []byte) (*osdm.OfferSelection, *osdm.ProblemError) {
	var b exchangeOperationBody
	if p := decodeBody(body, &b); p != nil {
		return nil, p
	}
	switch {
	case len(b.ExchangeOffers) == 0:
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/exchangeOffers", "exchangeOffers must name the exchange offer to book")
	case len(b.ExchangeOffers) > 1:
		return nil, restricted(RestrictOneOffer, osdm.CodeOutOfBounds, "#/exchangeOffers", "an exchange books one exchange offer, for every passenger")
	}
	sel := b.ExchangeOffers[0]
	if sel.OfferID == "" || len(sel.OfferID) > maxOfferIDLen {
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/exchangeOffers/0/offerId", "offerId must be an exchange offer's id")
	}
	for _, raw := range []json.RawMessage{sel.PlaceSelections, sel.OptionalReservationSelections, sel.OptionalAncillarySelections} {
		if s := string(raw); s != "" && s != "null" && s != "[]" {
			return nil, restricted(RestrictOneOffer, osdm.CodeOutOfBounds, "#/exchangeOffers/0", "no place, reservation or ancillary selection")
		}
	}
	return &sel.OfferSelection, nil
}

// createExchangeOperation books the new places of an exchange offer: the
// BookingRequest is recorded as the booking's intent and sent; the
// operation is PREBOOKED once the legacy system holds them.
func (xs *exchanges) createExchangeOperation(ctx context.Context, c *call) *Answer {
	sel, p := readExchangeOperationRequest(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	return xs.idempotent(ctx, c, func() string { return newID(exchangeOperationIDPrefix) }, func(xid string) (*Answer, bool) {
		rec, a := xs.bookings.bookingOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		if x := rec.Exchange; x != nil && x.ID == xid {
			return xs.resumeExchange(ctx, c, rec) // a retry of this request
		}
		now := xs.now()
		offer, err := xs.offers.openOffer(ctx, sel.OfferID, now)
		if err != nil && !errors.Is(err, errOfferNotFound) {
			return xs.offers.offerKeyFailed(c, err), false
		}
		if offer == nil || rec.exchangeQuote(sel.OfferID) == nil {
			p := osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound,
				"no exchange offer of booking "+rec.ID+" has this id, or it expired; ask for exchange offers again").WithPointer("#/exchangeOffers/0/offerId")
			return problemAnswer(p), true
		}
		if p := exchangePassengers(sel, offer); p != nil {
			return problemAnswer(p), true
		}
		// An offer books once, as a booking or an exchange.
		claimed, err := xs.bookings.claimOffer(ctx, offer, rec.ID, now)
		if err != nil {
			return xs.storeFailed(c, err), false
		}
		if !claimed {
			return problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound,
				"the exchange offer is booked already; ask for exchange offers again").WithPointer("#/exchangeOffers/0/offerId")), true
		}
		rec, err = xs.bookings.updateBooking(ctx, rec.ID, func(r *bookingRecord) error {
			if r.State != stateFulfilled || r.Exchange.holds() {
				return &errRefused{xs.exchangeable(r, &exchangeOfferAsk{fulfillmentIDs: []string{fulfillmentID(r.ID)}, search: &offerRequest{}})}
			}
			if len(r.unrefunded()) != len(r.Passengers) {
				// Quoted for every passenger, some refunded since: the new
				// places would go to them too, and their fare counts
				// twice (refunded, and credited to the exchange).
				return &errRefused{restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/exchangeOffers/0/offerId",
					"an exchange covers every passenger of the booking, and some were refunded since this exchange offer was made")}
			}
			if p := exchangeDeparted(r, now); p != nil {
				return &errRefused{p}
			}
			q := r.exchangeQuote(sel.OfferID)
			if q == nil || !now.Before(q.ValidUntil) {
				return &errRefused{osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, "the exchange offer expired; ask for exchange offers again").WithPointer("#/exchangeOffers/0/offerId")}
			}
			n := 1
			if r.Exchange != nil {
				n = r.Exchange.N + 1
			}
			names, _ := legacyNames(offer, inOfferOrder(offer, r.Passengers))
			req := &legacy.BookingRequest{
				Header:     legacy.Header{MessageID: messageID(r.ID, stepExchangeBook, n), SentAt: now.UTC().Truncate(time.Second)},
				Journey:    offer.Journey(),
				Places:     offer.PlaceRequest(),
				OfferRef:   offer.LegacyOfferRef,
				Passengers: names,
			}
			pending, err := xs.settlement.newPending(stepExchangeBook, req, now)
			if err != nil {
				return err
			}
			pending.Revert = r.State
			// The sweeper's mark for the new places' hold, then the
			// intent's: a crash leaves at worst stale marks.
			if err := xs.settlement.markExchangeHold(ctx, r.ID, n, now); err != nil {
				return err
			}
			if err := xs.settlement.markIntent(ctx, pending.MessageID, r.ID, now); err != nil {
				return err
			}
			r.Exchange = &exchangeRecord{
				ID: xid, N: n, State: exchangeBooking, CreatedOn: now.UTC(),
				HoldUntil: now.Add(xs.cfg.Hold).UTC().Truncate(time.Second),
				OfferID:   sel.OfferID, Quote: *q, Offer: *offer,
			}
			r.State, r.Pending = stateExchanging, pending
			return nil
		})
		if p := refusedBy(err); p != nil {
			return problemAnswer(p), finalProblem(p)
		}
		if err != nil {
			return xs.storeFailed(c, err), false
		}
		after, d := xs.settlement.deliver(ctx, c.send, rec)
		if a, final, ok := xs.dropUnpriced(ctx, c, after); ok {
			return a, final
		}
		return xs.exchangeResult(c, after, d, "booking the new places of booking "+rec.ID)
	})
}

// unpriced is the problem of rec's exchange when the legacy system booked
// its new places in another currency than the booking's: the exchange
// cannot be priced (what the consumer pays or gets back is in neither),
// nil when it can or holds no new places.
func unpriced(rec *bookingRecord) *osdm.ProblemError {
	x := rec.Exchange
	if rec.State == stateExchanging || x == nil || x.State != exchangePrebooked || x.Legacy == nil || x.Legacy.Price.Currency == x.Quote.ExchangePrice.Currency {
		return nil
	}
	return osdm.NewProblem(http.StatusBadGateway, osdm.CodeBadGateway, "exchange of booking "+rec.ID+" to train "+x.Offer.Train+
		": the reservation system booked the new places in "+x.Legacy.Price.Currency+" and the booking is in "+x.Quote.ExchangePrice.Currency+
		", so the exchange cannot be priced; the booking stands as it was")
}

// dropUnpriced gives back the new places of rec's exchange when it is
// unpriced, and answers why (ok); ok is false when there is nothing to
// drop.
func (xs *exchanges) dropUnpriced(ctx context.Context, c *call, rec *bookingRecord) (*Answer, bool, bool) {
	p := unpriced(rec)
	if p == nil {
		return nil, false, false
	}
	after, d, dp := xs.dropExchange(ctx, c.send, rec, cancelDelete)
	if dp == nil {
		if a, final := xs.exchangeFailed(c, after, d); a != nil {
			return a, final, true
		}
	}
	return problemAnswer(p), true, true
}

// exchangePassengers checks that an exchange operation books the offer for
// all its passengers.
func exchangePassengers(sel *osdm.OfferSelection, offer *offerRecord) *osdm.ProblemError {
	if len(sel.PassengerRefs) != len(offer.Passengers) {
		return restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/exchangeOffers/0/passengerRefs", "an exchange covers every passenger of the exchange offer")
	}
	for i, ref := range sel.PassengerRefs {
		found := false
		for _, op := range offer.Passengers {
			found = found || op.Ref == ref
		}
		if !found {
			return restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/exchangeOffers/0/passengerRefs/"+strconv.Itoa(i),
				"passenger "+quoteShort(ref)+" is not a passenger of the exchange offer")
		}
	}
	return nil
}

// resumeExchange answers a repeated exchange call from the exchange as it
// stands; a message whose answer was lost is settled first (asked, and
// sent again only if the legacy system never got it).
func (xs *exchanges) resumeExchange(ctx context.Context, c *call, rec *bookingRecord) (*Answer, bool) {
	if rec.State == stateExchanging && rec.Pending != nil {
		if xs.now().Before(rec.Pending.LeaseUntil) {
			return problemAnswer(underWay("booking "+rec.ID, "a message")), false
		}
		after, d := xs.settlement.redeliver(ctx, c.send, rec)
		if a, final, ok := xs.dropUnpriced(ctx, c, after); ok {
			return a, final
		}
		return xs.exchangeResult(c, after, d, "the exchange of booking "+rec.ID)
	}
	if a, final, ok := xs.dropUnpriced(ctx, c, rec); ok {
		return a, final
	}
	return xs.exchangeResult(c, rec, &delivery{}, "the exchange of booking "+rec.ID)
}

// exchangeResult is the answer of an exchange call once its message was
// sent (d) or found answered: the operation, or why not.
func (xs *exchanges) exchangeResult(c *call, rec *bookingRecord, d *delivery, subject string) (*Answer, bool) {
	if a := xs.settlement.unsettled(c, d, subject, "the exchange is being settled: retry with the same Idempotency-Key to get its outcome (the old booking stands until it is confirmed)"); a != nil {
		return a, false
	}
	if rec.State == stateExchanging {
		return problemAnswer(underWay("booking "+rec.ID, "a message")), false
	}
	x := rec.Exchange
	switch x.State {
	case exchangeFailed:
		p := exchangeFailure(rec)
		return problemAnswer(p), finalProblem(p)
	case exchangeDropped:
		p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "exchange operation "+x.ID+" was "+droppedWhy(x)+"; the booking stands as it was")
		return problemAnswer(p), true
	}
	return xs.json(c, http.StatusOK, osdm.ExchangeOperationResponse{ExchangeOperation: xs.exchangeOperationOf(rec)}), true
}

// exchangeFailure is the problem of rec's exchange, which the legacy
// system refused (exchangeFailed).
func exchangeFailure(rec *bookingRecord) *osdm.ProblemError {
	x := rec.Exchange
	nr := &legacy.NegativeReply{Code: legacy.CodeExchangeNotPossible}
	if x.Failure != nil && x.Failure.Code != codeReplacementProposal {
		nr.Code, nr.Retryable = x.Failure.Code, x.Failure.Retryable
	}
	p := NegativeProblem(nr, "exchange of booking "+rec.ID+" to train "+x.Offer.Train)
	p.Detail += "; the booking stands as it was"
	return p
}

func droppedWhy(x *exchangeRecord) string {
	if x.Dropped == cancelRelease {
		return "released: it was not confirmed by its ticketTimeLimit"
	}
	return "deleted"
}

// exchangeOf loads the booking and exchange operation of the call's path.
func (xs *exchanges) exchangeOf(ctx context.Context, c *call) (*bookingRecord, *Answer) {
	rec, a := xs.bookings.bookingOf(ctx, c)
	if a != nil {
		return nil, a
	}
	xid := c.params[osdm.ParamExchangeOperationID]
	if rec.Exchange == nil || rec.Exchange.ID != xid {
		return nil, problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "booking "+rec.ID+" has no exchange operation "+quoteShort(xid)))
	}
	return rec, nil
}

// getExchangeOperation answers GET .../exchange-operations/{id} from the store.
func (xs *exchanges) getExchangeOperation(ctx context.Context, c *call) *Answer {
	rec, a := xs.exchangeOf(ctx, c)
	if a != nil {
		return a
	}
	if x := rec.Exchange; x.State == exchangeDropped {
		return problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "exchange operation "+x.ID+" was "+droppedWhy(x)+"; the booking stands as it was"))
	}
	if rec.Exchange.State == exchangeFailed {
		// What the operation is now, not a retry of its refusal: ERROR,
		// with the refusal as its problem.
		return xs.json(c, http.StatusOK, osdm.ExchangeOperationResponse{
			ExchangeOperation: xs.exchangeOperationOf(rec), Problems: []osdm.Problem{exchangeFailure(rec).Inline()}})
	}
	a, _ = xs.exchangeResult(c, rec, &delivery{}, "the exchange of booking "+rec.ID)
	return a
}

// exchangePatchBody is the spec's ExchangeOperationPatchRequest.
type exchangePatchBody struct {
	RequestedFulfillmentType  string   `json:"requestedFulfillmentType"`
	PreferredFulfillmentMedia string   `json:"preferredFulfillmentMedia"`
	Embed                     []string `json:"embed"`
}

// patchExchangeOperation takes the fulfilment preferences of the spec's
// PATCH: the one fulfilment offered is an e-ticket (PDF), so any other is
// refused; the operation is answered as it stands. It is confirmed by POST
// /bookings/{id}/fulfillments.
func (xs *exchanges) patchExchangeOperation(ctx context.Context, c *call) *Answer {
	var b exchangePatchBody
	if p := decodeBody(c.body, &b); p != nil {
		return problemAnswer(p)
	}
	if b.RequestedFulfillmentType != "" && b.RequestedFulfillmentType != string(osdm.FulfillmentETicket) {
		return problemAnswer(restricted(RestrictReservations, osdm.CodeOutOfBounds, "#/requestedFulfillmentType", "the fulfilment is an e-ticket (ETICKET)"))
	}
	if b.PreferredFulfillmentMedia != "" && b.PreferredFulfillmentMedia != string(osdm.FulfillmentMediaPDFA4) {
		return problemAnswer(restricted(RestrictReservations, osdm.CodeOutOfBounds, "#/preferredFulfillmentMedia", "the fulfilment is a PDF (PDF_A4)"))
	}
	return either(xs.getJourneyExchangeOperation, xs.getExchangeOperation)(ctx, c)
}

// deleteExchangeOperation cancels the new places of an exchange that is
// not confirmed: 204 once the legacy system freed them; the booking stands
// as it was.
func (xs *exchanges) deleteExchangeOperation(ctx context.Context, c *call) *Answer {
	xid := c.params[osdm.ParamExchangeOperationID]
	return xs.idempotent(ctx, c, func() string { return xid }, func(string) (*Answer, bool) {
		rec, a := xs.exchangeOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		x := rec.Exchange
		switch {
		case x.State == exchangeDropped, x.State == exchangeFailed:
			return xs.noContent(c), true // nothing is held for it
		case x.State == exchangeConfirmed:
			p := osdm.NewProblem(http.StatusConflict, osdm.CodeBookingFulfilled, "exchange operation "+x.ID+" is confirmed; refund or exchange the booking instead")
			return problemAnswer(p), true
		}
		rec, d, p := xs.dropExchange(ctx, c.send, rec, cancelDelete)
		if p != nil {
			return problemAnswer(p), finalProblem(p)
		}
		if a, final := xs.exchangeFailed(c, rec, d); a != nil {
			return a, final
		}
		return xs.noContent(c), true
	})
}

// exchangeFailed is the answer when an exchange's CancelRequest did not
// reach its end, nil when it did.
func (xs *exchanges) exchangeFailed(c *call, rec *bookingRecord, d *delivery) (*Answer, bool) {
	subject := "the exchange of booking " + rec.ID
	if a := xs.settlement.unsettled(c, d, subject, "it is being settled: retry to learn its outcome"); a != nil {
		return a, false
	}
	switch {
	case d.refusal != nil:
		p := NegativeProblem(d.refusal, subject)
		return problemAnswer(p), finalProblem(p)
	case rec.State == stateExchanging:
		return problemAnswer(underWay("booking "+rec.ID, "a message")), false
	}
	return nil, true
}

// dropExchange cancels the new places of rec's exchange (why: cancelDelete
// or cancelRelease), or settles the CancelRequest under way.
func (xs *exchanges) dropExchange(ctx context.Context, send Sender, rec *bookingRecord, why string) (*bookingRecord, *delivery, *osdm.ProblemError) {
	return xs.exchangeCancel(ctx, send, rec, cancelExchangeDrop, why)
}

// confirmExchange cancels the old places of rec's PREBOOKED exchange (the
// fulfilment that confirms it), or settles the CancelRequest under way.
func (xs *exchanges) confirmExchange(ctx context.Context, send Sender, rec *bookingRecord) (*bookingRecord, *delivery, *osdm.ProblemError) {
	return xs.exchangeCancel(ctx, send, rec, cancelExchange, "")
}

// exchangeCancel records and sends the CancelRequest of an exchange: of
// the old places (kind cancelExchange) or of the new (cancelExchangeDrop,
// why cancelDelete or cancelRelease).
func (xs *exchanges) exchangeCancel(ctx context.Context, send Sender, rec *bookingRecord, kind, why string) (*bookingRecord, *delivery, *osdm.ProblemError) {
	now := xs.now()
	if rec.State == stateExchanging && rec.Pending != nil {
		if rec.Pending.Cancel != kind || now.Before(rec.Pending.LeaseUntil) {
			return nil, nil, stateProblem(rec, "changed")
		}
		after, d := xs.settlement.redeliver(ctx, send, rec)
		return after, d, nil
	}
	rec, err := xs.bookings.updateBooking(ctx, rec.ID, func(r *bookingRecord) error {
		x := r.Exchange
		if r.State != stateFulfilled || x == nil || x.State != exchangePrebooked || x.Legacy == nil || r.Legacy == nil {
			return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "booking "+r.ID+" has no exchange holding new places")}
		}
		if why == cancelRelease && now.Before(x.HoldUntil) {
			return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the exchange's hold runs until "+x.HoldUntil.Format(time.RFC3339))}
		}
		if p := unpriced(r); p != nil && kind == cancelExchange {
			p.Detail += "; delete exchange operation " + x.ID + ", or let it lapse at its ticketTimeLimit"
			return &errRefused{p}
		}
		if kind == cancelExchange && !now.Before(x.HoldUntil) {
			return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeBookingExpired,
				"exchange operation "+x.ID+" passed its ticketTimeLimit "+x.HoldUntil.Format(time.RFC3339)+" and is released; the booking stands as it was")}
		}
		if p := exchangeDeparted(r, now); p != nil && kind == cancelExchange {
			p.Detail += "; exchange operation " + x.ID + " is released when its ticketTimeLimit runs out, or deleted (DELETE /bookings/" + r.ID + "/exchange-operations/" + x.ID + ")"
			return &errRefused{p}
		}
		req := &legacy.CancelRequest{BookingRef: r.Legacy.BookingRef}
		if kind == cancelExchangeDrop {
			// The new places were never sold: released without a fee.
			req.BookingRef, req.ReasonCode = x.Legacy.BookingRef, xs.bookings.releaseReason()
		} else if code, ok := xs.cfg.Reasons[x.Quote.OverruleCode]; ok && x.Quote.OverruleCode != "" {
			// An exchange quoted without a fee (an overrule code) cancels
			// the old places with its reason code, so the legacy system
			// keeps no cancellation fee either, as a refund's does.
			req.ReasonCode = &code
		} else if x.Quote.Fee.Amount == 0 {
			// Quoted without a fee (no exchange_fee): the old places
			// are cancelled without one. Else the legacy system keeps
			// its cancellation fee, the exchange_fee quoted (Config).
			req.ReasonCode = xs.bookings.releaseReason()
		}
		return xs.bookings.pendCancel(ctx, r, req, kind, why, stateExchanging, now)
	})
	return xs.bookings.deliverCancel(ctx, send, rec, err)
}

// recordExchangeBookResult records the reply to an exchange's
// BookingRequest: the new places held (PREBOOKED) or refused (FAILED);
// the booking is FULFILLED as before either way.
func (xs *exchanges) recordExchangeBookResult(ctx context.Context, id, msgID string, reply legacy.Reply, now time.Time, d *delivery) (*bookingRecord, error) {
	booked, err := d.booked(reply, now)
	if err != nil {
		return nil, err
	}
	rec, err := xs.bookings.updateBooking(ctx, id, func(r *bookingRecord) error {
		p := r.Pending
		if p == nil || p.MessageID != msgID || r.Exchange == nil {
			return errNoChange
		}
		r.Pending, r.State = nil, p.Revert
		x := r.Exchange
		if booked != nil {
			if booked.Price.Currency == "" {
				booked.Price = x.Offer.OSDMPrice
			}
			x.State, x.Legacy = exchangePrebooked, booked
			return nil
		}
		x.State, x.Failure = exchangeFailed, d.failure(now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	xs.settlement.afterResult(ctx, rec, msgID)
	return rec, nil
}

// recordExchangeCancelResult records the reply to an exchange's
// CancelRequest. Of the old places (the confirmation): once the legacy
// system holds them no more, the booking is the new journey. Of the new
// places (delete, release): once freed, the operation is dropped. A
// refusal that leaves the places held changes nothing.
func (xs *exchanges) recordExchangeCancelResult(ctx context.Context, id, msgID string, reply legacy.Reply, now time.Time, d *delivery) (*bookingRecord, error) {
	done := true
	if nr, ok := reply.(*legacy.NegativeReply); ok {
		d.refusal = nr
		done = nr.Code == legacy.CodeAlreadyCancelled || nr.Code == legacy.CodeBookingNotFound
	}
	rec, err := xs.bookings.updateBooking(ctx, id, func(r *bookingRecord) error {
		p := r.Pending
		if p == nil || p.MessageID != msgID || r.Exchange == nil {
			return errNoChange
		}
		r.Pending, r.State = nil, p.Revert
		x := r.Exchange
		if !done {
			r.LastRefusal = &legacyRefusal{Code: d.refusal.Code, Text: d.refusal.Text, Retryable: d.refusal.Retryable, At: now}
			return nil
		}
		if p.Cancel == cancelExchangeDrop {
			x.State, x.Dropped = exchangeDropped, p.RefundOfferID
			return nil
		}
		// Confirmed: the booking is the new journey, its passengers in the
		// new offer's order (each place is its passenger's), with the names
		// the new legacy booking holds.
		d.refusal = nil
		confirmed := now.UTC()
		x.State, x.ConfirmedOn, x.Old = exchangeConfirmed, &confirmed, r.Legacy
		if r.Fulfillment != nil {
			// The old travel document is void; the new journey gets its
			// own, with the new booking's control number (below).
			old := *r.Fulfillment
			old.Summary = journeySummary(&r.Offer)
			r.Exchanged = append(r.Exchanged, old)
			r.Fulfillment = &fulfillmentRecord{ID: exchangeFulfillmentID(r.ID, x.N)}
		}
		r.Offer, r.Legacy = x.Offer, x.Legacy
		if pax := inOfferOrder(&r.Offer, r.Passengers); pax != nil {
			r.Passengers = pax
			markNamesSent(&r.Offer, r.Passengers)
		}
		if r.Fulfillment != nil {
			r.Fulfillment.CreatedOn = confirmed
			r.Fulfillment.ControlNumber = controlNumber(r)
		}
		// What was quoted on the journey before is not offered any more:
		// an exchange offer's fee and difference, a refund offer's amount
		// were the old booking's.
		r.ExchangeQuotes = nil
		for i := range r.RefundOffers {
			if ro := &r.RefundOffers[i]; ro.Status == osdm.RefundProposed && confirmed.Before(ro.ValidUntil) {
				ro.ValidUntil = confirmed
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	xs.settlement.afterResult(ctx, rec, msgID)
	return rec, nil
}
