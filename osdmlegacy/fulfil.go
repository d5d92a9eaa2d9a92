package osdmlegacy

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// POST /bookings/{id}/fulfillments: no legacy message (the places are
// held); the booking is FULFILLED with the BookingReply's control number.
// On a fulfilled booking with an exchange operation PREBOOKED it confirms
// the exchange: the old places are cancelled, and the fulfilment is the
// new journey's.

// fulfillmentIDPrefix starts every fulfilment id; the rest is the booking
// id's, so GET /fulfillments/{id} finds its booking without an index.
const fulfillmentIDPrefix = "fu-"

func fulfillmentID(bookingID string) string {
	return fulfillmentIDPrefix + strings.TrimPrefix(bookingID, bookingIDPrefix)
}

// exchangeFulfillmentID is the id of the fulfilment the booking's n-th
// exchange issued: the booking's fulfilment id and ".x<n>" (a booking id
// has no '.').
func exchangeFulfillmentID(bookingID string, n int) string {
	return fulfillmentID(bookingID) + ".x" + strconv.Itoa(n)
}

// bookingOfFulfillment is the booking id of fulfilment id fid, false when
// fid is no fulfilment id of this façade's.
func bookingOfFulfillment(fid string) (string, bool) {
	rest, ok := strings.CutPrefix(fid, fulfillmentIDPrefix)
	if !ok {
		return "", false
	}
	rest, _, _ = strings.Cut(rest, ".")
	return bookingIDPrefix + rest, true
}

// fulfillmentNotOf is the problem of fid named at ptr for an operation on
// booking rec, whose fulfilment it is not: one an exchange replaced says so
// and names the fulfilment to use.
func fulfillmentNotOf(rec *bookingRecord, fid, ptr string) *osdm.ProblemError {
	for _, x := range rec.Exchanged {
		if x.ID == fid && rec.Fulfillment != nil {
			return osdm.NewProblem(http.StatusNotFound, osdm.CodeFulfillmentNotFound,
				"fulfilment "+fid+" of booking "+rec.ID+" was exchanged and is void; its fulfilment now is "+rec.Fulfillment.ID).WithPointer(ptr)
		}
	}
	return osdm.NewProblem(http.StatusNotFound, osdm.CodeFulfillmentNotFound,
		"fulfilment "+quoteShort(fid)+" is not one of booking "+rec.ID+"'s").WithPointer(ptr)
}

// journeySummary names the journey of offer o.
func journeySummary(o *offerRecord) string {
	return "Reservation on train " + o.Train + " on " + o.ServiceDate
}

// errRefused carries a problem out of an updateBooking function.
type errRefused struct{ p *osdm.ProblemError }

func (e *errRefused) Error() string { return e.p.Error() }

// refusedBy returns the problem an updateBooking function refused with.
func refusedBy(err error) *osdm.ProblemError {
	var r *errRefused
	if errors.As(err, &r) {
		return r.p
	}
	return nil
}

// createFulfillments confirms a PREBOOKED booking within its hold; then
// the passengers' data its BookingRequest could not carry follow
// (sendUnsentData).
func (d *documents) createFulfillments(ctx context.Context, c *call) *Answer {
	if len(c.body) > 0 {
		var body osdm.FulfillmentPostRequest
		if p := decodeBody(c.body, &body); p != nil {
			return problemAnswer(p)
		}
	}
	id := c.params[osdm.ParamBookingID]
	c.answer.BookingID = id
	return d.idempotent(ctx, c, func() string { return id }, func(string) (*Answer, bool) {
		cur, a := d.bookings.bookingOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		if cur.Exchange.holds() || cur.State == stateExchanging && cur.Pending != nil && cur.Pending.Cancel == cancelExchange {
			return d.fulfilExchange(ctx, c, cur)
		}
		rec, fulfilled, a := d.fulfilBooking(ctx, c, id)
		if a != nil {
			return a, finalAnswer(a)
		}
		if rec.Fulfillment == nil {
			p := stateProblem(rec, "fulfilled")
			return problemAnswer(p), finalProblem(p)
		}
		d.dropHold(ctx, rec)
		if fulfilled {
			rec = d.passengers.sendUnsentData(ctx, c.send, rec)
		}
		return d.fulfillmentAnswer(c, rec), true
	})
}

// fulfilBooking fulfils booking id (of one train, or a journey's leg)
// while its hold runs, and says whether this call did (false: fulfilled
// before); else it returns the answer that refuses it.
func (d *documents) fulfilBooking(ctx context.Context, c *call, id string) (*bookingRecord, bool, *Answer) {
	fulfilled := false
	rec, err := d.bookings.updateBooking(ctx, id, func(r *bookingRecord) error {
		now := d.now()
		fulfilled = false
		switch {
		case r.State == stateFulfilled || r.Fulfillment != nil:
			return errNoChange // fulfilled before: the same fulfilment
		case r.State == statePrebooked && now.Before(r.HoldUntil):
		default:
			return &errRefused{stateProblem(r, "fulfilled")}
		}
		fulfilled = true
		r.State = stateFulfilled
		r.Fulfillment = &fulfillmentRecord{ID: fulfillmentID(r.ID), CreatedOn: now.UTC(), ControlNumber: controlNumber(r)}
		return nil
	})
	if p := refusedBy(err); p != nil {
		return nil, false, problemAnswer(p)
	}
	if err != nil {
		return nil, false, d.storeFailed(c, err)
	}
	return rec, fulfilled, nil
}

// fulfilExchange confirms the exchange of rec: its old places are
// cancelled (a CancelRequest) and the booking is the new journey; then
// the passengers' data its BookingRequest could not carry follow
// (sendUnsentData).
func (d *documents) fulfilExchange(ctx context.Context, c *call, rec *bookingRecord) (*Answer, bool) {
	if rec.Exchange.State == exchangeBooking {
		return problemAnswer(underWay("booking "+rec.ID, "a message")), false
	}
	rec, dlv, p := d.exchanges.confirmExchange(ctx, c.send, rec)
	if p != nil {
		return problemAnswer(p), finalProblem(p)
	}
	if a, final := d.exchanges.exchangeFailed(c, rec, dlv); a != nil {
		return a, final
	}
	if rec.Exchange.State != exchangeConfirmed || rec.Fulfillment == nil {
		p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the exchange of booking "+rec.ID+" was not confirmed; the booking stands as it was")
		return problemAnswer(p), true
	}
	d.dropHold(ctx, rec)
	rec = d.passengers.sendUnsentData(ctx, c.send, rec)
	return d.fulfillmentAnswer(c, rec), true
}

// controlNumber is the fulfilment's control number: the BookingReply's
// ticket control number, else its reservation reference.
func controlNumber(r *bookingRecord) string {
	if r.Legacy == nil {
		return ""
	}
	if r.Legacy.TicketControlNumber != "" {
		return r.Legacy.TicketControlNumber
	}
	return r.Legacy.ReservationReference
}

// fulfillmentView is the OSDM fulfilment of a fulfilled booking.
func fulfillmentView(rec *bookingRecord) osdm.Fulfillment {
	fr := rec.Fulfillment
	status := osdm.FulfillmentFulfilled
	switch partStatus(rec) {
	case osdm.BookingPartRefunded:
		status = osdm.FulfillmentRefunded
	case osdm.BookingPartCancelled:
		status = osdm.FulfillmentCancelled
	}
	if rec.Cancel != nil && rec.Cancel.Why == cancelReplaced {
		status = osdm.FulfillmentExchanged // a leg of a journey an exchange replaced
	}
	return osdm.Fulfillment{
		ID: fr.ID, Status: status, BookingRef: rec.ID, CreatedOn: fr.CreatedOn,
		ControlNumber: fr.ControlNumber,
		Summary:       journeySummary(&rec.Offer),
		BookingParts:  []osdm.BookingPartReference{{ID: reservationID(rec)}},
	}
}

// fulfillmentsView is every fulfilment of rec: those exchanges replaced
// (EXCHANGED), then the current one.
func fulfillmentsView(rec *bookingRecord) []osdm.Fulfillment {
	var out []osdm.Fulfillment
	for i := range rec.Exchanged {
		out = append(out, exchangedView(rec, &rec.Exchanged[i]))
	}
	if rec.Fulfillment != nil {
		out = append(out, fulfillmentView(rec))
	}
	return out
}

// exchangedView is the OSDM fulfilment of fr, which an exchange replaced.
func exchangedView(rec *bookingRecord, fr *fulfillmentRecord) osdm.Fulfillment {
	return osdm.Fulfillment{
		ID: fr.ID, Status: osdm.FulfillmentExchanged, BookingRef: rec.ID, CreatedOn: fr.CreatedOn,
		ControlNumber: fr.ControlNumber, Summary: fr.Summary,
		BookingParts: []osdm.BookingPartReference{{ID: reservationID(rec)}},
	}
}

// getFulfillment answers GET /fulfillments/{fulfillmentId} (and the nested
// form under its booking) from the store.
func (d *documents) getFulfillment(ctx context.Context, c *call) *Answer {
	fid := c.params[osdm.ParamFulfillmentID]
	notFound := problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "no fulfilment "+quoteShort(fid)+" is known"))
	id, ok := bookingOfFulfillment(fid)
	if !ok {
		return notFound
	}
	rec, _, err := d.bookings.loadBooking(ctx, id)
	if errors.Is(err, errBookingMissing) {
		return notFound
	}
	if err != nil {
		return d.storeFailed(c, err)
	}
	// A leg's fulfilment is its journey's: the journey is its booking.
	owner := id
	if rec.JourneyID != "" {
		owner = rec.JourneyID
	}
	if bid, nested := c.params[osdm.ParamBookingID]; nested && bid != owner {
		return notFound
	}
	c.answer.BookingID = owner
	for _, v := range fulfillmentsView(rec) {
		if v.ID == fid {
			v.BookingRef = owner
			docs, problems := d.ticketDocuments(c, rec, &v)
			return d.json(c, http.StatusOK, osdm.FulfillmentResponse{Problems: problems, Fulfillment: &v, FulfillmentDocuments: docs})
		}
	}
	return notFound
}
