package converter

import (
	"cmp"
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// RollbackGrace is how long the DELETE that rolls back a booking which
// could not be fulfilled may take. It runs on a context detached from the
// exchange's (context.WithoutCancel), so it is made even when the
// exchange's timeout has just run out: a provisional booking is never left
// behind just because the deadline came first.
const RollbackGrace = 5 * time.Second

// book answers a BookingRequest that books: search and pick when there is
// no OfferRef, POST /bookings, then POST .../fulfillments, with the
// rollback of data-safety rule 3 when fulfilment fails.
func (r *run) book(ctx context.Context, m *legacy.BookingRequest) *Result {
	if why := r.c.pastDeparture(m.Journey); why != "" {
		return r.invalid(why)
	}
	ts, err := r.c.travellers(m.Places)
	if err != nil {
		return r.invalid(err.Error())
	}
	offerID := m.OfferRef
	if offerID == "" {
		resp, end := r.search(ctx, m.Journey, m.Places, ts)
		if end != nil {
			return end
		}
		best, found := cheapest(candidates(resp, m.Places), len(ts))
		if !found {
			return r.negative(&legacy.NegativeReply{Code: legacy.CodeNoAvailability,
				Text: "Partner " + r.c.partner + " has no offer for " + strconv.Itoa(len(ts)) + " place(s) of class " + strconv.Itoa(m.Places.TravelClass) +
					" and service code " + strconv.Itoa(m.Places.ServiceCode) + " on train " + m.Journey.TrainNumber + "."})
		}
		offerID = best.offer.OfferID
	}

	body := &osdm.BookingRequest{
		Offers:                  []osdm.OfferSelection{{OfferID: offerID, PassengerRefs: refs(ts)}},
		PassengerSpecifications: specifications(ts, m.Passengers),
		ExternalRef:             r.messageID,
	}
	br, f := r.createBooking(ctx, body)
	if f != nil && f.uncertain {
		// The partner may have booked and the answer was lost, late or
		// unreadable: the same call with the same Idempotency-Key answers
		// that booking, if there is one, so it is never left unnamed.
		gctx, cancel := graceContext(ctx)
		again, f2 := r.createBooking(gctx, body)
		cancel()
		if f2 == nil {
			if ctx.Err() != nil {
				// Found, but the exchange's time is up: undo, and say so.
				return r.rollback(ctx, again.Booking, f)
			}
			br, f = again, nil
		}
	}
	if f != nil {
		if f.alternative() {
			return r.replacement(f.problem)
		}
		res := r.fail(f)
		if f.uncertain {
			n := res.Reply.(*legacy.NegativeReply)
			n.Text = plain(n.Text+" Whether the partner made a provisional booking is not known; an unconfirmed one expires by itself.", 1000)
		}
		return res
	}

	b := br.Booking
	if !validRef(b.ID) {
		// Confirming a booking the legacy side cannot name would sell
		// places it can never cancel.
		return r.rollback(ctx, b, &failure{step: StepBooking, code: legacy.CodePartnerRejected, status: 200,
			what: "its booking id is not something a legacy BookingRef can carry (1..128 printable ASCII characters, one path segment: no . or .., no /)"})
	}
	fr, f := r.fulfil(ctx, b.ID)
	if f != nil {
		return r.rollback(ctx, b, f)
	}
	return ok(r.bookingReply(b, fr))
}

// createBooking makes POST /bookings with body (an *osdm.BookingRequest,
// or the json.RawMessage of one sent before); a 2xx answer without a
// booking id is a failure too.
func (r *run) createBooking(ctx context.Context, body any) (*osdm.BookingResponse, *failure) {
	br := new(osdm.BookingResponse)
	f := r.do(ctx, call{step: StepBooking, out: br, body: body})
	if f == nil && (br.Booking == nil || br.Booking.ID == "") {
		f = &failure{step: StepBooking, code: legacy.CodePartnerUnavailable, status: 200, uncertain: true,
			what: r.describeCall(StepBooking, "") + " answered without a booking id"}
		if prob, code := firstProblem(StepBooking, br.Problems); prob != nil {
			f.problem, f.uncertain, f.what = prob, false, f.what+describeProblem(prob)
			if code != "" {
				f.code = code
			}
		}
	}
	return br, f
}

// graceContext is ctx, or once ctx has ended, a context detached from it
// that lasts RollbackGrace: the calls that find out or undo what the
// partner did must be made even when the exchange's deadline came first.
func graceContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx.Err() == nil {
		return ctx, func() {}
	}
	return context.WithTimeout(context.WithoutCancel(ctx), RollbackGrace)
}

// fulfil confirms booking id. A failure that leaves the outcome uncertain
// (5xx, transport failure, timeout, unreadable answer) is retried once with
// the same Idempotency-Key, if ctx still allows; a refusal is not.
func (r *run) fulfil(ctx context.Context, id string) (*osdm.FulfillmentCollectionResponse, *failure) {
	for attempt := 1; ; attempt++ {
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if attempt == 2 {
			// The retry finds out what the first attempt did (same
			// Idempotency-Key), so it is made even past the deadline.
			cctx, cancel = graceContext(ctx)
		}
		fr := new(osdm.FulfillmentCollectionResponse)
		f := r.do(cctx, call{step: StepFulfillments, params: map[string]string{osdm.ParamBookingID: id}, out: fr})
		cancel()
		if f == nil && len(fr.Fulfillments) == 0 && len(fr.Problems) > 0 {
			// A 2xx that issued nothing and says why is a refusal.
			prob := &fr.Problems[0]
			code, known := codeOfProblem(StepFulfillments, prob.Code)
			if !known {
				code = legacy.CodePartnerRejected
			}
			f = &failure{step: StepFulfillments, code: code, problem: prob, status: 200,
				what: r.describeCall(StepFulfillments, id) + " answered without fulfilments" + describeProblem(prob)}
		}
		if f == nil {
			return fr, nil
		}
		if !f.uncertain || attempt == 2 {
			return nil, f
		}
	}
}

// rollback deletes booking b after its fulfilment failed with f, and says
// so: BOOKING_ROLLED_BACK naming the booking when the DELETE worked (or the
// booking was gone already), otherwise a NegativeReply that still names the
// booking and says what to do about it. Never a booking left unreported.
func (r *run) rollback(ctx context.Context, b *osdm.Booking, f *failure) *Result {
	gctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), RollbackGrace)
	defer cancel()
	df := r.do(gctx, call{step: StepDeleteBooking, params: map[string]string{osdm.ParamBookingID: b.ID}})
	p := r.c.partner
	ref := b.ID
	if !validRef(ref) {
		ref = ""
	}
	// Gone already (404, or a problem saying it is cancelled) is as good
	// as deleted.
	if df == nil || df.status == 404 || df.code == legacy.CodeAlreadyCancelled {
		n := &legacy.NegativeReply{Code: legacy.CodeBookingRolledBack, BookingRef: ref, PartnerProblem: f.partnerProblem(), Retryable: !f.refusal(),
			Text: "Partner " + p + " made booking " + plain(b.ID, 128) + " but could not confirm it, so it was deleted again; nothing is booked."}
		if n.Retryable {
			n.Text += " Send the booking again later as a new message."
		} else {
			n.Text += " The partner refused the confirmation, so the same booking will not succeed unchanged."
		}
		n.Text += " Cause: " + f.what + "."
		return r.negative(n)
	}
	expiry := "expires by itself"
	if b.ConfirmationTimeLimit != nil && !b.ConfirmationTimeLimit.IsZero() {
		expiry += " at " + b.ConfirmationTimeLimit.UTC().Format(time.RFC3339)
	}
	// Retryable as f's code says (a retryable reply naming the
	// booking): the booking named here is provisional and expires unless
	// someone confirms it, so a new booking message books once more, not
	// twice for good. Except when the partner itself refused the DELETE
	// (a 4xx, typically 409 "already confirmed"): then the booking is most
	// likely confirmed, and booking again would sell the places twice.
	retry := f.code.Retryable() && !df.refusal()
	return r.negative(&legacy.NegativeReply{Code: f.code, BookingRef: ref, PartnerProblem: f.partnerProblem(), Retryable: retry,
		Text: "Partner " + p + " made booking " + plain(b.ID, 128) + " but could not confirm it, and could not delete it either. " +
			"The booking may still exist at the partner: unconfirmed, it " + expiry + "; if it was confirmed after all, cancel it with a CancelRequest for BookingRef " + plain(b.ID, 128) + ". " +
			"Confirmation: " + f.what + ". Deletion: " + df.what + "."})
}

// validRef is the legacy rule for a BookingRef: 1..128 printable ASCII.
// A booking id that is not one safe path segment (unsafeSegment) could not
// be cancelled through the OSDM paths either.
func validRef(s string) bool { return legacy.ValidRef(s) && unsafeSegment(s) == "" }

// bookingReply is the BookingReply of a fulfilled booking.
func (r *run) bookingReply(b *osdm.Booking, fr *osdm.FulfillmentCollectionResponse) *legacy.BookingReply {
	reply := &legacy.BookingReply{Header: r.h, BookingRef: b.ID, Status: legacy.StatusConfirmed,
		ReservationReference: plain(b.BookingCode, 200)}
	price := b.ConfirmedPrice
	if price == nil {
		price = b.ProvisionalPrice
	}
	reply.Price = legacyPrice(price)
	reply.Places = placesInTravellerOrder(b, false)
	for i := range b.BookedOffers {
		bo := &b.BookedOffers[i]
		for j := range bo.Reservations {
			res := &bo.Reservations[j]
			if reply.ReservationReference == "" {
				reply.ReservationReference = plain(res.BookingPartCode, 200)
			}
		}
		for j := range bo.Admissions {
			if reply.ReservationReference == "" {
				reply.ReservationReference = plain(bo.Admissions[j].BookingPartCode, 200)
			}
		}
	}
	for _, fu := range fr.Fulfillments {
		if fu.Status == osdm.FulfillmentFulfilled {
			reply.Status = legacy.StatusFulfilled
		}
		if reply.TicketControlNumber == "" {
			reply.TicketControlNumber = plain(fu.ControlNumber, 200)
		}
	}
	return reply
}

// A legacy system reads a BookingReply's places in the order of its
// request: the first place is its first traveller's (the first place of
// its first Tariff), and so on. The partner groups places as it likes (by
// coach, by tariff), so the converter puts them back in the travellers'
// order: a booking's passengers carry the externalRefs p1..pN the
// converter gave them (travellers), each reservedPlace pairs its
// passengerIds with its placeNumbers position by position, as heldPlaces
// reads them for a partial cancellation.

// travellerRank returns, for each passenger id of b, its place among the
// travellers: k-1 for externalRef pk, else after them in b's order.
func travellerRank(b *osdm.Booking) map[string]int {
	rank := make(map[string]int, len(b.Passengers))
	for i, p := range b.Passengers {
		k, err := strconv.Atoi(strings.TrimPrefix(p.ExternalRef, "p"))
		if !strings.HasPrefix(p.ExternalRef, "p") || err != nil || k < 1 || k > legacy.MaxItems {
			k = legacy.MaxItems + 1 + i
		}
		rank[p.ID] = k - 1
	}
	return rank
}

// travellersOf returns b's passengers in the travellers' order
// (travellerRank): the legacy messages' passenger index i is the i-th.
func travellersOf(b *osdm.Booking) []osdm.Passenger {
	rank := travellerRank(b)
	pax := append([]osdm.Passenger(nil), b.Passengers...)
	sort.SliceStable(pax, func(i, j int) bool { return rank[pax[i].ID] < rank[pax[j].ID] })
	return pax
}

// placesInTravellerOrder returns the places of b's reservations (with
// live, of those that still hold their places), as a BookingReply names
// them, in the order of the travellers they were booked for; places whose
// passenger the partner does not name keep their order, after the others.
func placesInTravellerOrder(b *osdm.Booking, live bool) []legacy.Place {
	rank := travellerRank(b)
	rankOf := func(h heldPlace) int {
		if r, ok := rank[h.passengerID]; ok {
			return r
		}
		return len(rank) + legacy.MaxItems + 1
	}
	// Every booking reply walks this: the named places are kept in the
	// walk's own slice and sorted without reflection.
	named := bookedPlaces(b, live)
	n := 0
	for _, h := range named {
		if h.place.Number != "" {
			named[n] = h
			n++
		}
	}
	named = named[:n]
	if n == 0 {
		return nil
	}
	slices.SortStableFunc(named, func(x, y heldPlace) int { return cmp.Compare(rankOf(x), rankOf(y)) })
	places := make([]legacy.Place, min(n, legacy.MaxItems))
	for i := range places {
		places[i] = named[i].place
	}
	return places
}
