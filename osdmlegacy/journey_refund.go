package osdmlegacy

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// A refund offer of a journey covers the legs whose fulfilments it names:
// each of them gets a refund offer of its own under the journey's refund
// offer id (quoted as a single train's: refund_fee, none with an overrule
// code), for every passenger not refunded yet or, with
// refundSpecifications, for the passengers they name, on every leg named.
// Confirming it sends each leg's CancelRequest in turn; a retry carries on
// with the legs not confirmed yet.

// refundOffer returns the journey's refund offer id, nil when none.
func (j *journeyRecord) refundOffer(id string) *journeyRefundOffer {
	for i := range j.RefundOffers {
		if j.RefundOffers[i].ID == id {
			return &j.RefundOffers[i]
		}
	}
	return nil
}

// createJourneyRefundOffers quotes the refund of fulfilled legs of a
// journey.
func (rf *refunds) createJourneyRefundOffers(ctx context.Context, c *call) *Answer {
	req, p := readRefundOfferRequest(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	return rf.idempotent(ctx, c, func() string { return newID(refundOfferIDPrefix) }, func(rid string) (*Answer, bool) {
		j, legs, a := rf.journeys.journeyOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		if jr := j.refundOffer(rid); jr != nil { // made by an earlier run of this request
			return rf.json(c, http.StatusOK, osdm.RefundOfferCollectionResponse{RefundOffers: []osdm.RefundOffer{rf.journeyRefundView(j, legs, jr)}}), true
		}
		named, p := journeyLegsNamed(j, legs, &req.RefundOfferRequest)
		if p != nil {
			return problemAnswer(p), true
		}
		// Every train named must take the refund before any records it.
		for _, i := range named {
			dry := *legs[i]
			dry.RefundOffers = append([]refundOfferRecord(nil), legs[i].RefundOffers...)
			var p *osdm.ProblemError
			switch {
			case dry.refundOffer(rid) != nil:
			case dry.State != stateFulfilled || dry.Fulfillment == nil:
				p = stateProblem(&dry, "refunded")
			case dry.Exchange.holds():
				p = exchangeUnderWay(&dry, rf.now())
			default:
				p = refusedBy(rf.addRefundOffer(&dry, rid, req.PassengerIDs, req.OverruleCode))
			}
			if p != nil {
				p.Detail = journeyDetail(p.Detail, j, legs[i])
				return problemAnswer(p), finalProblem(p)
			}
		}
		for _, i := range named {
			rec, err := rf.bookings.updateBooking(ctx, legs[i].ID, func(r *bookingRecord) error {
				if r.refundOffer(rid) != nil {
					return errNoChange
				}
				if r.State != stateFulfilled || r.Fulfillment == nil {
					return &errRefused{stateProblem(r, "refunded")}
				}
				if r.Exchange.holds() {
					return &errRefused{exchangeUnderWay(r, rf.now())}
				}
				return rf.addRefundOffer(r, rid, req.PassengerIDs, req.OverruleCode)
			})
			if p := refusedBy(err); p != nil {
				p.Detail = journeyDetail(p.Detail, j, legs[i])
				return problemAnswer(p), finalProblem(p)
			}
			if err != nil {
				return rf.storeFailed(c, err), false
			}
			legs[i] = rec
		}
		j, err := rf.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
			if r.refundOffer(rid) != nil {
				return errNoChange
			}
			r.RefundOffers = append(r.RefundOffers, journeyRefundOffer{ID: rid, Legs: named})
			return nil
		})
		if err != nil {
			return rf.storeFailed(c, err), false
		}
		return rf.json(c, http.StatusOK, osdm.RefundOfferCollectionResponse{
			RefundOffers: []osdm.RefundOffer{rf.journeyRefundView(j, legs, j.refundOffer(rid))},
		}), true
	})
}

// journeyDetail names the journey and the leg's train in a problem text
// about a leg booking.
func journeyDetail(detail string, j *journeyRecord, leg *bookingRecord) string {
	return strings.ReplaceAll(detail, "booking "+leg.ID, "booking "+j.ID+" (train "+leg.Offer.Train+")")
}

// journeyLegsNamed returns the indexes of the legs whose fulfilments a
// refund offer request names (fulfillmentIds and refundSpecifications),
// in order of travel, or the problem of a fulfilment not the journey's.
func journeyLegsNamed(j *journeyRecord, legs []*bookingRecord, req *osdm.RefundOfferRequest) ([]int, *osdm.ProblemError) {
	byID := map[string]int{}
	for i, leg := range legs {
		if leg.Fulfillment != nil {
			byID[leg.Fulfillment.ID] = i
		}
	}
	seen := map[int]bool{}
	name := func(fid, ptr string) *osdm.ProblemError {
		i, ok := byID[fid]
		if !ok {
			return osdm.NewProblem(http.StatusNotFound, osdm.CodeFulfillmentNotFound,
				"fulfilment "+quoteShort(fid)+" is not one of booking "+j.ID+"'s").WithPointer(ptr)
		}
		seen[i] = true
		return nil
	}
	for i, fid := range req.FulfillmentIDs {
		if p := name(fid, "#/fulfillmentIds/"+strconv.Itoa(i)); p != nil {
			return nil, p
		}
	}
	for i, rs := range req.RefundSpecifications {
		if p := name(rs.FulfillmentID, "#/refundSpecifications/"+strconv.Itoa(i)+"/fulfillmentId"); p != nil {
			return nil, p
		}
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	sort.Ints(out)
	return out, nil
}

// journeyRefundOfferOf loads the journey, its legs and the refund offer
// of the call's path.
func (rf *refunds) journeyRefundOfferOf(ctx context.Context, c *call) (*journeyRecord, []*bookingRecord, *journeyRefundOffer, *Answer) {
	j, legs, a := rf.journeys.journeyOf(ctx, c)
	if a != nil {
		return nil, nil, nil, a
	}
	rid := c.params[osdm.ParamRefundOfferID]
	jr := j.refundOffer(rid)
	if jr == nil {
		return nil, nil, nil, problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeRefundOfferNotFound,
			"booking "+j.ID+" has no refund offer "+quoteShort(rid)))
	}
	for _, i := range jr.Legs {
		if legs[i].refundOffer(rid) == nil {
			return nil, nil, nil, problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeRefundOfferNotFound,
				"refund offer "+quoteShort(rid)+" of booking "+j.ID+" was deleted"))
		}
	}
	return j, legs, jr, nil
}

// getJourneyRefundOffer answers GET .../refund-offers/{rid} of a journey.
func (rf *refunds) getJourneyRefundOffer(ctx context.Context, c *call) *Answer {
	j, legs, jr, a := rf.journeyRefundOfferOf(ctx, c)
	if a != nil {
		return a
	}
	v := rf.journeyRefundView(j, legs, jr)
	return rf.json(c, http.StatusOK, osdm.RefundOfferResponse{RefundOffer: &v})
}

// confirmJourneyRefund confirms refund offer rid of a journey, leg by leg.
func (rf *refunds) confirmJourneyRefund(ctx context.Context, c *call, rid string) (*Answer, bool) {
	j, legs, jr, a := rf.journeyRefundOfferOf(ctx, c)
	if a != nil {
		return a, finalAnswer(a)
	}
	started := false
	for _, i := range jr.Legs {
		ro := legs[i].refundOffer(rid)
		started = started || ro.Status == osdm.RefundConfirmed || legs[i].Pending != nil && legs[i].Pending.RefundOfferID == rid
	}
	// Before the first train is refunded, the offer must stand on every
	// train: not expired, and each train's quote still what a refund now
	// pays. Once a train is refunded the others follow, even past the
	// offer's validity: a journey is not left half refunded.
	for _, i := range jr.Legs {
		if started {
			break
		}
		ro := legs[i].refundOffer(rid)
		if !rf.now().Before(ro.ValidUntil) {
			return problemAnswer(osdm.NewProblem(http.StatusConflict, osdm.CodeRefundOfferExpired,
				"refund offer "+rid+" expired at "+ro.ValidUntil.Format("2006-01-02T15:04:05Z07:00")+"; ask for a new one")), true
		}
		if p := legs[i].quoteStands(rf.cfg.RefundFee, ro); p != nil {
			p.Detail = journeyDetail(p.Detail, j, legs[i])
			return problemAnswer(p), finalProblem(p)
		}
	}
	for _, i := range jr.Legs {
		leg := legs[i]
		ro := leg.refundOffer(rid)
		if ro.Status == osdm.RefundConfirmed {
			continue
		}
		after, d, p := rf.bookings.cancelQuoted(ctx, c.send, leg, cancelRefund, rid, ro.ReasonCode, !started)
		if p != nil {
			p.Detail = journeyDetail(p.Detail, j, leg)
			return problemAnswer(p), finalProblem(p)
		}
		started = true
		if ro := after.refundOffer(rid); d.settled() && ro != nil && ro.Status == osdm.RefundConfirmed {
			legs[i] = after
			continue
		}
		if a, final := rf.bookings.cancelFailed(c, after, d); a != nil {
			return a, final
		}
		if ro := after.refundOffer(rid); ro == nil || ro.Status != osdm.RefundConfirmed {
			return problemAnswer(osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled,
				"train "+leg.Offer.Train+" of booking "+j.ID+" was cancelled at the reservation system before; it is not refunded")), true
		}
		legs[i] = after
	}
	v := rf.journeyRefundView(j, legs, jr)
	return rf.json(c, http.StatusOK, osdm.RefundOfferResponse{RefundOffer: &v}), true
}

// deleteJourneyRefundOffer drops a proposed refund offer of a journey
// from every leg (204 also when there is none, as for one train).
func (rf *refunds) deleteJourneyRefundOffer(ctx context.Context, c *call) *Answer {
	j, legs, a := rf.journeys.journeyOf(ctx, c)
	if a != nil {
		return a
	}
	rid := c.params[osdm.ParamRefundOfferID]
	for _, leg := range legs {
		if ro := leg.refundOffer(rid); ro != nil && (ro.Status == osdm.RefundConfirmed || leg.Pending != nil && leg.Pending.RefundOfferID == rid) {
			return problemAnswer(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
				"refund offer "+rid+" is confirmed, or being confirmed, on train "+leg.Offer.Train+"; it cannot be deleted"))
		}
	}
	for _, leg := range legs {
		_, err := rf.bookings.updateBooking(ctx, leg.ID, func(r *bookingRecord) error {
			for i, ro := range r.RefundOffers {
				if ro.ID == rid && ro.Status != osdm.RefundConfirmed && (r.Pending == nil || r.Pending.RefundOfferID != rid) {
					r.RefundOffers = append(r.RefundOffers[:i:i], r.RefundOffers[i+1:]...)
					return nil
				}
			}
			return errNoChange
		})
		if err != nil {
			return rf.storeFailed(c, err)
		}
	}
	if _, err := rf.journeys.updateJourney(ctx, j.ID, func(r *journeyRecord) error {
		for i := range r.RefundOffers {
			if r.RefundOffers[i].ID == rid {
				r.RefundOffers = append(r.RefundOffers[:i:i], r.RefundOffers[i+1:]...)
				return nil
			}
		}
		return errNoChange
	}); err != nil {
		return rf.storeFailed(c, err)
	}
	return rf.noContent(c)
}

// journeyRefundView is the OSDM refund offer of a journey: the amounts
// summed over its legs, their fulfilments, CONFIRMED once every leg is.
func (rf *refunds) journeyRefundView(j *journeyRecord, legs []*bookingRecord, jr *journeyRefundOffer) osdm.RefundOffer {
	var fees, refunds []osdm.Price
	var v osdm.RefundOffer
	status := osdm.RefundConfirmed
	var trains []string
	v.Fulfillments = []osdm.Fulfillment{}
	for n, i := range jr.Legs {
		leg := legs[i]
		ro := leg.refundOffer(jr.ID)
		if ro == nil {
			continue
		}
		lv := refundOfferView(leg, ro)
		if n == 0 {
			v = lv
			v.Fulfillments = []osdm.Fulfillment{}
		}
		if lv.ValidUntil.Before(v.ValidUntil) {
			v.ValidUntil = lv.ValidUntil
		}
		if lv.ConfirmedOn != nil && (v.ConfirmedOn == nil || lv.ConfirmedOn.After(*v.ConfirmedOn)) {
			v.ConfirmedOn = lv.ConfirmedOn
		}
		if ro.Status != osdm.RefundConfirmed {
			status = ro.Status
		}
		fees, refunds = append(fees, ro.Fee), append(refunds, ro.Refundable)
		for _, fu := range lv.Fulfillments {
			fu.BookingRef = j.ID
			v.Fulfillments = append(v.Fulfillments, fu)
		}
		trains = append(trains, leg.Offer.Train)
	}
	v.Status = status
	if status != osdm.RefundConfirmed {
		v.ConfirmedOn = nil
	}
	if len(fees) > 0 {
		v.RefundFee, v.RefundableAmount = sumPrices(fees), sumPrices(refunds)
	}
	v.Summary = strings.Replace(v.Summary, "booking "+legs[jr.Legs[0]].ID, "booking "+j.ID+" (trains "+strings.Join(trains, ", ")+")", 1)
	return v
}
