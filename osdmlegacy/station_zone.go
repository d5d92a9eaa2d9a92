package osdmlegacy

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// defaultLocation is the zone of a station of a country not listed, when
// Config.Location is not set.
var defaultLocation = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic("osdmlegacy: time zone Europe/Paris: " + err.Error())
	}
	return loc
}()

// stationLocation returns the time zone of a 7-digit UIC station: the
// timetable's, else its country's (the table shared with the forward
// direction and the OSDM sandbox), else fallback.
func stationLocation(tt Timetable, station string, fallback *time.Location) *time.Location {
	if tt != nil {
		if loc := tt.StationLocation(station); loc != nil {
			return loc
		}
	}
	if loc, ok := osdm.StationLocation(station); ok {
		return loc
	}
	return fallback
}
