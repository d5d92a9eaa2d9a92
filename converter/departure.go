package converter

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// DepartureTolerance is how long after its departure time a train may
// still be asked for or booked: a clerk selling a seat on a train that is
// just leaving (late, or boarding still open) is not refused, a train that
// left more than this ago is. A journey without a DepartureTime ("from the
// start of the day") is past only when its date is before today.
const DepartureTolerance = 5 * time.Minute

// pastDeparture says why journey j cannot be sold any more, or "" when it
// can: its DepartureDate is before today at the departure station (in that
// station's time zone), or it is today and its DepartureTime is more than
// DepartureTolerance ago. A date or time that does not parse is reported
// too.
func (c *Converter) pastDeparture(j legacy.Journey) string {
	dep, err := c.departureTime(j)
	if err != nil {
		return err.Error()
	}
	loc := c.stationLocation(j.From)
	now := c.now().In(loc)
	y, m, d := now.Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if dep.Before(today) {
		return "DepartureDate " + j.DepartureDate + " is before today (" + now.Format(time.DateOnly) + " at departure station " + j.From +
			", time zone " + loc.String() + "); a train that has left cannot be sold"
	}
	if j.DepartureTime != "" && now.Sub(dep) > DepartureTolerance {
		return "the train left at " + j.DepartureTime + " today (it is " + now.Format("15:04") + " at departure station " + j.From +
			", time zone " + loc.String() + "); a departure more than " + DepartureTolerance.String() + " ago cannot be sold"
	}
	return ""
}
