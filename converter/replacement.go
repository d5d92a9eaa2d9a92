package converter

import (
	"net/http"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// replacement answers an ALTERNATIVE_SYSTEM_PROPOSAL problem with a
// ReplacementProposal: one Alternative per proposal and scope entry
// (one unscoped Alternative for a proposal without scope).
//
//   - ReservationSystem is reservationSystemId (left out unless 1..9999);
//   - Operator is the 4 digits of systemOperatorCode (urn:uic:rics:NNNN or
//     the bare digits); a proposal without them is skipped, as the legacy
//     side cannot use it;
//   - TrainNumber and TravelClass come from the scope entry (a vehicle
//     number a legacy TrainNumber cannot carry leaves the train out);
//   - Priority is the proposal's priority, or its position in the list
//     (1, 2, ...) when the partner gave none.
//
// A proposal problem with no usable proposal is a PARTNER_REJECTED.
func (r *run) replacement(p *osdm.Problem) *Result {
	var alts []legacy.Alternative
	for i, sp := range p.AlternativeSystemProposals {
		op := ricsCode(sp.SystemOperatorCode)
		if op == "" {
			continue
		}
		alt := legacy.Alternative{Operator: op, Priority: i + 1}
		if id := sp.ReservationSystemID; id != nil && *id >= 1 && *id <= 9999 {
			alt.ReservationSystem = *id
		}
		if sp.Priority != nil {
			alt.Priority = min(max(*sp.Priority, 0), 999999999)
		}
		if len(sp.Scope) == 0 {
			alts = append(alts, alt)
			continue
		}
		for _, sc := range sp.Scope {
			a := alt
			if legacy.ValidTrainNumber(sc.VehicleNumber) {
				a.TrainNumber = sc.VehicleNumber
			}
			switch sc.TravelClass {
			case osdm.TravelClassFirst:
				a.TravelClass = legacy.FirstClass
			case osdm.TravelClassSecond:
				a.TravelClass = legacy.SecondClass
			}
			alts = append(alts, a)
		}
		if len(alts) >= legacy.MaxItems {
			alts = alts[:legacy.MaxItems]
			break
		}
	}
	if len(alts) == 0 {
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerRejected, PartnerProblem: plain(p.Code, 200),
			Text: "Partner " + r.c.partner + " cannot sell this train and proposed other reservation systems, but named none by a RICS operator code" + describeProblem(p) + "."})
	}
	return &Result{Reply: &legacy.ReplacementProposal{Header: r.h, Alternatives: alts}, Status: http.StatusOK, Outcome: OutcomeReplacementProposal}
}

// ricsCode returns the 4-digit RICS code of "urn:uic:rics:1185" or "1185", or "".
func ricsCode(s string) string {
	s = strings.TrimPrefix(s, "urn:uic:rics:")
	if len(s) != 4 {
		return ""
	}
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return ""
		}
	}
	return s
}
