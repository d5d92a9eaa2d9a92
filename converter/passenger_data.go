package converter

import (
	"context"
	"strconv"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// passengerData answers a PassengerDataRequest: GET the booking for its
// passengers (index i is the i-th traveller: travellersOf), PATCH each passenger
// named with the data given merged into what the partner holds, and answer
// every passenger as now stored. A change the partner refuses (say, a date
// of birth that moves the passenger into another tariff) is an
// INVALID_MESSAGE with the partner's reason, and the passengers changed
// before it in the same message are set back, so the message applies
// whole or not at all.
func (r *run) passengerData(ctx context.Context, m *legacy.PassengerDataRequest) *Result {
	id := m.BookingRef
	if res := r.unsafeRef("BookingRef", id); res != nil {
		return res
	}
	br := new(osdm.BookingResponse)
	if f := r.do(ctx, call{step: StepReadBooking, params: map[string]string{osdm.ParamBookingID: id}, out: br}); f != nil {
		return r.failBooking(f, id)
	}
	if br.Booking == nil {
		return r.unknown(id)
	}
	pax := travellersOf(br.Booking)
	patches := make([]osdm.Passenger, len(m.Passengers))
	for i, p := range m.Passengers {
		if p.Index > len(pax) {
			return r.invalidAbout(id, "Passenger index "+strconv.Itoa(p.Index)+" is not in booking "+id+", which has "+strconv.Itoa(len(pax))+" passenger(s); nothing was changed.")
		}
		patch, why := mergePassenger(pax[p.Index-1], p)
		if why != "" {
			return r.invalidAbout(id, "Passenger "+strconv.Itoa(p.Index)+" of booking "+id+": "+why+"; nothing was changed.")
		}
		patches[i] = patch
	}
	now := append([]osdm.Passenger(nil), pax...)
	for i, p := range m.Passengers {
		pr := new(osdm.PassengerResponse)
		f := r.do(ctx, call{step: StepPassenger, body: &patches[i], out: pr,
			params: map[string]string{osdm.ParamBookingID: id, osdm.ParamPassengerID: pax[p.Index-1].ID}})
		if f == nil && pr.Passenger == nil {
			f = &failure{step: StepPassenger, code: legacy.CodePartnerUnavailable, status: 200, uncertain: true,
				what: r.describeCall(StepPassenger, id) + " answered without the passenger"}
		}
		if f != nil {
			undone := r.restorePassengers(ctx, id, pax, m.Passengers[:i])
			return r.passengerFailed(f, id, p.Index, undone)
		}
		now[p.Index-1] = *pr.Passenger
	}
	reply := &legacy.PassengerDataReply{Header: r.h, BookingRef: id}
	for i, p := range now {
		if i == legacy.MaxItems {
			break
		}
		d := legacy.PassengerData{Index: i + 1, DateOfBirth: p.DateOfBirth}
		if p.Detail != nil {
			d.FirstName, d.LastName = plain(p.Detail.FirstName, 70), plain(p.Detail.LastName, 70)
		}
		if len(d.DateOfBirth) != 10 {
			d.DateOfBirth = ""
		}
		reply.Passengers = append(reply.Passengers, d)
	}
	return ok(reply)
}

// mergePassenger is the PATCH body that sets p's data on the partner's
// passenger old: the partner's id, externalRef and type, the names
// (OSDM wants both in a detail: the one not given is kept) and the date of
// birth given. why says what cannot be sent.
func mergePassenger(old osdm.Passenger, p legacy.PassengerData) (osdm.Passenger, string) {
	out := osdm.Passenger{ID: old.ID, ExternalRef: old.ExternalRef, Type: old.Type, DateOfBirth: p.DateOfBirth}
	if p.FirstName == "" && p.LastName == "" {
		return out, ""
	}
	d := osdm.PersonDetail{FirstName: p.FirstName, LastName: p.LastName}
	if old.Detail != nil {
		if d.FirstName == "" {
			d.FirstName = old.Detail.FirstName
		}
		if d.LastName == "" {
			d.LastName = old.Detail.LastName
		}
	}
	switch {
	case d.LastName == "":
		return out, "the partner holds no last name for this passenger, so lastName must be given with firstName"
	case d.FirstName == "":
		return out, "the partner holds no first name for this passenger, so firstName must be given with lastName"
	}
	out.Detail = &d
	return out, ""
}

// restorePassengers sets the passengers done (changed by this message
// before a refusal) back to their data in old; it reports whether every
// one was, as the partner answers it. A PATCH leaves out what it does not
// set, so a name or date of birth given to a passenger who had none
// cannot be taken back: the partner keeps it, and the passenger is not
// set back.
func (r *run) restorePassengers(ctx context.Context, id string, old []osdm.Passenger, done []legacy.PassengerData) bool {
	gctx, cancel := graceContext(ctx)
	defer cancel()
	all := true
	for _, p := range done {
		o := old[p.Index-1]
		back := osdm.Passenger{ID: o.ID, ExternalRef: o.ExternalRef, Type: o.Type, DateOfBirth: o.DateOfBirth}
		if o.Detail != nil && o.Detail.FirstName != "" && o.Detail.LastName != "" {
			back.Detail = &osdm.PersonDetail{FirstName: o.Detail.FirstName, LastName: o.Detail.LastName}
		}
		pr := new(osdm.PassengerResponse)
		f := r.do(gctx, call{step: StepPassenger, body: &back, out: pr,
			params: map[string]string{osdm.ParamBookingID: id, osdm.ParamPassengerID: o.ID}})
		all = all && f == nil && pr.Passenger != nil && sameData(*pr.Passenger, o)
	}
	return all
}

// sameData reports whether passengers a and b hold the same data a
// PassengerDataRequest sets: names and date of birth.
func sameData(a, b osdm.Passenger) bool {
	names := func(d *osdm.PersonDetail) [2]string {
		if d == nil {
			return [2]string{}
		}
		return [2]string{d.FirstName, d.LastName}
	}
	return a.DateOfBirth == b.DateOfBirth && names(a.Detail) == names(b.Detail)
}

// passengerFailed answers a PATCH of passenger index that failed with f.
// A refusal by the partner (a 4xx other than 401, 403, 404) is the
// message's fault: INVALID_MESSAGE with the partner's reason.
func (r *run) passengerFailed(f *failure, id string, index int, undone bool) *Result {
	after := " Nothing was changed."
	if !undone {
		after = " The passengers before it in the message were changed and could not all be set back; read the booking again (a PassengerDataRequest answers every passenger as stored)."
	}
	if f.status >= 400 && f.status < 500 && f.status != 401 && f.status != 403 && f.status != 404 && f.status != 408 && f.status != 429 {
		return r.negative(&legacy.NegativeReply{Code: legacy.CodeInvalidMessage, BookingRef: id, PartnerProblem: f.partnerProblem(),
			Text: plain("Partner "+r.c.partner+" refused the change of passenger "+strconv.Itoa(index)+" of booking "+id+": "+f.what+"."+after, 1000)})
	}
	res := r.failBooking(f, id)
	n := res.Reply.(*legacy.NegativeReply)
	n.Text = plain(n.Text+after, 1000)
	return res
}
