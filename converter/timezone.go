package converter

import (
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"

	// The station time zones must load on any machine, including a Caddy
	// in a scratch container without /usr/share/zoneinfo.
	_ "time/tzdata"
)

// stationZones maps the UIC country code (the first two digits of a
// 7-digit UIC station code, UIC leaflet 920-1) to the time zone of that
// country's railway. A legacy DepartureTime is local time at the
// departure station; OSDM wants an instant with its offset, so the zone
// comes from the station's country, or Config.Location for a country not
// listed here.
var stationZones = map[string]string{
	"10": "Europe/Helsinki",   // FI
	"20": "Europe/Moscow",     // RU
	"21": "Europe/Minsk",      // BY
	"22": "Europe/Kyiv",       // UA
	"23": "Europe/Chisinau",   // MD
	"24": "Europe/Vilnius",    // LT
	"25": "Europe/Riga",       // LV
	"26": "Europe/Tallinn",    // EE
	"41": "Europe/Tirane",     // AL
	"51": "Europe/Warsaw",     // PL
	"52": "Europe/Sofia",      // BG
	"53": "Europe/Bucharest",  // RO
	"54": "Europe/Prague",     // CZ
	"55": "Europe/Budapest",   // HU
	"56": "Europe/Bratislava", // SK
	"60": "Europe/Dublin",     // IE
	"62": "Europe/Podgorica",  // ME
	"65": "Europe/Skopje",     // MK
	"70": "Europe/London",     // GB
	"71": "Europe/Madrid",     // ES
	"72": "Europe/Belgrade",   // RS
	"73": "Europe/Athens",     // GR
	"74": "Europe/Stockholm",  // SE
	"75": "Europe/Istanbul",   // TR
	"76": "Europe/Oslo",       // NO
	"78": "Europe/Zagreb",     // HR
	"79": "Europe/Ljubljana",  // SI
	"80": "Europe/Berlin",     // DE
	"81": "Europe/Vienna",     // AT
	"82": "Europe/Luxembourg", // LU
	"83": "Europe/Rome",       // IT
	"84": "Europe/Amsterdam",  // NL
	"85": "Europe/Zurich",     // CH
	"86": "Europe/Copenhagen", // DK
	"87": "Europe/Paris",      // FR
	"88": "Europe/Brussels",   // BE
	"94": "Europe/Lisbon",     // PT
}

// zones holds the loaded stationZones; filled once at start-up, read-only after.
var zones = func() map[string]*time.Location {
	m := make(map[string]*time.Location, len(stationZones))
	for cc, name := range stationZones {
		loc, err := time.LoadLocation(name)
		if err != nil {
			panic(fmt.Sprintf("converter: time zone %s of UIC country %s: %v", name, cc, err))
		}
		m[cc] = loc
	}
	return m
}()

// stationLocation returns the time zone of a 7-digit UIC station.
func (c *Converter) stationLocation(station string) *time.Location {
	if len(station) >= 2 {
		if loc, ok := zones[station[:2]]; ok {
			return loc
		}
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
