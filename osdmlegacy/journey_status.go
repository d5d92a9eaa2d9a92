package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

// journeysPending lists, for the operator, the journeys whose booking or
// exchange settlement has not finished (their kindJourneyOpen marks).
func (s Status) journeysPending(ctx context.Context) ([]opstatus.Pending, error) {
	marks, err := s.settlement.listMarks(ctx, kindJourneyOpen)
	var out []opstatus.Pending
	for id, v := range marks {
		var m workMark
		_ = json.Unmarshal(v, &m)
		p := opstatus.Pending{Direction: opstatus.OSDMToLegacy, Partner: s.cfg.Partner, Kind: "journey", Ref: id, Since: m.At, Detail: "journey " + id}
		if j, _, err := s.journeys.loadJourney(ctx, id); err == nil {
			p.NextAttempt, p.Detail = j.LeaseUntil, "journey "+id+" "+string(j.State)
			if x := j.Exchange; x != nil && (x.open() || x.Confirming) {
				p.NextAttempt, p.Detail = x.LeaseUntil, "exchange "+x.ID+" of journey "+id+" "+string(x.State)
			}
		}
		out = append(out, p)
	}
	return out, err
}

// findJourney returns journey id and its legs as an operator sees them,
// nil when there is none.
func (s Status) findJourney(ctx context.Context, id string) ([]opstatus.Record, error) {
	j, _, err := s.journeys.loadJourney(ctx, id)
	if errors.Is(err, errJourneyMissing) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rec := opstatus.Record{Direction: opstatus.OSDMToLegacy, Partner: j.Partner, State: string(j.State),
		Refs: map[string][]string{"booking": {j.ID}, "leg": j.Legs}}
	rec.Steps = append(rec.Steps, opstatus.Step{At: j.CreatedOn, What: "journey booking created", Outcome: string(j.State)})
	if fl := j.Failure; fl != nil {
		outcome := "refused"
		if fl.Refusal != nil {
			outcome += ": " + string(fl.Refusal.Code)
		}
		rec.Steps = append(rec.Steps, opstatus.Step{What: "train " + fl.Train, Outcome: outcome})
	}
	if x := j.Exchange; x != nil {
		step := opstatus.Step{At: x.CreatedOn, What: "exchange " + x.ID, Outcome: string(x.State)}
		if x.ConfirmedOn != nil {
			step.At = *x.ConfirmedOn
		}
		rec.Steps = append(rec.Steps, step)
	}
	out := []opstatus.Record{rec}
	ids := append(append([]string(nil), j.Legs...), legsOf(j.Exchange)...)
	for _, lid := range ids {
		leg, _, err := s.bookings.loadBooking(ctx, lid)
		if err != nil {
			continue
		}
		out = append(out, recordOf(leg))
	}
	return out, nil
}

// legsOf is the legs an exchange holds or held that the journey does not
// show.
func legsOf(x *journeyExchange) []string {
	if x == nil {
		return nil
	}
	if x.State == exchangeConfirmed {
		return x.Old
	}
	return x.Legs
}
