package osdmlegacy

import (
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// departureTolerance is how long after its timetabled departure a train
// is still sold (the same as osdm_convert's on the legacy side): clocks
// differ, and a train is rarely gone the minute it is due.
const departureTolerance = 5 * time.Minute

// inSaleWindow keeps the candidates that can be sold at now: run on a day
// from today (at the origin station, in its time zone) to today plus
// Config.BookingHorizon, and, when the departure time is known, leaving no
// more than departureTolerance ago. When none is left, the problem says
// why (422 OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS pointing at the time asked)
// and nothing is sent to the legacy system: a past departure is not one
// the legacy system should be asked about, and a date far ahead (year
// 9999) is no sale.
func (o *offers) inSaleWindow(q *offerRequest, cands []candidate, now time.Time) ([]candidate, *osdm.ProblemError) {
	loc := stationLocation(o.tt, q.origin, o.cfg.Location)
	local := now.In(loc)
	y, m, d := local.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, loc)
	last := today.Add(o.cfg.BookingHorizon)
	kept := cands[:0:0]
	var past, beyond *candidate
	for i := range cands {
		c := &cands[i]
		day, err := time.ParseInLocation(time.DateOnly, c.run.ServiceDate, loc)
		switch {
		case err != nil:
			kept = append(kept, *c) // not a date the façade made; the legacy system judges it
		case day.Before(today) || !c.run.Departure.IsZero() && now.Sub(c.run.Departure) > departureTolerance:
			if past == nil {
				past = c
			}
		case day.After(last):
			if beyond == nil {
				beyond = c
			}
		default:
			kept = append(kept, *c)
		}
	}
	if len(kept) > 0 {
		return kept, nil
	}
	ptr := "#/tripSearchCriteria"
	if q.at != nil {
		ptr = q.at.ptr
	}
	where := " (today is " + local.Format(time.DateOnly) + " at origin " + q.origin + ", time zone " + loc.String() + ")"
	if past != nil {
		detail := "the departure on " + past.run.ServiceDate + " is past" + where + "; a train that has left cannot be sold"
		if !past.run.Departure.IsZero() && !past.run.Departure.Before(today) {
			detail = "train " + past.run.Train + " left at " + past.run.Departure.In(loc).Format("15:04") + " today" + where + "; a train that has left cannot be sold"
		}
		return nil, osdm.NewProblem(http.StatusUnprocessableEntity, osdm.CodeOfferOutOfBounds, detail).WithPointer(ptr)
	}
	days := strconv.Itoa(int(o.cfg.BookingHorizon / (24 * time.Hour)))
	return nil, osdm.NewProblem(http.StatusUnprocessableEntity, osdm.CodeOfferOutOfBounds,
		"the departure on "+beyond.run.ServiceDate+" is beyond the booking horizon of "+days+" days: trains are sold up to "+
			last.Format(time.DateOnly)+where).WithPointer(ptr)
}
