package osdmlegacy

import (
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// candidate is a train an offer search asks the legacy system about.
type candidate struct {
	// run holds what is known of the train's run: Train, ServiceDate (the
	// legacy DepartureDate), stations, and from the timetable or a trip
	// specification the times and names (zero or "" when unknown).
	run TrainRun
	// ptr is the request pointer that named the train, "" for a train the
	// timetable found.
	ptr string
}

// clock is the legacy DepartureTime of the candidate, "" when unknown.
func (c *candidate) clock(loc *time.Location) string {
	if c.run.Departure.IsZero() {
		return ""
	}
	return c.run.Departure.In(loc).Format("15:04")
}

// subject names the train in problem texts: "train 9203 on 2026-12-01".
func (c *candidate) subject() string {
	return "train " + c.run.Train + " on " + c.run.ServiceDate
}

// candidates returns the trains of a search (restriction 2): the one of a
// trip specification, the ones a vehicle filter names, or the direct
// trains of the timetable from the asked time on.
func (o *offers) candidates(q *offerRequest) ([]candidate, *osdm.ProblemError) {
	oloc := stationLocation(o.tt, q.origin, o.cfg.Location)
	dloc := stationLocation(o.tt, q.destination, o.cfg.Location)
	base := TrainRun{Origin: q.origin, Destination: q.destination}
	if o.tt != nil {
		base.OriginName, base.DestinationName = o.tt.StationName(q.origin), o.tt.StationName(q.destination)
	}
	if q.spec {
		t := q.named[0]
		run := base
		run.Train, run.Carrier = t.train, t.carrier
		run.Departure = t.departure.in(oloc)
		run.ServiceDate = run.Departure.In(oloc).Format(time.DateOnly)
		if t.arrival != nil {
			run.Arrival = t.arrival.in(dloc)
		}
		if o.tt != nil {
			if tr, ok := o.tt.Run(t.train, run.ServiceDate, q.origin, q.destination); ok && tr.Departure.Equal(run.Departure) {
				run.OriginName, run.DestinationName = tr.OriginName, tr.DestinationName
				if run.Carrier == "" {
					run.Carrier = tr.Carrier
				}
			}
		}
		return []candidate{{run: run, ptr: t.ptr}}, nil
	}
	if len(q.named) > 0 {
		if len(q.named) > o.cfg.MaxTrains {
			return nil, restricted(RestrictKnownTrain, osdm.CodeOfferOutOfBounds, q.named[o.cfg.MaxTrains].ptr,
				"at most "+strconv.Itoa(o.cfg.MaxTrains)+" trains are asked per search, not "+strconv.Itoa(len(q.named)))
		}
		// The day asked: the departure's at the origin, or the arrival's at
		// the destination (a train arriving after midnight is asked on the
		// arrival's date; the legacy system says TRAIN_NOT_FOUND if it is not).
		date := q.at.in(oloc).In(oloc).Format(time.DateOnly)
		if q.arrival {
			date = q.at.in(dloc).In(dloc).Format(time.DateOnly)
		}
		out := make([]candidate, 0, len(q.named))
		for _, t := range q.named {
			run := base
			run.Train, run.ServiceDate = t.train, date
			if o.tt != nil {
				if tr, ok := o.tt.Run(t.train, date, q.origin, q.destination); ok {
					run = tr
				}
			}
			out = append(out, candidate{run: run, ptr: t.ptr})
		}
		return out, nil
	}
	if o.tt == nil {
		return nil, restricted(RestrictKnownTrain, osdm.CodeOfferOutOfBounds, "#/tripSearchCriteria/parameters/dataFilter/vehicleFilter",
			"no timetable is configured: name the train in a vehicle filter (exclude: false) or a trip specification")
	}
	if q.after+q.before == 0 {
		return nil, restricted(RestrictKnownTrain, osdm.CodeOfferOutOfBounds, "#/tripSearchCriteria/parameters",
			"numberOfResultsAfter and numberOfResultsBefore ask for no train")
	}
	var runs []TrainRun
	from := q.at.in(oloc)
	if q.arrival {
		by := q.at.in(dloc)
		runs = o.tt.DirectArriving(q.origin, q.destination, by, o.cfg.Window, q.before+q.after+len(q.excluded))
	} else {
		runs = o.tt.DirectTrains(q.origin, q.destination, from, o.cfg.Window, q.after+len(q.excluded), q.before+len(q.excluded))
		runs = trimAround(runs, from, q.after, q.before, q.excluded)
	}
	out := make([]candidate, 0, len(runs))
	for _, r := range runs {
		if !q.excluded[r.Train] && legacy.ValidTrainNumber(r.Train) {
			out = append(out, candidate{run: r})
		}
	}
	if q.arrival && len(out) > q.after+q.before {
		out = out[len(out)-(q.after+q.before):]
	}
	if len(out) > o.cfg.MaxTrains {
		out = o.keepNearest(out, q.arrival, from)
	}
	if len(out) == 0 {
		p := osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNoResults,
			"the timetable has no direct train from "+q.origin+" to "+q.destination+" within "+o.cfg.Window.String()+" of "+q.at.text)
		return nil, p.WithPointer(q.at.ptr)
	}
	return out, nil
}

// trimAround keeps, of runs in order of departure, the `before` last
// leaving before from and the `after` first leaving at or after it, not
// counting excluded trains.
func trimAround(runs []TrainRun, from time.Time, after, before int, excluded map[string]bool) []TrainRun {
	split := len(runs)
	for i, r := range runs {
		if !r.Departure.Before(from) {
			split = i
			break
		}
	}
	var out []TrainRun
	n := 0
	for i := split - 1; i >= 0 && n < before; i-- {
		if !excluded[runs[i].Train] {
			out = append([]TrainRun{runs[i]}, out...)
			n++
		}
	}
	n = 0
	for i := split; i < len(runs) && n < after; i++ {
		if !excluded[runs[i].Train] {
			out = append(out, runs[i])
			n++
		}
	}
	return out
}

// keepNearest cuts a timetable search to max_trains: the trains nearest
// the asked time, in order of departure.
func (o *offers) keepNearest(out []candidate, arrival bool, at time.Time) []candidate {
	if arrival {
		// The last ones before the arrival asked are the nearest.
		return out[len(out)-o.cfg.MaxTrains:]
	}
	for len(out) > o.cfg.MaxTrains {
		first, last := out[0].run.Departure, out[len(out)-1].run.Departure
		if at.Sub(first) > last.Sub(at) {
			out = out[1:]
		} else {
			out = out[:len(out)-1]
		}
	}
	return out
}
