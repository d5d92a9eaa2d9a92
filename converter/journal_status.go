package converter

import (
	"cmp"
	"context"
	"slices"

	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

// Pending lists the exchanges settlement still has to finish: those in a
// state it looks at (opstatus.Source).
func (j *Journal) Pending(ctx context.Context) ([]opstatus.Pending, error) {
	var out []opstatus.Pending
	err := j.s.Scan(ctx, j.recordPrefix(), func(_ string, raw []byte) error {
		if st, ok := recordState(raw); ok && !pendingState(st) {
			return nil
		}
		rec, err := decodeRecord(raw)
		if err != nil || rec.Partner != j.c.partner || !pendingState(rec.State) {
			return nil
		}
		p := opstatus.Pending{
			Direction: opstatus.LegacyToOSDM, Partner: j.c.partner, Kind: pendingKind(rec.State),
			Ref: rec.MessageID, Since: rec.Created, Attempts: rec.Attempts,
			Detail: rec.Kind + " " + rec.State,
		}
		if rec.BookingID != "" {
			p.Detail += ", booking " + rec.BookingID
		}
		if rec.ConfirmBy != nil && rec.State == stateBooked {
			p.NextAttempt = *rec.ConfirmBy
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// pendingKind names a pending state for the operator.
func pendingKind(state string) string {
	switch state {
	case stateIntent:
		return "intent"
	case stateBooked:
		return "hold"
	case stateRefundOffered, stateRefundConfirming:
		return "refund"
	case stateExchangePrebooked, stateExchangeConfirming:
		return "exchange"
	}
	return "unsettled"
}

// Find returns the booking that ref names (the partner's booking id,
// which is the legacy BookingRef, or the messageId of any message about
// it) with every message of the journal about it, oldest first; no
// personal data (opstatus.Source).
func (j *Journal) Find(ctx context.Context, ref string) ([]opstatus.Record, error) {
	var recs []*exchangeRecord
	err := j.s.Scan(ctx, j.recordPrefix(), func(_ string, raw []byte) error {
		if rec, err := decodeRecord(raw); err == nil && rec.Partner == j.c.partner {
			recs = append(recs, rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	booking := ref
	for _, r := range recs {
		if r.MessageID == ref && r.BookingID != "" {
			booking = r.BookingID
		}
	}
	about := func(r *exchangeRecord) bool {
		if r.MessageID == ref || r.BookingID == booking {
			return true
		}
		return r.After != nil && (r.After.ExchangeOf == booking || r.After.Original == ref)
	}
	var mine []*exchangeRecord
	for _, r := range recs {
		if about(r) {
			mine = append(mine, r)
		}
	}
	if len(mine) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(mine, func(x, y *exchangeRecord) int { return cmp.Compare(x.Created.UnixNano(), y.Created.UnixNano()) })
	out := opstatus.Record{Direction: opstatus.LegacyToOSDM, Partner: j.c.partner, Refs: map[string][]string{}}
	for _, r := range mine {
		out.Refs["message"] = append(out.Refs["message"], r.MessageID)
		if r.BookingID != "" && !slices.Contains(out.Refs["booking_ref"], r.BookingID) {
			out.Refs["booking_ref"] = append(out.Refs["booking_ref"], r.BookingID)
		}
		outcome := r.State
		if r.Reply != nil && r.State == stateDone {
			outcome = r.Reply.Outcome
		}
		if r.After != nil && r.After.RolledBack != nil {
			outcome += ", rolled back by " + r.After.RolledBack.By
		}
		out.Steps = append(out.Steps, opstatus.Step{At: r.Created, What: r.Kind + " " + r.MessageID, Outcome: outcome})
		out.State = outcome
	}
	return []opstatus.Record{out}, nil
}

// Interface guard.
var _ opstatus.Source = (*Journal)(nil)
