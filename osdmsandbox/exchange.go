package osdmsandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// exchangeFeePercent is what the sandbox keeps of the exchanged
// passengers' price on an exchange (none with an overruleCode), as on a
// refund.
const exchangeFeePercent = refundFeePercent

// maxExchangesPerBooking bounds the exchange operations a booking keeps.
const maxExchangesPerBooking = 8

// exchangeTerms makes an offer an exchange offer of a booking.
type exchangeTerms struct {
	booking  string
	fee      int64 // the exchange fee
	credit   int64 // what the passengers exchanged paid
	overrule osdm.OverruleCode
	// offer is the exchange offer as answered, for the operation.
	offer osdm.ExchangeOffer
}

// exchangeOp is an exchange operation of a booking: the new places held
// until the fulfilment confirms it, which replaces the old parts.
type exchangeOp struct {
	id          string
	limit       time.Time // ticketTimeLimit while PREBOOKED
	status      osdm.ExchangeStatus
	offer       osdm.ExchangeOffer // as offered
	parts       []*bookedPart      // the new parts, one per leg
	fulfillment *osdm.Fulfillment  // the new fulfilment, once confirmed
}

// exchangeOfferRequest is the body of POST .../exchange-offers as the
// sandbox reads it: an offer search, and what to exchange.
type exchangeOfferRequest struct {
	offerRequest
	FulfillmentIDs []string          `json:"fulfillmentIds"`
	OverruleCode   osdm.OverruleCode `json:"overruleCode"`
}

// exchangeable checks that booking b can be exchanged now: fulfilled,
// with passengers left, and before its train leaves.
func (b *booking) exchangeRefusal(now time.Time) *osdm.ProblemError {
	switch {
	case b.state == statePrebooked:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted, "booking "+b.id+" is not fulfilled; delete it and book the other journey instead")
	case b.state != stateFulfilled:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "booking "+b.id+" is "+b.state.String()+"; there is nothing to exchange")
	case b.liveCount() == 0:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "every passenger of booking "+b.id+" was refunded; there is nothing to exchange")
	case !now.Before(b.firstDeparture()):
		return osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted, "booking "+b.id+" departed at "+b.firstDeparture().Format(time.RFC3339)+"; it can no longer be exchanged")
	}
	return nil
}

// livePassengers are the booking's passengers still booked, in order,
// each once (a journey of several trains has a part per train, each with
// the passengers), with what they paid for all the trains.
func (b *booking) livePassengers() (ids []string, paid int64) {
	seen := map[string]bool{}
	for _, part := range b.parts {
		if part.exchanged {
			continue
		}
		for k, id := range part.passengerIDs {
			if part.live(k) {
				if !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
				paid += part.paxPrice[k]
			}
		}
	}
	return ids, paid
}

// liveCount is the number of passengers still booked.
func (b *booking) liveCount() int {
	ids, _ := b.livePassengers()
	return len(ids)
}

// exchangeDesk makes exchange offers (searching as the offer desk does)
// and runs exchange operations on bookings.
type exchangeDesk struct {
	led    *ledger
	search *offerDesk
}

// createExchangeOffers serves POST /bookings/{bookingId}/exchange-offers:
// the offer search of the body, each offer priced as an exchange of the
// booking's passengers still booked: the new price, the fee (10 %, none
// with an overruleCode), and what is to pay or refund.
func (xd *exchangeDesk) createExchangeOffers(now time.Time, rq *request) *response {
	embed, p := osdm.ReadExchangeEmbed(rq.query)
	if p != nil {
		return problemResponse(p)
	}
	var req exchangeOfferRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	b, p := xd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	if p := b.exchangeRefusal(now); p != nil {
		return problemResponse(p)
	}
	if len(req.FulfillmentIDs) != 1 || req.FulfillmentIDs[0] != b.fulfillment.ID {
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "fulfillmentIds must name the booking's fulfilment "+b.fulfillment.ID+" (the sandbox exchanges a booking whole)").WithPointer("#/fulfillmentIds"))
	}
	ids, credit := b.livePassengers()
	if len(req.AnonymousPassengerSpecifications) != len(ids) {
		return problemResponse(osdm.Invalid(osdm.CodeValidationError, "#/anonymousPassengerSpecifications",
			fmt.Sprintf("booking %s has %d passenger(s) left, exchanged together: give one specification each, not %d", b.id, len(ids), len(req.AnonymousPassengerSpecifications))))
	}
	sr, p := parseOfferRequest(&req.offerRequest)
	if p != nil {
		return problemResponse(p)
	}
	sr.client = rq.client
	found := xd.search.answerSearch(now, sr)
	if found.status != http.StatusOK || found.problem {
		return found
	}
	var offers osdm.OfferCollectionResponse
	if err := json.Unmarshal(found.body, &offers); err != nil {
		return problemResponse(osdm.NewProblem(http.StatusInternalServerError, osdm.CodeUnknownError, "reading the search: "+err.Error()))
	}
	terms := exchangeTerms{booking: b.id, credit: credit, overrule: req.OverruleCode,
		fee: exchangeFee(credit, req.OverruleCode)}
	out := &osdm.ExchangeOfferCollectionResponse{Problems: offers.Problems}
	for _, offer := range offers.Offers {
		o, ok := xd.led.offers.get(offer.OfferID)
		if !ok {
			continue
		}
		t := terms
		t.offer = exchangeOfferOf(offer, b, &t)
		o.exchange = &t
		out.ExchangeOffers = append(out.ExchangeOffers, t.offer)
	}
	if embed.Trips {
		out.Trips = offers.Trips
	}
	return jsonResponse(http.StatusOK, out)
}

// exchangeFee is the fee of exchanging passengers who paid credit.
func exchangeFee(credit int64, overrule osdm.OverruleCode) int64 {
	if overrule != "" {
		return 0
	}
	return (credit*exchangeFeePercent + 50) / 100
}

// exchangeOfferOf prices offer as an exchange of booking b on terms t.
func exchangeOfferOf(offer osdm.Offer, b *booking, t *exchangeTerms) osdm.ExchangeOffer {
	var newPrice int64
	for _, rop := range offer.ReservationOfferParts {
		newPrice += rop.Price.Amount
	}
	xo := osdm.ExchangeOffer{
		ExchangeFee:           price(t.fee),
		ExchangePrice:         price(newPrice),
		AppliedOverruleCode:   t.overrule,
		Fulfillments:          []osdm.Fulfillment{*b.fulfillment},
		OfferID:               offer.OfferID,
		Summary:               "Exchange of booking " + b.code + " to " + offer.Summary,
		OfferSummary:          offer.OfferSummary,
		CreatedOn:             offer.CreatedOn,
		PreBookableUntil:      offer.PreBookableUntil,
		PassengerRefs:         offer.PassengerRefs,
		Products:              offer.Products,
		TripCoverage:          offer.TripCoverage,
		AdmissionOfferParts:   []osdm.AdmissionOfferPart{},
		ReservationOfferParts: offer.ReservationOfferParts,
	}
	if diff := newPrice + t.fee - t.credit; diff >= 0 {
		xo.AmountToBePaid = ptr(price(diff))
	} else {
		xo.RefundableAmount = ptr(price(-diff))
	}
	return xo
}

// pendingExchange is the booking's exchange operation still PREBOOKED, or nil.
func (b *booking) pendingExchange() *exchangeOp {
	for _, op := range b.exchanges {
		if op.status == osdm.ExchangePrebooked {
			return op
		}
	}
	return nil
}

// exchangeOf finds exchange operation id of booking b, or nil.
func (b *booking) exchangeOf(id string) *exchangeOp {
	for _, op := range b.exchanges {
		if op.id == id {
			return op
		}
	}
	return nil
}

// createExchangeOperation serves POST /bookings/{bookingId}/exchange-operations:
// the exchange offer chosen is pre-booked: its places are held until the
// operation's ticketTimeLimit; the old booking stands until a fulfilment
// confirms the exchange.
func (xd *exchangeDesk) createExchangeOperation(now time.Time, rq *request) *response {
	var req osdm.ExchangeOperationRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	if len(req.ExchangeOffers) != 1 {
		return problemResponse(osdm.Invalid(osdm.CodeValidationError, "#/exchangeOffers", "exactly one exchange offer is pre-booked at a time"))
	}
	sel := req.ExchangeOffers[0]
	b, p := xd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	if p := b.exchangeRefusal(now); p != nil {
		return problemResponse(p)
	}
	if op := b.pendingExchange(); op != nil {
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
			"booking "+b.id+" has exchange operation "+op.id+" pre-booked; confirm it (POST .../fulfillments) or delete it first"))
	}
	o, p := xd.led.bookableOffer(now, rq.client, sel.OfferID, "#/exchangeOffers/0/offerId")
	if p != nil {
		return problemResponse(p)
	}
	if o.exchange == nil || o.exchange.booking != b.id {
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, "offer "+o.id+" is not an exchange offer of booking "+b.id+"; ask POST /bookings/"+b.id+"/exchange-offers").WithPointer("#/exchangeOffers/0/offerId"))
	}
	ids, credit := b.livePassengers()
	if credit != o.exchange.credit || len(sel.PassengerRefs) != len(o.passengers) || len(ids) != len(o.passengers) {
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted, "exchange offer "+o.id+" was made for the booking's passengers as they were; it changed since (a refund): ask for new exchange offers").WithPointer("#/exchangeOffers/0"))
	}
	for k, ref := range sel.PassengerRefs {
		if _, ok := o.passenger(ref); !ok {
			return problemResponse(osdm.Invalid(osdm.CodeValidationError, "#/exchangeOffers/0/passengerRefs/"+strconv.Itoa(k), "passenger "+strconv.Quote(ref)+" is not a passenger of offer "+o.id))
		}
	}
	for k, g := range o.groups {
		j := o.route[k]
		if free := xd.led.inventory.free(j.runKey(), g); free < len(ids) {
			xd.led.sweep(now, true)
			if free = xd.led.inventory.free(j.runKey(), g); free < len(ids) {
				return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeInsufficientAvailability,
					fmt.Sprintf("%d places asked, %d left in %s class %s of train %s", len(ids), free, g.class, g.acc, j.train)))
			}
		}
	}
	op := &exchangeOp{
		id:     xd.led.newID("xo"),
		limit:  now.Add(xd.led.cfg.BookingTTL),
		status: osdm.ExchangePrebooked,
		offer:  o.exchange.offer,
	}
	// A part per leg, as a booking of the offer has.
	for k, g := range o.groups {
		j := o.route[k]
		part := &bookedPart{
			id:           b.id + "-x" + strconv.Itoa(len(b.parts)+len(op.parts)+1),
			offerID:      o.id,
			route:        o.route,
			leg:          k,
			journey:      j,
			group:        g,
			passengerIDs: ids,
			places:       xd.led.inventory.take(j.runKey(), g, len(ids)),
			held:         true,
		}
		for _, p := range o.passengers {
			part.paxPrice = append(part.paxPrice, passengerPrice(g, p, j.departure))
			part.price += passengerPrice(g, p, j.departure)
		}
		op.parts = append(op.parts, part)
	}
	o.bookedBy = b.id
	if len(b.exchanges) >= maxExchangesPerBooking {
		b.exchanges = b.exchanges[1:]
	}
	b.exchanges = append(b.exchanges, op)
	b.noteKey(rq.idempotency)
	return jsonResponse(http.StatusOK, &osdm.ExchangeOperationResponse{ExchangeOperation: op.osdm(xd.led.cfg.Operator)})
}

// osdm renders the operation.
func (op *exchangeOp) osdm(operator string) *osdm.ExchangeOperation {
	out := &osdm.ExchangeOperation{ID: op.id, Status: op.status, ExchangeOffers: []osdm.ExchangeOffer{op.offer},
		Trips: []osdm.Trip{op.parts[0].route.trip(operator)}}
	if op.status == osdm.ExchangePrebooked {
		out.TicketTimeLimit = ptr(op.limit)
	}
	if op.fulfillment != nil {
		out.Fulfillments = []osdm.Fulfillment{*op.fulfillment}
	}
	return out
}

// liveExchange finds the booking and exchange operation of rq.
func (xd *exchangeDesk) liveExchange(now time.Time, rq *request) (*booking, *exchangeOp, *osdm.ProblemError) {
	b, p := xd.led.liveBooking(now, rq)
	if p != nil {
		return nil, nil, p
	}
	op := b.exchangeOf(rq.exchangeOperationID)
	if op == nil {
		return nil, nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound,
			"booking "+b.id+" has no exchange operation "+quoteShort(rq.exchangeOperationID)+" (never made, deleted, or lapsed at its ticketTimeLimit)")
	}
	return b, op, nil
}

// getExchangeOperation serves GET of an exchange operation.
func (xd *exchangeDesk) getExchangeOperation(now time.Time, rq *request) *response {
	_, op, p := xd.liveExchange(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	return jsonResponse(http.StatusOK, &osdm.ExchangeOperationResponse{ExchangeOperation: op.osdm(xd.led.cfg.Operator)})
}

// patchExchangeOperation serves PATCH of an exchange operation: the
// fulfilment settings are valid OSDM the sandbox does not keep (it issues
// e-tickets), named in the answer's problems; the operation is answered.
func (xd *exchangeDesk) patchExchangeOperation(now time.Time, rq *request) *response {
	var req osdm.ExchangeOperationPatchRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	_, op, p := xd.liveExchange(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	out := &osdm.ExchangeOperationResponse{ExchangeOperation: op.osdm(xd.led.cfg.Operator)}
	if req.RequestedFulfillmentType != "" {
		out.Problems = append(out.Problems, ignoredProblem("#/requestedFulfillmentType"))
	}
	return jsonResponse(http.StatusOK, out)
}

// deleteExchangeOperation serves DELETE of an exchange operation: a
// pre-booked one is dropped and its places freed (the old booking stands);
// a confirmed one cannot be (409).
func (xd *exchangeDesk) deleteExchangeOperation(now time.Time, rq *request) *response {
	b, op, p := xd.liveExchange(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	if op.status != osdm.ExchangePrebooked {
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
			"exchange operation "+op.id+" was confirmed; the booking holds the new journey now (refund it to undo)"))
	}
	xd.led.dropExchange(b, op)
	return &response{status: http.StatusNoContent}
}

// confirmExchange carries out the pre-booked exchange op of booking b: a
// new fulfilment for the new part, the old parts and fulfilment
// EXCHANGED and their places freed.
func (xd *exchangeDesk) confirmExchange(now time.Time, b *booking, op *exchangeOp) {
	for _, part := range b.parts {
		if part.exchanged {
			continue
		}
		xd.led.releasePart(part)
		part.exchanged = true
	}
	old := *b.fulfillment
	old.Status = osdm.FulfillmentExchanged
	old.FulfillmentDocumentRefs = nil // an exchanged ticket is no longer offered
	b.oldFulfillments = append(b.oldFulfillments, old)
	var refs []osdm.BookingPartReference
	for _, part := range op.parts {
		part.confirmedOn = &now
		b.parts = append(b.parts, part)
		refs = append(refs, osdm.BookingPartReference{ID: part.id})
	}
	f := &osdm.Fulfillment{
		ID:            xd.led.newID("f"),
		Status:        osdm.FulfillmentFulfilled,
		BookingRef:    b.id,
		Summary:       "E-ticket " + b.code + " (exchanged)",
		CreatedOn:     now,
		ControlNumber: "CN" + shortCode(b.id+"/"+op.id, 10),
		BookingParts:  refs,
	}
	f.FulfillmentDocumentRefs = documentRefs(xd.led.cfg, f.ID)
	b.fulfillment = f
	op.status, op.fulfillment = osdm.ExchangeFulfilled, f
	end := b.lastArrival()
	if end.Before(now) {
		end = now
	}
	b.dropAt = end.Add(xd.led.cfg.Retention)
}
