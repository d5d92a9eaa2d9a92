package osdmlegacy

import (
	"context"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

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
func (r *bookingRecord) unsentData() ([]legacy.PassengerData, map[string]string) {
	var items []legacy.PassengerData
	sent := map[string]string{}
	for i, owner := range r.placeOwners() {
		pr := &r.Passengers[owner]
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
func (p *passengers) pendPassengerData(ctx context.Context, r *bookingRecord, items []legacy.PassengerData, now time.Time, complete func(*pendingMessage)) error {
	attempt := r.PassengerAttempts + 1
	req := &legacy.PassengerDataRequest{
		Header:     legacy.Header{MessageID: messageID(r.ID, stepPassengers, attempt), SentAt: now.UTC().Truncate(time.Second)},
		BookingRef: r.Legacy.BookingRef,
		Passengers: items,
	}
	pending, err := p.settlement.newPending(stepPassengers, req, now)
	if err != nil {
		return err
	}
	pending.Revert = r.State
	complete(pending)
	if err := p.settlement.markIntent(ctx, pending.MessageID, r.ID, now); err != nil {
		return err
	}
	r.PassengerAttempts = attempt
	r.State, r.Pending = stateUpdating, pending
	return nil
}
