package osdmlegacy

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// PATCH /bookings/{id}/passengers/{pid}, before departure (also after
// fulfilment): a change of name or date of birth is sent to the legacy
// system as a PassengerDataRequest and kept once it is taken; contact
// data is kept with the booking only. Type and age cannot change, nor
// may a date of birth move the passenger to another legacy tariff (the
// tariff was booked for it): such a change is refused and nothing is sent.

// passengerBody is PATCH .../passengers/{pid} as read (the spec's
// Passenger; members absent are left as they were).
type passengerBody struct {
	ID          string             `json:"id"`
	ExternalRef string             `json:"externalRef"`
	Type        osdm.PassengerType `json:"type"`
	Age         *int               `json:"age"`
	DateOfBirth string             `json:"dateOfBirth"`
	Detail      *osdm.PersonDetail `json:"detail"`
}

// readPassengerPatch reads PATCH .../passengers/{pid}.
func readPassengerPatch(body []byte) (*passengerBody, *osdm.ProblemError) {
	var b passengerBody
	if p := decodeBody(body, &b); p != nil {
		return nil, p
	}
	if len(b.ID) > maxRefBytes || len(b.ExternalRef) > maxRefBytes || len(b.Type) > 64 {
		return nil, osdm.Invalid(osdm.CodeInvalidRequest, "", "id, externalRef and type are at most 256 bytes")
	}
	if p := checkPersonData("#", b.DateOfBirth, b.Age, b.Detail); p != nil {
		return nil, p
	}
	return &b, nil
}

// patchPassenger changes a passenger: at the legacy system first when the
// name or date of birth changes, then in the booking.
func (ps *passengers) patchPassenger(ctx context.Context, c *call) *Answer {
	body, p := readPassengerPatch(c.body)
	if p != nil {
		return problemAnswer(p)
	}
	pid := c.params[osdm.ParamPassengerID]
	return ps.idempotent(ctx, c, func() string { return pid }, func(string) (*Answer, bool) {
		rec, a := ps.bookings.bookingOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		return ps.patchBookingPassenger(ctx, c, rec, pid, body)
	})
}

// checkPassengerPatch refuses a change the booking cannot take: another
// id, externalRef, type or age, or a date of birth that gives another
// legacy tariff on the day of travel than the one booked.
func (ps *passengers) checkPassengerPatch(r *bookingRecord, pr *passengerRecord, body *passengerBody, now time.Time) *osdm.ProblemError {
	switch {
	case body.ID != "" && body.ID != pr.ID:
		return osdm.Invalid(osdm.CodeInvalidRequest, "#/id", "id must be the passenger's id "+quoteShort(pr.ID))
	case body.ExternalRef != "" && body.ExternalRef != pr.ExternalRef:
		return osdm.Invalid(osdm.CodeInvalidRequest, "#/externalRef", "externalRef cannot change")
	case body.Type != "" && body.Type != pr.Type:
		return restricted(RestrictPassengers, osdm.CodeOutOfBounds, "#/type",
			"the passenger type cannot change: the tariff was booked for "+string(pr.Type))
	case body.Age != nil && pr.Age != nil && *body.Age != *pr.Age:
		return restricted(RestrictPassengers, osdm.CodeOutOfBounds, "#/age",
			"the age cannot change: the tariff was booked for it")
	case !r.Offer.Departure.IsZero() && !now.Before(r.Offer.Departure):
		return osdm.NewProblem(http.StatusConflict, osdm.CodeRejected, "the train of booking "+r.ID+" has left: passengers are changed before departure")
	}
	// The booked tariff's age range on the day of travel, the rule a
	// booking's date of birth is held to.
	if op := r.Offer.passenger(pr.ExternalRef); op != nil {
		return birthDateFits("#", body.DateOfBirth, *op, r.Offer.ServiceDate, ps.cfg.Tariffs)
	}
	return nil
}

// passengerData is the PassengerDataRequest item that changes pr into
// next, and whether there is a change the legacy system holds (name or
// date of birth). The index is the passenger's first place in booking
// order (placeOwners), 1-based.
func (rec *bookingRecord) passengerData(pr, next *passengerRecord) ([]legacy.PassengerData, bool) {
	// A name left out (no lastName) stays as the legacy system holds it.
	name := nameOf(next.Detail)
	if (name == "" || name == pr.NameSent) && next.DateOfBirth == pr.DateOfBirth {
		return nil, false
	}
	index := 0
	for i, owner := range rec.placeOwners() {
		if rec.Passengers[owner].ID == pr.ID {
			index = i + 1
			break
		}
	}
	if index == 0 {
		return nil, false
	}
	d := legacy.PassengerData{Index: index}
	if name != "" {
		d.FirstName, d.LastName = next.Detail.FirstName, next.Detail.LastName
	}
	if next.DateOfBirth != pr.DateOfBirth {
		d.DateOfBirth = next.DateOfBirth
	}
	return []legacy.PassengerData{d}, true
}

// mergeDetail is old changed by the PATCH's detail d: a member d leaves
// out (absent, null or "") stays as it was, as a PassengerDataRequest
// leaves the legacy system's data it does not give. So a PATCH of contact
// data alone keeps the name the legacy system holds, and a new last name
// keeps the first name.
func mergeDetail(old, d *osdm.PersonDetail) *osdm.PersonDetail {
	var out osdm.PersonDetail
	if old != nil {
		out = *old
		if old.Contact != nil {
			c := *old.Contact
			out.Contact = &c
		}
	}
	if d.FirstName != "" {
		out.FirstName = d.FirstName
	}
	if d.LastName != "" {
		out.LastName = d.LastName
	}
	if c := d.Contact; c != nil {
		if out.Contact == nil {
			out.Contact = &osdm.ContactDetail{}
		}
		if c.Email != "" {
			out.Contact.Email = c.Email
		}
		if c.PhoneNumber != "" {
			out.Contact.PhoneNumber = c.PhoneNumber
		}
	}
	return &out
}

// nameOf is the name a legacy message carries for detail, "" when none.
func nameOf(d *osdm.PersonDetail) string {
	if d == nil || d.LastName == "" {
		return ""
	}
	return strings.TrimSpace(d.FirstName + " " + d.LastName)
}

// passengerResult is the answer to a passenger PATCH once its
// patchBookingPassenger changes passenger pid of booking rec as body
// says: a PassengerDataRequest when the legacy system must hear of it.
func (ps *passengers) patchBookingPassenger(ctx context.Context, c *call, rec *bookingRecord, pid string, body *passengerBody) (*Answer, bool) {
	if rec.State == stateUpdating && rec.Pending != nil && rec.Pending.Passenger != nil && rec.Pending.Passenger.ID == pid {
		// A change of this passenger under way: settle it first.
		if ps.now().Before(rec.Pending.LeaseUntil) {
			return problemAnswer(underWay("booking "+rec.ID, "a message")), false
		}
		after, d := ps.settlement.redeliver(ctx, c.send, rec)
		return ps.passengerResult(c, after, pid, d)
	}
	now := ps.now()
	sent := false
	rec, err := ps.bookings.updateBooking(ctx, rec.ID, func(r *bookingRecord) error {
		sent = false
		pr := r.passenger(pid)
		if pr == nil {
			return &errRefused{passengerNotFound(r.ID, pid)}
		}
		if r.State != statePrebooked && r.State != stateFulfilled {
			return &errRefused{stateProblem(r, "changed")}
		}
		if r.Exchange.holds() {
			return &errRefused{exchangeUnderWay(r, now)}
		}
		if p := ps.checkPassengerPatch(r, pr, body, now); p != nil {
			return &errRefused{p}
		}
		if pr.RefundedBy != "" {
			return &errRefused{osdm.NewProblem(http.StatusConflict, osdm.CodeBookingRefunded,
				"passenger "+pid+" of booking "+r.ID+" was refunded (refund offer "+pr.RefundedBy+")")}
		}
		next := *pr
		if body.DateOfBirth != "" {
			next.DateOfBirth = body.DateOfBirth
		}
		if body.Detail != nil {
			next.Detail = mergeDetail(pr.Detail, body.Detail)
		}
		data, changed := r.passengerData(pr, &next)
		if !changed || r.Legacy == nil {
			*pr = next // contact data only: kept here, nothing to send
			return nil
		}
		if name := nameOf(next.Detail); name != "" {
			next.NameSent = name
		}
		if err := ps.pendPassengerData(ctx, r, data, now, func(p *pendingMessage) { p.Passenger = &next }); err != nil {
			return err
		}
		sent = true
		return nil
	})
	if p := refusedBy(err); p != nil {
		return problemAnswer(p), finalProblem(p)
	}
	if err != nil {
		return ps.storeFailed(c, err), false
	}
	if !sent {
		v := passengerView(rec.passenger(pid))
		return ps.json(c, http.StatusOK, osdm.PassengerResponse{Passenger: &v}), true
	}
	after, d := ps.settlement.deliver(ctx, c.send, rec)
	return ps.passengerResult(c, after, pid, d)
}

// PassengerDataRequest was sent (d).
func (ps *passengers) passengerResult(c *call, rec *bookingRecord, pid string, d *delivery) (*Answer, bool) {
	subject := "changing passenger " + pid + " of booking " + rec.ID
	if a := ps.settlement.unsettled(c, d, subject, "the change is being settled: retry to learn its outcome"); a != nil {
		return a, false
	}
	switch {
	case d.refusal != nil:
		p := NegativeProblem(d.refusal, subject)
		return problemAnswer(p), finalProblem(p)
	case rec.State == stateUpdating:
		return problemAnswer(underWay("booking "+rec.ID, "a message")), false
	}
	v := passengerView(rec.passenger(pid))
	return ps.json(c, http.StatusOK, osdm.PassengerResponse{Passenger: &v}), true
}

// recordPassengerResult records the reply to the PassengerDataRequest
// msgID: the change is kept (PassengerDataReply) or dropped (a refusal);
// the booking goes back to the state it was in.
func (ps *passengers) recordPassengerResult(ctx context.Context, id, msgID string, reply legacy.Reply, now time.Time, d *delivery) (*bookingRecord, error) {
	nr, _ := reply.(*legacy.NegativeReply)
	d.refusal = nr
	rec, err := ps.bookings.updateBooking(ctx, id, func(r *bookingRecord) error {
		p := r.Pending
		if p == nil || p.MessageID != msgID {
			return errNoChange
		}
		r.Pending, r.State = nil, p.Revert
		if nr != nil {
			r.LastRefusal = &legacyRefusal{Code: nr.Code, Text: nr.Text, Retryable: nr.Retryable, At: now}
			if nr.Code == legacy.CodeAlreadyCancelled || nr.Code == legacy.CodeBookingNotFound {
				// The legacy system holds nothing: the booking is over there.
				r.State = stateCancelled
				r.Cancel = &cancelOutcome{Why: cancelDelete, At: now, Status: string(nr.Code)}
			}
			return nil
		}
		if p.Passenger != nil {
			if pr := r.passenger(p.Passenger.ID); pr != nil {
				*pr = *p.Passenger
			}
		}
		for id, name := range p.NamesSent {
			if pr := r.passenger(id); pr != nil {
				pr.NameSent = name
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ps.settlement.afterResult(ctx, rec, msgID)
	return rec, nil
}

// getPassenger answers GET .../passengers/{pid} from the store.
func (ps *passengers) getPassenger(ctx context.Context, c *call) *Answer {
	rec, a := ps.bookings.bookingOf(ctx, c)
	if a != nil {
		return a
	}
	pid := c.params[osdm.ParamPassengerID]
	pr := rec.passenger(pid)
	if pr == nil {
		return problemAnswer(passengerNotFound(rec.ID, pid))
	}
	v := passengerView(pr)
	return ps.json(c, http.StatusOK, osdm.PassengerResponse{Passenger: &v})
}

func passengerNotFound(bookingID, pid string) *osdm.ProblemError {
	return osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "booking "+bookingID+" has no passenger "+quoteShort(pid))
}

// passenger returns the booking's passenger id, nil when none.
func (rec *bookingRecord) passenger(id string) *passengerRecord {
	for i := range rec.Passengers {
		if rec.Passengers[i].ID == id {
			return &rec.Passengers[i]
		}
	}
	return nil
}

// passengerView is the OSDM passenger of a record.
func passengerView(p *passengerRecord) osdm.Passenger {
	v := osdm.Passenger{ID: p.ID, ExternalRef: p.ExternalRef, Type: p.Type, Age: p.Age, DateOfBirth: p.DateOfBirth}
	if p.Detail != nil {
		d := *p.Detail
		v.Detail = &d
	}
	return v
}

// A legacy BookingRequest names its places in order, up to the first place
// whose passenger has no name (legacyNames), and carries a date of birth
// only with a name. The passengers' other names and dates of birth follow
// in one PassengerDataRequest, each at its passenger's place: once the
// booking is fulfilled, and once an exchange is confirmed (its
// BookingRequest names the new places the same way, and the old places may
// have held data given by a PATCH). So the legacy system holds the names
// and dates of birth the booking holds.

// unsentData returns the PassengerDataRequest items that give the legacy
// booking what its BookingRequest did not carry (the passengers it did not
// name: NameSent "", not refunded), each at its passenger's place, and the
// names they send by passenger id.
func (rec *bookingRecord) unsentData() ([]legacy.PassengerData, map[string]string) {
	var items []legacy.PassengerData
	sent := map[string]string{}
	for i, owner := range rec.placeOwners() {
		pr := &rec.Passengers[owner]
		if pr.NameSent != "" || pr.RefundedBy != "" {
			continue
		}
		d := legacy.PassengerData{Index: i + 1, DateOfBirth: pr.DateOfBirth}
		if name := nameOf(pr.Detail); name != "" {
			d.FirstName, d.LastName = pr.Detail.FirstName, pr.Detail.LastName
			sent[pr.ID] = name
		}
		if d.LastName != "" || d.DateOfBirth != "" {
			items = append(items, d)
		}
	}
	return items, sent
}

// sendUnsentData sends the PassengerDataRequest of unsentData for rec, a
// booking just fulfilled or whose exchange was just confirmed, and returns
// the booking as stored after. The fulfilment or exchange stands whatever
// comes of it: a refusal leaves the passengers' NameSent "" (a PATCH sends
// the name again), a lost answer is settled as a passenger change is.
func (ps *passengers) sendUnsentData(ctx context.Context, send Sender, rec *bookingRecord) *bookingRecord {
	if items, _ := rec.unsentData(); len(items) == 0 {
		return rec
	}
	now := ps.now()
	sent := false
	after, err := ps.bookings.updateBooking(ctx, rec.ID, func(r *bookingRecord) error {
		sent = false
		if r.State != stateFulfilled || r.Legacy == nil || r.Exchange.holds() {
			return errNoChange
		}
		items, names := r.unsentData()
		if len(items) == 0 {
			return errNoChange
		}
		if err := ps.pendPassengerData(ctx, r, items, now, func(p *pendingMessage) { p.NamesSent = names }); err != nil {
			return err
		}
		sent = true
		return nil
	})
	switch {
	case err != nil:
		return rec
	case !sent:
		return after
	}
	after, _ = ps.settlement.deliver(ctx, send, after)
	return after
}

// pendPassengerData makes the PassengerDataRequest that sends items to
// r's legacy booking r's pending message (complete says what its result
// changes), with its intent mark, inside an updateBooking of r: the
// booking is UPDATING until the answer is recorded.
func (ps *passengers) pendPassengerData(ctx context.Context, r *bookingRecord, items []legacy.PassengerData, now time.Time, complete func(*pendingMessage)) error {
	attempt := r.PassengerAttempts + 1
	req := &legacy.PassengerDataRequest{
		Header:     legacy.Header{MessageID: messageID(r.ID, stepPassengers, attempt), SentAt: now.UTC().Truncate(time.Second)},
		BookingRef: r.Legacy.BookingRef,
		Passengers: items,
	}
	pending, err := ps.settlement.newPending(stepPassengers, req, now)
	if err != nil {
		return err
	}
	pending.Revert = r.State
	complete(pending)
	if err := ps.settlement.markIntent(ctx, pending.MessageID, r.ID, now); err != nil {
		return err
	}
	r.PassengerAttempts = attempt
	r.State, r.Pending = stateUpdating, pending
	return nil
}
