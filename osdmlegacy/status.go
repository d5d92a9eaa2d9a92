package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

// Status is what an operator is shown of a provider's bookings
// (opstatus.Source): the work settlement still has to do, and a booking's
// record, with the travellers' names masked.
type Status struct {
	*core
	bookings   *bookings
	journeys   *journeys
	settlement *settlement
}

// Status returns the provider's status reader.
func (f *Facade) Status() Status {
	return Status{core: f.core, bookings: f.bookings, journeys: f.journeys, settlement: f.settlement}
}

// Pending lists the legacy messages sent without a recorded result, the
// bookings whose places are held, and the exchanges held but not yet
// confirmed, from the work lists settlement reads.
func (s Status) Pending(ctx context.Context) ([]opstatus.Pending, error) {
	var out []opstatus.Pending
	var errs []error
	intents, err := s.settlement.listMarks(ctx, kindIntent)
	errs = append(errs, err)
	for msgID, v := range intents {
		var m workMark
		_ = json.Unmarshal(v, &m)
		p := opstatus.Pending{Direction: opstatus.OSDMToLegacy, Partner: s.cfg.Partner, Kind: "intent", Ref: msgID, Since: m.At, Detail: "booking " + m.BookingID}
		if rec, _, err := s.bookings.loadBooking(ctx, m.BookingID); err == nil && rec.Pending != nil && rec.Pending.MessageID == msgID {
			p.NextAttempt, p.Detail = rec.Pending.LeaseUntil, rec.Pending.Step+" of booking "+m.BookingID
		}
		out = append(out, p)
	}
	holds, err := s.settlement.listMarks(ctx, kindHold)
	errs = append(errs, err)
	for id, v := range holds {
		var m workMark
		_ = json.Unmarshal(v, &m)
		rec, _, err := s.bookings.loadBooking(ctx, id)
		if err != nil {
			if !errors.Is(err, errBookingMissing) {
				errs = append(errs, err)
			}
			continue
		}
		switch {
		case rec.State == stateBooking && rec.Pending != nil:
			out = append(out, opstatus.Pending{Direction: opstatus.OSDMToLegacy, Partner: s.cfg.Partner, Kind: "intent",
				Ref: rec.Pending.MessageID, Since: m.At, NextAttempt: rec.Pending.LeaseUntil, Detail: "BookingRequest of booking " + id})
		case rec.State == statePrebooked:
			out = append(out, opstatus.Pending{Direction: opstatus.OSDMToLegacy, Partner: s.cfg.Partner, Kind: "hold",
				Ref: id, Since: rec.CreatedOn, NextAttempt: rec.HoldUntil, Detail: "places held until confirmed or released"})
		}
		if x := rec.Exchange; x != nil && x.holds() && x.State != exchangeConfirmed {
			out = append(out, opstatus.Pending{Direction: opstatus.OSDMToLegacy, Partner: s.cfg.Partner, Kind: "exchange",
				Ref: x.ID, Since: x.CreatedOn, NextAttempt: x.HoldUntil, Detail: "exchange of booking " + id + " " + string(x.State)})
		}
	}
	journeys, err := s.journeysPending(ctx)
	out = append(out, journeys...)
	errs = append(errs, err)
	return out, errors.Join(errs...)
}

// Find returns the booking ref names: its OSDM booking id, the legacy
// BookingRef, or the messageId of one of its legacy messages.
func (s Status) Find(ctx context.Context, ref string) ([]opstatus.Record, error) {
	if isJourneyID(ref) {
		return s.findJourney(ctx, ref)
	}
	id := ref
	if i := strings.IndexByte(ref, '.'); i > 0 && strings.HasPrefix(ref, bookingIDPrefix) {
		id = ref[:i] // a messageId: "<booking id>.<step>[.<attempt>]"
	}
	rec, _, err := s.bookings.loadBooking(ctx, id)
	if errors.Is(err, errBookingMissing) {
		rec, err = s.byLegacyRef(ctx, ref)
	}
	if err != nil || rec == nil {
		return nil, err
	}
	return []opstatus.Record{recordOf(rec)}, nil
}

// byLegacyRef finds the booking whose legacy booking is ref (nil if
// none), reading every booking of the provider.
func (s Status) byLegacyRef(ctx context.Context, ref string) (*bookingRecord, error) {
	var found *bookingRecord
	err := s.store.Scan(ctx, storeKey(s.cfg.Partner, kindBooking, ""), func(_ string, v []byte) error {
		if found != nil || !strings.Contains(string(v), ref) {
			return nil
		}
		var rec bookingRecord
		if json.Unmarshal(v, &rec) == nil && rec.Partner == s.cfg.Partner && rec.Legacy != nil && rec.Legacy.BookingRef == ref {
			found = &rec
		}
		return nil
	})
	return found, err
}

// recordOf is rec as an operator sees it.
func recordOf(rec *bookingRecord) opstatus.Record {
	out := opstatus.Record{Direction: opstatus.OSDMToLegacy, Partner: rec.Partner, State: string(rec.State),
		Refs: map[string][]string{"booking": {rec.ID}}}
	if rec.JourneyID != "" {
		out.Refs["journey"] = []string{rec.JourneyID}
	}
	for _, p := range rec.Passengers {
		if p.Detail != nil {
			out.Passengers = append(out.Passengers, opstatus.MaskName(p.Detail.FirstName+" "+p.Detail.LastName))
		}
	}
	out.Steps = append(out.Steps, opstatus.Step{At: rec.CreatedOn, What: "booking created", Outcome: string(stateBooking)})
	if l := rec.Legacy; l != nil {
		out.Refs["booking_ref"] = []string{l.BookingRef}
		out.Steps = append(out.Steps, opstatus.Step{At: l.RepliedAt, What: "BookingRequest", Outcome: "booked " + l.BookingRef})
	}
	if r := rec.Failure; r != nil {
		out.Steps = append(out.Steps, opstatus.Step{What: "BookingRequest", Outcome: "refused: " + string(r.Code)})
	}
	if x := rec.Exchange; x != nil {
		step := opstatus.Step{At: x.CreatedOn, What: "exchange " + x.ID, Outcome: string(x.State)}
		if x.ConfirmedOn != nil {
			step.At = *x.ConfirmedOn
		}
		out.Steps = append(out.Steps, step)
	}
	if p := rec.Pending; p != nil {
		out.Refs["message"] = append(out.Refs["message"], p.MessageID)
		out.Steps = append(out.Steps, opstatus.Step{At: p.SentAt, What: p.Step + " " + p.MessageID, Outcome: "pending"})
	}
	return out
}

// Interface guard.
var _ opstatus.Source = Status{}
