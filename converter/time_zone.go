package converter

import (
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// stationLocation returns the time zone of a 7-digit UIC station: that of
// its country (osdm.StationLocation, UIC leaflet 920-1), or
// Config.Location for a country the table does not list.
func (c *Converter) stationLocation(station string) *time.Location {
	if loc, ok := osdm.StationLocation(station); ok {
		return loc
	}
	return c.location
}

// departureTime is the instant a legacy journey departs: DepartureDate at
// DepartureTime (00:00 when absent, meaning "from the start of the day")
// in the departure station's zone. A time skipped by a daylight-saving
// change moves forward by the change, as time.Date does.
func (c *Converter) departureTime(j legacy.Journey) (time.Time, error) {
	d, err := time.Parse(time.DateOnly, j.DepartureDate)
	if err != nil {
		return time.Time{}, fmt.Errorf("DepartureDate %q is not a date", j.DepartureDate)
	}
	var clock time.Time
	if j.DepartureTime != "" {
		if clock, err = time.Parse("15:04", j.DepartureTime); err != nil {
			return time.Time{}, fmt.Errorf("DepartureTime %q is not HH:MM", j.DepartureTime)
		}
	}
	return time.Date(d.Year(), d.Month(), d.Day(), clock.Hour(), clock.Minute(), 0, 0, c.stationLocation(j.From)), nil
}

// localClock is t as HH:MM in the zone of station, for a reply's Journey.
func (c *Converter) localClock(t time.Time, station string) string {
	if t.IsZero() {
		return ""
	}
	return t.In(c.stationLocation(station)).Format("15:04")
}
