package converter

import (
	"context"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// cancel answers a CancelRequest: GET the booking; refund its live
// fulfilments (refund offer, then confirm it) when it has any; report
// ALREADY_CANCELLED when everything in it is cancelled or refunded; DELETE
// it when it was never confirmed.
func (r *run) cancel(ctx context.Context, m *legacy.CancelRequest) *Result {
	if res := r.unsafeRef("BookingRef", m.BookingRef); res != nil {
		return res
	}
	var overrule osdm.OverruleCode
	if m.ReasonCode != nil {
		o, known := r.c.reasons[*m.ReasonCode]
		if !known {
			return r.invalid("reason code " + strconv.Itoa(*m.ReasonCode) + " is not in the reason table of route " + r.c.partner + " (known codes: " + r.c.knownReasons() + ")")
		}
		overrule = o
	}
	id := m.BookingRef
	params := map[string]string{osdm.ParamBookingID: id}
	br := new(osdm.BookingResponse)
	if f := r.do(ctx, call{step: StepReadBooking, params: params, out: br}); f != nil {
		return r.failBooking(f, id)
	}
	if br.Booking == nil {
		return r.noBooking(id, br.Problems)
	}
	b := br.Booking

	var live []string
	closed := 0
	for _, fu := range b.Fulfillments {
		switch {
		case fulfillmentClosed(fu.Status):
			closed++
		case fu.ID != "":
			live = append(live, fu.ID)
		}
	}
	if len(m.Places) > 0 {
		return r.partialCancel(ctx, b, live, m.Places, overrule)
	}
	switch {
	case len(live) > 0:
		var left []legacy.Place
		if refunded(b) {
			// Partly refunded before: the reply lists the places
			// cancelled now, those that were left.
			for _, h := range heldPlaces(b) {
				left = append(left, h.place)
			}
		}
		return r.refund(ctx, id, &osdm.RefundOfferRequest{FulfillmentIDs: live, OverruleCode: overrule}, legacy.StatusRefunded, left, false)
	case closed > 0 || refunded(b) || partsClosed(b):
		return r.negative(&legacy.NegativeReply{Code: legacy.CodeAlreadyCancelled, BookingRef: id,
			Text: "Booking " + id + " at partner " + r.c.partner + " is already cancelled or refunded; nothing was changed."})
	}
	if f := r.do(ctx, call{step: StepDeleteBooking, params: params}); f != nil {
		return r.failBooking(f, id)
	}
	return ok(&legacy.CancelReply{Header: r.h, BookingRef: id, Status: legacy.StatusCancelled})
}

// refund refunds what req asks of booking id: POST a refund offer, then
// PATCH it to CONFIRMED. The CancelReply has status and lists places.
// With free (a technical rollback, which the legacy protocol makes
// without a fee) a refund offer that keeps a fee is withdrawn instead of
// confirmed, and the NegativeReply names the fee.
func (r *run) refund(ctx context.Context, id string, req *osdm.RefundOfferRequest, status string, places []legacy.Place, free bool) *Result {
	r.j.refunding(id, status, places)
	params := map[string]string{osdm.ParamBookingID: id}
	ro := new(osdm.RefundOfferCollectionResponse)
	f := r.do(ctx, call{step: StepRefundOffers, params: params, out: ro, body: req})
	if f == nil && (len(ro.RefundOffers) == 0 || ro.RefundOffers[0].ID == "") {
		f = &failure{step: StepRefundOffers, code: legacy.CodePartnerUnavailable, status: 200, uncertain: true,
			what: r.describeCall(StepRefundOffers, id) + " answered without a refund offer"}
		if len(ro.Problems) > 0 {
			prob := &ro.Problems[0]
			code, known := codeOfProblem(StepRefundOffers, prob.Code)
			if !known {
				code = legacy.CodePartnerRejected
			}
			f.code, f.problem, f.uncertain, f.what = code, prob, false, f.what+describeProblem(prob)
		}
	}
	if f != nil {
		return r.failBooking(f, id)
	}
	if offer := ro.RefundOffers[0]; free && offer.RefundFee.Amount != 0 {
		return r.refuseFee(ctx, id, offer)
	}
	return r.confirmRefund(ctx, id, ro.RefundOffers[0], status, places)
}

// refuseFee withdraws refund offer offer of booking id, which keeps a fee
// where none may be kept, and says so: nothing is refunded.
func (r *run) refuseFee(ctx context.Context, id string, offer osdm.RefundOffer) *Result {
	fee := "a fee"
	if p := legacyPrice(&offer.RefundFee); p != nil {
		fee = "a fee of " + p.Amount + " " + p.Currency
	}
	withdrawn := "the refund offer was withdrawn"
	gctx, cancel := graceContext(ctx)
	df := r.do(gctx, call{step: StepDeleteRefundOffer, params: map[string]string{osdm.ParamBookingID: id, osdm.ParamRefundOfferID: offer.ID}})
	cancel()
	if df != nil && df.status != 404 {
		withdrawn = "its refund offer " + plain(offer.ID, 128) + " is left unconfirmed and lapses"
	}
	return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, BookingRef: id,
		Text: "Partner " + r.c.partner + " would keep " + fee + " of booking " + id + "'s refund under " + string(osdm.OverruleTechnicalFailure) +
			", and a technical rollback is made without a fee: nothing was refunded and " + withdrawn +
			". Cancel the booking with a CancelRequest to refund it under the partner's conditions."})
}

// confirmRefund confirms refund offer offer of booking id (PATCH
// CONFIRMED, asked again once when the answer is lost) and answers the
// CancelReply with status and places.
func (r *run) confirmRefund(ctx context.Context, id string, offer osdm.RefundOffer, status string, places []legacy.Place) *Result {
	params := map[string]string{osdm.ParamBookingID: id, osdm.ParamRefundOfferID: offer.ID}
	confirm := call{step: StepRefundOffer, params: params, body: &osdm.RefundOfferPatchRequest{Status: osdm.RefundConfirmed}}
	pr := new(osdm.RefundOfferResponse)
	confirm.out = pr
	f := r.do(ctx, confirm)
	if f != nil && f.uncertain {
		// The partner may have refunded and the answer was lost, late or
		// unreadable: the same PATCH with the same Idempotency-Key tells.
		gctx, cancel := graceContext(ctx)
		pr = new(osdm.RefundOfferResponse)
		confirm.out = pr
		if r.do(gctx, confirm) == nil {
			f = nil
		}
		cancel()
	}
	if f != nil {
		text := "Partner " + r.c.partner + " offered refund " + plain(offer.ID, 128) + " for booking " + id + " but confirming it failed, so the booking is not refunded. " +
			"Send the cancellation again as a new message. Cause: " + f.what + "."
		if f.uncertain {
			text = "Partner " + r.c.partner + " offered refund " + plain(offer.ID, 128) + " for booking " + id + " but did not say whether it confirmed it, even when asked again. " +
				"Send the cancellation again as a new message: a refunded booking is then answered ALREADY_CANCELLED. Cause: " + f.what + "."
		}
		return r.negative(&legacy.NegativeReply{Code: f.code, BookingRef: id, PartnerProblem: f.partnerProblem(), Retryable: true, Text: text})
	}
	if pr.RefundOffer != nil {
		offer = *pr.RefundOffer
	}
	return ok(&legacy.CancelReply{Header: r.h, BookingRef: id, Status: status,
		RefundAmount: legacyPrice(&offer.RefundableAmount), Fee: legacyPrice(&offer.RefundFee), Places: places})
}

// noBooking answers a 2xx to GET /bookings/{id} without the booking: the
// partner's problem when it names a known one, else PARTNER_UNAVAILABLE.
func (r *run) noBooking(id string, problems []osdm.Problem) *Result {
	f := &failure{step: StepReadBooking, code: legacy.CodePartnerUnavailable, status: 200, uncertain: true,
		what: r.describeCall(StepReadBooking, id) + " answered without a booking"}
	if prob, code := firstProblem(StepReadBooking, problems); prob != nil && code != "" {
		f.code, f.problem, f.what = code, prob, f.what+describeProblem(prob)
	}
	return r.failBooking(f, id)
}

// failBooking answers a failed call about an existing booking id, naming
// it unless the partner says there is no such booking.
func (r *run) failBooking(f *failure, id string) *Result {
	res := r.fail(f)
	if f.code != legacy.CodeBookingNotFound {
		res.Reply.(*legacy.NegativeReply).BookingRef = id
	}
	return res
}

// refunded reports a booking with a confirmed refund offer.
func refunded(b *osdm.Booking) bool {
	for _, ro := range b.RefundOffers {
		if ro.Status == osdm.RefundConfirmed {
			return true
		}
	}
	return false
}

// fulfillmentClosed reports a fulfilment that is no longer live:
// cancelled, released, refunded, exchanged or expired.
func fulfillmentClosed(s osdm.FulfillmentStatus) bool {
	switch s {
	case osdm.FulfillmentCancelled, osdm.FulfillmentReleased, osdm.FulfillmentRefunded, osdm.FulfillmentExchanged, osdm.FulfillmentExpired:
		return true
	}
	return false
}

// partsClosed reports a booking whose booked parts are all cancelled,
// released, refunded or exchanged (and that has at least one).
func partsClosed(b *osdm.Booking) bool {
	n := 0
	closed := func(s osdm.BookingPartStatus) bool {
		n++
		switch s {
		case osdm.BookingPartCancelled, osdm.BookingPartReleased, osdm.BookingPartRefunded, osdm.BookingPartExchanged:
			return true
		}
		return false
	}
	for _, bo := range b.BookedOffers {
		for _, res := range bo.Reservations {
			if !closed(res.Status) {
				return false
			}
		}
		for _, ad := range bo.Admissions {
			if !closed(ad.Status) {
				return false
			}
		}
	}
	return n > 0
}

func (c *Converter) knownReasons() string {
	codes := make([]int, 0, len(c.reasons))
	for code := range c.reasons {
		codes = append(codes, code)
	}
	return joinInts(codes)
}

// heldPlace is a place a booking still holds, with the passenger it was
// booked for and the booking part it belongs to.
type heldPlace struct {
	place       legacy.Place
	passengerID string
	partID      string
}

// heldPlaces lists the places of the live reservations of b, as a
// BookingReply names them (coach and number), each with its passenger:
// the reservedPlaces' passengerIds, position by position with their
// placeNumbers. A place whose passenger the partner does not name has
// passengerID "".
func heldPlaces(b *osdm.Booking) []heldPlace { return bookedPlaces(b, true) }

// bookedPlaces lists the places of b's reservations as heldPlaces does;
// with live, only of those that still hold their places.
func bookedPlaces(b *osdm.Booking, live bool) []heldPlace {
	var out []heldPlace
	for i := range b.BookedOffers {
		for j := range b.BookedOffers[i].Reservations {
			res := &b.BookedOffers[i].Reservations[j]
			if res.PlaceAllocation == nil || live && partClosed(res.Status) {
				continue
			}
			for _, rp := range res.PlaceAllocation.ReservedPlaces {
				for k, n := range rp.PlaceNumbers {
					out = append(out, heldPlace{place: legacy.Place{Coach: plain(rp.CoachNumber, 50), Number: plain(n, 50)},
						passengerID: placeOwner(res, &rp, k), partID: res.ID})
				}
			}
		}
	}
	return out
}

// placeOwner is the passenger id of the k-th place number of rp, a
// reservedPlace of res: rp's passengerIds position by position with its
// placeNumbers, or the reservation's one passenger; "" when the partner
// does not say.
func placeOwner(res *osdm.Reservation, rp *osdm.ReservedPlace, k int) string {
	switch {
	case len(rp.PassengerIDs) == len(rp.PlaceNumbers):
		return rp.PassengerIDs[k]
	case len(res.PassengerIDs) == 1:
		return res.PassengerIDs[0]
	}
	return ""
}

// partClosed reports a booking part that holds nothing any more.
func partClosed(s osdm.BookingPartStatus) bool {
	switch s {
	case osdm.BookingPartCancelled, osdm.BookingPartReleased, osdm.BookingPartRefunded, osdm.BookingPartExchanged:
		return true
	}
	return false
}

// partialCancel cancels the places of booking b (whose live fulfilments
// are live): a refund offer with refundSpecifications naming the
// passengers of those places, confirmed. Every place must be one b still
// holds; naming all of them is a whole cancellation.
func (r *run) partialCancel(ctx context.Context, b *osdm.Booking, live []string, places []legacy.Place, overrule osdm.OverruleCode) *Result {
	id := b.ID
	held := heldPlaces(b)
	if len(live) == 0 {
		if bookingState(b) == bookingClosed {
			return r.negative(&legacy.NegativeReply{Code: legacy.CodeAlreadyCancelled, BookingRef: id,
				Text: "Booking " + id + " at partner " + r.c.partner + " is already cancelled or refunded; nothing was changed."})
		}
		return r.invalidAbout(id, "Booking "+id+" at partner "+r.c.partner+" is not confirmed, so single places cannot be refunded; cancel the whole booking (a CancelRequest without Place).")
	}
	var pax []string
	partsOf := map[string]bool{}
	named := map[int]int{} // held place -> the item of places naming it
	for k, want := range places {
		found, matches := -1, 0
		for i, h := range held {
			if h.place.Number == want.Number && (want.Coach == "" || h.place.Coach == want.Coach) {
				if found < 0 {
					found = i
				}
				matches++
			}
		}
		if found < 0 {
			return r.invalidAbout(id, "Place "+describePlace(want)+" is not held by booking "+id+" (any more); it holds "+describeHeld(held)+". Nothing was cancelled.")
		}
		if matches > 1 {
			return r.invalidAbout(id, "Place "+describePlace(want)+" names more than one place of booking "+id+" ("+describeHeld(held)+"); give its coach. Nothing was cancelled.")
		}
		if j, twice := named[found]; twice {
			return r.invalidAbout(id, "Places "+strconv.Itoa(j+1)+" and "+strconv.Itoa(k+1)+" of the request both name place "+describePlace(held[found].place)+" of booking "+id+". Nothing was cancelled.")
		}
		named[found] = k
		h := held[found]
		if h.passengerID == "" {
			return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, BookingRef: id,
				Text: "Partner " + r.c.partner + " does not say which passenger holds place " + describePlace(want) + " of booking " + id + ", so it cannot be cancelled alone; nothing was cancelled. Cancel the whole booking instead."})
		}
		pax = append(pax, h.passengerID)
		partsOf[h.partID] = true
	}
	if len(places) == len(held) {
		// Every place: a whole cancellation.
		all := make([]legacy.Place, len(held))
		for i, h := range held {
			all[i] = h.place
		}
		return r.refund(ctx, id, &osdm.RefundOfferRequest{FulfillmentIDs: live, OverruleCode: overrule}, legacy.StatusRefunded, all, false)
	}
	// The passengers are taken from the fulfilment that covers their
	// part; a booking with one live fulfilment needs no looking.
	specs := make([]osdm.RefundSpecification, 0, len(live))
	for _, fid := range live {
		var in []string
		for k, pid := range pax {
			if len(live) == 1 || fulfilmentCovers(b, fid, held, places[k]) {
				in = append(in, pid)
			}
		}
		if len(in) > 0 {
			specs = append(specs, osdm.RefundSpecification{FulfillmentID: fid, PassengerIDs: in})
		}
	}
	fids := make([]string, len(specs))
	for i, s := range specs {
		fids[i] = s.FulfillmentID
	}
	if len(specs) == 0 {
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, BookingRef: id,
			Text: "Partner " + r.c.partner + " does not say which ticket of booking " + id + " covers the places asked, so they cannot be cancelled alone; nothing was cancelled."})
	}
	req := &osdm.RefundOfferRequest{FulfillmentIDs: fids, RefundSpecifications: specs, OverruleCode: overrule}
	return r.refund(ctx, id, req, legacy.StatusPartiallyRefunded, places, false)
}

// fulfilmentCovers reports whether fulfilment fid of b covers the booking
// part of place p.
func fulfilmentCovers(b *osdm.Booking, fid string, held []heldPlace, p legacy.Place) bool {
	part := ""
	for _, h := range held {
		if h.place.Number == p.Number && (p.Coach == "" || h.place.Coach == p.Coach) {
			part = h.partID
		}
	}
	for _, fu := range b.Fulfillments {
		if fu.ID != fid {
			continue
		}
		for _, bp := range fu.BookingParts {
			if bp.ID == part {
				return true
			}
		}
	}
	return false
}

// describePlace is "coach 11 number 46" for a reply text.
func describePlace(p legacy.Place) string {
	if p.Coach == "" {
		return "number " + plain(p.Number, 50)
	}
	return "coach " + plain(p.Coach, 50) + " number " + plain(p.Number, 50)
}

// describeHeld lists held places as "11/45, 11/47" (at most 20).
func describeHeld(held []heldPlace) string {
	if len(held) == 0 {
		return "none"
	}
	parts := make([]string, 0, len(held))
	for i, h := range held {
		if i == 20 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, h.place.Coach+"/"+h.place.Number)
	}
	return strings.Join(parts, ", ")
}
