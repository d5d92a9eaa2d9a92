package osdmlegacy

import (
	"context"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// The BookingRequest of an exchange names the new places as a booking's
// does, up to the first place whose passenger has no name (legacyNames),
// and carries a date of birth only with a name. The passengers' other
// names and dates of birth, which the old legacy booking may have held
// (given by a PATCH), follow once the exchange is confirmed: one
// PassengerDataRequest to the new legacy booking, so that the new places
// carry the data the booking holds.

// exchangeData returns the PassengerDataRequest items that give the new
// legacy booking of a confirmed exchange what its BookingRequest did not
// carry (the passengers it did not name: NameSent ""), each at its
// passenger's place, and the names they send by passenger id.
func (r *BookingRecord) exchangeData() ([]legacy.PassengerData, map[string]string) {
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

// sendExchangeData sends the PassengerDataRequest of exchangeData once
// rec's exchange is confirmed, and returns the booking as stored after.
// The exchange stands whatever comes of it: a refusal leaves the
// passengers' NameSent "" (a PATCH sends the name again), a lost answer
// is settled as a passenger change is.
func (f *Facade) sendExchangeData(ctx context.Context, send Sender, rec *BookingRecord) *BookingRecord {
	if items, _ := rec.exchangeData(); len(items) == 0 {
		return rec
	}
	now := f.now()
	sent := false
	after, err := f.updateBooking(ctx, rec.ID, func(r *BookingRecord) error {
		sent = false
		if r.State != StateFulfilled || r.Exchange == nil || r.Exchange.State != ExchangeConfirmed || r.Legacy == nil {
			return errNoChange
		}
		items, names := r.exchangeData()
		if len(items) == 0 {
			return errNoChange
		}
		attempt := r.PassengerAttempts + 1
		req := &legacy.PassengerDataRequest{
			Header:     legacy.Header{MessageID: messageID(r.ID, StepPassengers, attempt), SentAt: now.UTC().Truncate(time.Second)},
			BookingRef: r.Legacy.BookingRef,
			Passengers: items,
		}
		pending, err := f.newPending(StepPassengers, req, now)
		if err != nil {
			return err
		}
		pending.Revert, pending.NamesSent = r.State, names
		if err := f.markIntent(ctx, pending.MessageID, r.ID, now); err != nil {
			return err
		}
		r.PassengerAttempts = attempt
		r.State, r.Pending = StateUpdating, pending
		sent = true
		return nil
	})
	switch {
	case err != nil:
		return rec
	case !sent:
		return after
	}
	after, _ = f.deliver(ctx, send, after)
	return after
}
