package osdmlegacy

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// POST /bookings/{id}/refund-offers quotes a refund from the booking and
// refund_fee (no fee with an overruleCode): of the whole booking, or with
// refundSpecifications of the places of the passengers they name; PATCH
// .../{rid} {"status":"CONFIRMED"} sends the CancelRequest (listing those
// places for a partial refund) and confirms with the CancelReply's
// amounts. A passenger's place is refunded once.

// refundOfferIDPrefix starts every refund offer id.
const refundOfferIDPrefix = "ro-"

// maxRefundOffers bounds the refund offers one booking keeps.
const maxRefundOffers = 16

// refundOfferBody is POST .../refund-offers as read.
type refundOfferBody struct {
	FulfillmentIDs       []string                   `json:"fulfillmentIds"`
	RefundSpecifications []osdm.RefundSpecification `json:"refundSpecifications"`
	OverruleCode         osdm.OverruleCode          `json:"overruleCode"`
}

// refundOfferAsk is POST .../refund-offers as read: the request and the
// passengers a partial refund names (nil: every passenger not refunded).
type refundOfferAsk struct {
	osdm.RefundOfferRequest
	PassengerIDs []string
}

// readRefundOfferRequest reads POST .../refund-offers. A partial refund
// names passengers, not booking parts (restriction 7).
func readRefundOfferRequest(body []byte) (*refundOfferAsk, *osdm.ProblemError) {
	var b refundOfferBody
	if p := decodeBody(body, &b); p != nil {
		return nil, p
	}
	if len(b.FulfillmentIDs) == 0 {
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/fulfillmentIds", "fulfillmentIds must name the booking's fulfilment")
	}
	for i, id := range b.FulfillmentIDs {
		if id == "" || len(id) > maxRefBytes {
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/fulfillmentIds/"+strconv.Itoa(i), "a fulfilment id is 1.."+strconv.Itoa(maxRefBytes)+" bytes")
		}
	}
	if len(b.OverruleCode) > 64 {
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/overruleCode", "overruleCode is longer than 64 bytes")
	}
	ask := &refundOfferAsk{RefundOfferRequest: osdm.RefundOfferRequest{
		FulfillmentIDs: b.FulfillmentIDs, RefundSpecifications: b.RefundSpecifications, OverruleCode: b.OverruleCode,
	}}
	if len(b.RefundSpecifications) > maxPassengers {
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/refundSpecifications", "at most "+strconv.Itoa(maxPassengers)+" refund specifications")
	}
	for i, rs := range b.RefundSpecifications {
		at := "#/refundSpecifications/" + strconv.Itoa(i)
		if rs.FulfillmentID == "" || len(rs.FulfillmentID) > maxRefBytes {
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, at+"/fulfillmentId", "a refund specification names the fulfilment (1.."+strconv.Itoa(maxRefBytes)+" bytes)")
		}
		if len(rs.BookingPartIDs) > 0 {
			return nil, restricted(restrictAfterSales, osdm.CodeOutOfBounds, at+"/bookingPartIds",
				"a partial refund names passengers (passengerIds), not booking parts: the booking has one reservation for all its passengers")
		}
		if len(rs.PassengerIDs) == 0 {
			return nil, osdm.Invalid(osdm.CodeInvalidRequest, at+"/passengerIds", "a refund specification names the passengers whose places are refunded")
		}
		for j, pid := range rs.PassengerIDs {
			if pid == "" || len(pid) > maxRefBytes || len(ask.PassengerIDs) >= maxPassengers {
				return nil, osdm.Invalid(osdm.CodeInvalidRequest, at+"/passengerIds/"+strconv.Itoa(j), "a passenger id is 1.."+strconv.Itoa(maxRefBytes)+" bytes, at most "+strconv.Itoa(maxPassengers)+" of them")
			}
			if !contains(ask.PassengerIDs, pid) {
				ask.PassengerIDs = append(ask.PassengerIDs, pid)
			}
		}
	}
	return ask, nil
}

// readRefundOfferPatch reads PATCH .../refund-offers/{rid}.
func readRefundOfferPatch(body []byte) (*osdm.RefundOfferPatchRequest, *osdm.ProblemError) {
	var b osdm.RefundOfferPatchRequest
	if p := decodeBody(body, &b); p != nil {
		return nil, p
	}
	switch b.Status {
	case osdm.RefundConfirmed:
		return &b, nil
	case "":
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/status", "status is required: CONFIRMED accepts the refund offer")
	}
	detail := "status must be CONFIRMED, not " + strconv.Quote(shorten(string(b.Status), 32))
	switch {
	case strings.EqualFold(string(b.Status), string(osdm.RefundConfirmed)):
		detail += ": the status is written in capitals"
	default:
		detail += ": confirming is the one change a refund offer takes (it cannot go back to PROPOSED)"
	}
	return nil, osdm.Invalid(osdm.CodeInvalidRequest, "#/status", detail)
}

// createRefundOffers quotes the whole refund of a fulfilled booking.
func (rf *refunds) createRefundOffers(ctx context.Context, c *call) *Answer {
	req, p := readRefundOfferRequest(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	return rf.idempotent(ctx, c, func() string { return newID(refundOfferIDPrefix) }, func(rid string) (*Answer, bool) {
		if _, a := rf.bookings.bookingOf(ctx, c); a != nil {
			return a, finalAnswer(a)
		}
		id := c.params[osdm.ParamBookingID]
		rec, err := rf.bookings.updateBooking(ctx, id, func(r *bookingRecord) error {
			if r.refundOffer(rid) != nil {
				return errNoChange // made by an earlier run of this request
			}
			if r.State != stateFulfilled || r.Fulfillment == nil {
				return &errRefused{stateProblem(r, "refunded")}
			}
			if r.Exchange.holds() {
				return &errRefused{exchangeUnderWay(r, rf.now())}
			}
			for i, fid := range req.FulfillmentIDs {
				if fid != r.Fulfillment.ID {
					return &errRefused{fulfillmentNotOf(r, fid, "#/fulfillmentIds/"+strconv.Itoa(i))}
				}
			}
			for i, rs := range req.RefundSpecifications {
				if rs.FulfillmentID != r.Fulfillment.ID {
					return &errRefused{fulfillmentNotOf(r, rs.FulfillmentID, "#/refundSpecifications/"+strconv.Itoa(i)+"/fulfillmentId")}
				}
			}
			return rf.addRefundOffer(r, rid, req.PassengerIDs, req.OverruleCode)
		})
		if p := refusedBy(err); p != nil {
			return problemAnswer(p), finalProblem(p)
		}
		if err != nil {
			return rf.storeFailed(c, err), false
		}
		ro := rec.refundOffer(rid)
		if ro == nil {
			p := stateProblem(rec, "refunded")
			return problemAnswer(p), finalProblem(p)
		}
		return rf.json(c, http.StatusOK, osdm.RefundOfferCollectionResponse{
			RefundOffers: []osdm.RefundOffer{refundOfferView(rec, ro)},
		}), true
	})
}

// addRefundOffer adds to r the refund offer rid of the places of
// passengers (nil: every passenger not refunded yet) quoted from r's
// price and refund_fee, none with an overrule code; a refusal is an
// *errRefused.
func (rf *refunds) addRefundOffer(r *bookingRecord, rid string, passengers []string, overrule osdm.OverruleCode) error {
	pax := r.unrefunded()
	if passengers != nil {
		pax = passengers
		for _, pid := range pax {
			pr := r.passenger(pid)
			if pr == nil {
				return &errRefused{passengerNotFound(r.ID, pid).WithPointer("#/refundSpecifications")}
			}
			if pr.RefundedBy != "" {
				return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeBookingRefunded,
					"passenger "+pid+" of booking "+r.ID+" was refunded (refund offer "+pr.RefundedBy+"); a place is refunded once").WithPointer("#/refundSpecifications")}
			}
		}
	}
	var reason *int
	if overrule != "" {
		code, ok := rf.cfg.Reasons[overrule]
		if !ok {
			return &errRefused{restricted(restrictAfterSales, osdm.CodeOutOfBounds, "#/overruleCode",
				"overrule code "+quoteShort(string(overrule))+" has no legacy reason code in the reason table (subdirective reason <overruleCode> <code>), which maps "+rf.reasonList())}
		}
		reason = &code
	}
	fee, refundable, p := r.quoteRefund(rf.cfg.RefundFee, pax, overrule != "")
	if p != nil {
		return &errRefused{p}
	}
	now := rf.now().UTC()
	kept := r.RefundOffers[:0]
	for _, ro := range r.RefundOffers { // expired proposals make room
		if ro.Status == osdm.RefundConfirmed || now.Before(ro.ValidUntil) {
			kept = append(kept, ro)
		}
	}
	r.RefundOffers = kept
	if len(r.RefundOffers) >= maxRefundOffers {
		return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeRejected,
			"booking "+r.ID+" has "+strconv.Itoa(maxRefundOffers)+" refund offers open; confirm one or wait until they expire")}
	}
	r.RefundOffers = append(r.RefundOffers, refundOfferRecord{
		ID: rid, CreatedOn: now, ValidUntil: now.Add(rf.cfg.OfferTTL),
		Status: osdm.RefundProposed, OverruleCode: overrule, ReasonCode: reason,
		Fee: fee, Refundable: refundable, PassengerIDs: append([]string(nil), pax...),
	})
	return nil
}

// reasonList lists the overrule codes of the reason table, sorted, for a
// problem.
func (rf *refunds) reasonList() string {
	codes := make([]string, 0, len(rf.cfg.Reasons))
	for code := range rf.cfg.Reasons {
		codes = append(codes, string(code))
	}
	if len(codes) == 0 {
		return "none"
	}
	sort.Strings(codes)
	return strings.Join(codes, ", ")
}

// refundOfferOf loads the booking and refund offer of the call's path.
func (rf *refunds) refundOfferOf(ctx context.Context, c *call) (*bookingRecord, *refundOfferRecord, *Answer) {
	rec, a := rf.bookings.bookingOf(ctx, c)
	if a != nil {
		return nil, nil, a
	}
	rid := c.params[osdm.ParamRefundOfferID]
	ro := rec.refundOffer(rid)
	if ro == nil {
		return nil, nil, problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeRefundOfferNotFound,
			"booking "+rec.ID+" has no refund offer "+quoteShort(rid)))
	}
	return rec, ro, nil
}

// getRefundOffer answers GET .../refund-offers/{rid} from the store.
func (rf *refunds) getRefundOffer(ctx context.Context, c *call) *Answer {
	rec, ro, a := rf.refundOfferOf(ctx, c)
	if a != nil {
		return a
	}
	v := refundOfferView(rec, ro)
	return rf.json(c, http.StatusOK, osdm.RefundOfferResponse{RefundOffer: &v})
}

// patchRefundOffer answers PATCH .../refund-offers/{rid}: it confirms the
// refund offer of a booking of one train or of a journey.
func (rf *refunds) patchRefundOffer(ctx context.Context, c *call) *Answer {
	if _, p := readRefundOfferPatch(c.body); p != nil {
		return problemAnswer(p)
	}
	rid := c.params[osdm.ParamRefundOfferID]
	confirm := rf.confirmRefund
	if isJourneyID(c.params[osdm.ParamBookingID]) {
		confirm = rf.confirmJourneyRefund
	}
	return rf.idempotent(ctx, c, func() string { return rid }, func(string) (*Answer, bool) {
		return confirm(ctx, c, rid)
	})
}

// confirmRefund confirms refund offer rid of a booking of one train: the
// CancelRequest (with the reason code of its overrule code) frees the
// places, and the offer is CONFIRMED with the amounts of the CancelReply.
func (rf *refunds) confirmRefund(ctx context.Context, c *call, rid string) (*Answer, bool) {
	rec, ro, a := rf.refundOfferOf(ctx, c)
	if a != nil {
		return a, finalAnswer(a)
	}
	confirmed := func(rec *bookingRecord) *Answer {
		v := refundOfferView(rec, rec.refundOffer(rid))
		return rf.json(c, http.StatusOK, osdm.RefundOfferResponse{RefundOffer: &v})
	}
	if ro.Status == osdm.RefundConfirmed {
		return confirmed(rec), true // confirmed before: the same answer
	}
	resending := rec.State == stateCancelling && rec.Pending != nil && rec.Pending.RefundOfferID == rid
	if !resending && !rf.now().Before(ro.ValidUntil) {
		return problemAnswer(osdm.NewProblem(http.StatusConflict, osdm.CodeRefundOfferExpired,
			"refund offer "+rid+" expired at "+ro.ValidUntil.Format("2006-01-02T15:04:05Z07:00")+"; ask for a new one")), true
	}
	rec, d, p := rf.bookings.cancel(ctx, c.send, rec, cancelRefund, rid, ro.ReasonCode)
	if p != nil {
		return problemAnswer(p), finalProblem(p)
	}
	if ro := rec.refundOffer(rid); d.settled() && ro != nil && ro.Status == osdm.RefundConfirmed {
		return confirmed(rec), true // a partial refund: the booking holds the other places
	}
	if a, final := rf.bookings.cancelFailed(c, rec, d); a != nil {
		return a, final
	}
	if ro := rec.refundOffer(rid); ro == nil || ro.Status != osdm.RefundConfirmed {
		// The legacy system held nothing to refund (cancelled there before).
		return problemAnswer(osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled,
			"booking "+rec.ID+" was cancelled at the reservation system before; nothing is refunded")), true
	}
	return confirmed(rec), true
}

// refundOfferView is the OSDM refund offer of a record.
func refundOfferView(rec *bookingRecord, ro *refundOfferRecord) osdm.RefundOffer {
	v := osdm.RefundOffer{
		ID: ro.ID, CreatedOn: ro.CreatedOn, ValidFrom: ro.CreatedOn, ValidUntil: ro.ValidUntil,
		ConfirmedOn: ro.ConfirmedOn, Status: ro.Status, AppliedOverruleCode: ro.OverruleCode,
		RefundFee: ro.Fee, RefundableAmount: ro.Refundable,
		Summary: refundSummary(rec, ro),
	}
	if rec.Fulfillment != nil {
		v.Fulfillments = []osdm.Fulfillment{fulfillmentView(rec)}
	} else {
		v.Fulfillments = []osdm.Fulfillment{}
	}
	return v
}
