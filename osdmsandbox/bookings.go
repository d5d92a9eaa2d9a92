package osdmsandbox

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// maxOffersPerBooking bounds the offers booked in one request.
const maxOffersPerBooking = 10

// demand is the places a booking request needs from one group of one run.
type demand struct {
	run   runKey
	group group
}

// bookingDesk books offers, answers and deletes bookings, fulfils them
// (confirming a pending exchange) and lists them.
type bookingDesk struct {
	led       *ledger
	docs      *documentDesk
	exchanges *exchangeDesk
}

// createBooking serves POST /bookings: the offers become a provisional
// (PREBOOKED) booking holding its places until confirmationTimeLimit.
func (bd *bookingDesk) createBooking(now time.Time, rq *request) *response {
	var req osdm.BookingRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	offers, p := bd.checkBookingRequest(now, rq.client, &req)
	if p != nil {
		return problemResponse(p)
	}
	if p := bd.checkPlaces(now, &req, offers); p != nil {
		return problemResponse(p)
	}

	id := bd.led.newID("b")
	b := &booking{
		id:          id,
		code:        shortCode(id, 6),
		externalRef: req.ExternalRef,
		createdOn:   now,
		limit:       now.Add(bd.led.cfg.BookingTTL),
		state:       statePrebooked,
		client:      rq.client,
	}
	b.dropAt = b.limit.Add(bd.led.cfg.Retention)
	paxID := map[string]string{}
	for i, spec := range req.PassengerSpecifications {
		pid := "pax-" + strconv.Itoa(i+1)
		paxID[spec.ExternalRef] = pid
		b.passengers = append(b.passengers, osdm.Passenger{
			ID: pid, ExternalRef: spec.ExternalRef, Type: spec.Type,
			Age: spec.Age, DateOfBirth: spec.DateOfBirth, Detail: spec.Detail,
		})
	}
	for i, sel := range req.Offers {
		o := offers[i]
		// A part per leg, with the id of the offer part it books.
		for k, g := range o.groups {
			j := o.route[k]
			part := &bookedPart{
				id:      offerPartID(o.id, k),
				offerID: o.id,
				route:   o.route,
				leg:     k,
				journey: j,
				group:   g,
				places:  bd.led.inventory.take(j.runKey(), g, len(sel.PassengerRefs)),
				held:    true,
			}
			for _, ref := range sel.PassengerRefs {
				spec, _ := o.passenger(ref)
				part.passengerIDs = append(part.passengerIDs, paxID[ref])
				part.paxPrice = append(part.paxPrice, passengerPrice(g, spec, j.departure))
				part.price += passengerPrice(g, spec, j.departure)
			}
			b.parts = append(b.parts, part)
		}
		o.bookedBy = id
	}
	b.noteKey(rq.idempotency)
	bd.led.addBooking(b)
	return jsonResponse(http.StatusOK, &osdm.BookingResponse{Booking: b.osdm(bd.led.cfg.Operator, bd.led.cfg.Capacity)})
}

// checkBookingRequest checks the request against the offers it books and
// returns those offers, in request order: offers client searched.
func (bd *bookingDesk) checkBookingRequest(now time.Time, client string, req *osdm.BookingRequest) ([]*offer, *osdm.ProblemError) {
	if len(req.Offers) == 0 || len(req.Offers) > maxOffersPerBooking {
		return nil, osdm.Invalid(osdm.CodeValidationError, "#/offers", fmt.Sprintf("1..%d offers are required", maxOffersPerBooking))
	}
	if len(req.PassengerSpecifications) == 0 {
		return nil, osdm.Invalid(osdm.CodeValidationError, "#/passengerSpecifications", "at least one passenger specification is required")
	}
	specs := map[string]osdm.PassengerSpecification{}
	for i, spec := range req.PassengerSpecifications {
		at := "#/passengerSpecifications/" + strconv.Itoa(i)
		if spec.ExternalRef == "" {
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/externalRef", "externalRef is required")
		}
		if _, dup := specs[spec.ExternalRef]; dup {
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/externalRef", "externalRef "+strconv.Quote(spec.ExternalRef)+" is used twice")
		}
		specs[spec.ExternalRef] = spec
	}
	offers := make([]*offer, len(req.Offers))
	for i, sel := range req.Offers {
		at := "#/offers/" + strconv.Itoa(i)
		o, p := bd.led.bookableOffer(now, client, sel.OfferID, at+"/offerId")
		if p != nil {
			return nil, p
		}
		if o.exchange != nil {
			return nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, "offer "+o.id+" is an exchange offer of booking "+o.exchange.booking+"; pre-book it with POST /bookings/"+o.exchange.booking+"/exchange-operations").WithPointer(at + "/offerId")
		}
		for k := 0; k < i; k++ {
			if offers[k] == o {
				return nil, osdm.Invalid(osdm.CodeValidationError, at+"/offerId", "offer "+o.id+" is listed twice")
			}
		}
		offers[i] = o
		if len(sel.PassengerRefs) == 0 {
			return nil, osdm.Invalid(osdm.CodeValidationError, at+"/passengerRefs", "at least one passengerRef is required")
		}
		seen := map[string]bool{}
		for k, ref := range sel.PassengerRefs {
			refAt := at + "/passengerRefs/" + strconv.Itoa(k)
			offered, ok := o.passenger(ref)
			spec, specified := specs[ref]
			switch {
			case seen[ref]:
				return nil, osdm.Invalid(osdm.CodeValidationError, refAt, "passenger "+strconv.Quote(ref)+" is listed twice")
			case !ok:
				return nil, osdm.Invalid(osdm.CodeValidationError, refAt, "passenger "+strconv.Quote(ref)+" is not a passenger of offer "+o.id)
			case !specified:
				return nil, osdm.Invalid(osdm.CodeValidationError, refAt, "passenger "+strconv.Quote(ref)+" has no passengerSpecification")
			case spec.Type != offered.Type:
				return nil, osdm.Invalid(osdm.CodeValidationError, refAt, fmt.Sprintf("passenger %q is %s in offer %s but %s here", ref, offered.Type, o.id, spec.Type))
			}
			seen[ref] = true
		}
	}
	return offers, nil
}

// checkPlaces makes sure every group has the places the request needs,
// all of them or none.
func (bd *bookingDesk) checkPlaces(now time.Time, req *osdm.BookingRequest, offers []*offer) *osdm.ProblemError {
	need := map[demand]int{}
	for i, sel := range req.Offers {
		o := offers[i]
		for k, g := range o.groups {
			need[demand{o.route[k].runKey(), g}] += len(sel.PassengerRefs)
		}
	}
	for swept := false; ; swept = true {
		short := ""
		for d, n := range need {
			if free := bd.led.inventory.free(d.run, d.group); free < n {
				short = fmt.Sprintf("%d places asked, %d left in %s class %s of train %s on %s",
					n, free, d.group.class, d.group.acc, d.run.train, d.run.date)
				break
			}
		}
		switch {
		case short == "":
			return nil
		case swept:
			return osdm.NewProblem(http.StatusConflict, osdm.CodeInsufficientAvailability, short)
		}
		// Provisional bookings past their limit may still hold places.
		bd.led.sweep(now, true)
	}
}

// getBooking serves GET /bookings/{bookingId}: the whole booking, the
// spec's default (ALL), whatever embed asks; an embed value the spec
// does not list is refused.
func (bd *bookingDesk) getBooking(now time.Time, rq *request) *response {
	if p := osdm.CheckBookingEmbed(rq.query); p != nil {
		return problemResponse(p)
	}
	b, p := bd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	out := b.osdm(bd.led.cfg.Operator, bd.led.cfg.Capacity)
	docs, pending := bd.docs.documents(b, b.fulfillment)
	out.FulfillmentDocuments = docs
	return withDocuments(jsonResponse(http.StatusOK, &osdm.BookingResponse{Booking: out}), pending)
}

// deleteBooking serves DELETE /bookings/{bookingId}: a provisional (or
// released) booking is deleted and frees its places; a fulfilled one must
// be refunded instead.
func (bd *bookingDesk) deleteBooking(now time.Time, rq *request) *response {
	b, p := bd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	switch b.state {
	case stateFulfilled:
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeAlreadyFulfilled,
			"booking "+b.id+" is fulfilled; refund it with a refund offer instead"))
	case stateRefunded:
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "booking "+b.id+" was refunded"))
	}
	bd.led.releasePlaces(b)
	b.state = stateDeleted
	b.dropAt = now.Add(bd.led.cfg.Retention)
	return &response{status: http.StatusNoContent}
}
