package osdm

import (
	"fmt"
	"time"

	// The station time zones must load on any machine, including a Caddy
	// in a scratch container without /usr/share/zoneinfo.
	_ "time/tzdata"
)

// stationZones maps the UIC country code (the first two digits of a
// 7-digit UIC station code, UIC leaflet 920-1) to the time zone of that
// country's railway. A legacy DepartureTime, and an OSDM departureTime
// sent without an offset (the spec asks for "the local date time of the
// stop"), are local time at the station.
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

// stationLocations holds the loaded stationZones; filled once at
// start-up, read-only after.
var stationLocations = func() map[string]*time.Location {
	m := make(map[string]*time.Location, len(stationZones))
	for cc, name := range stationZones {
		loc, err := time.LoadLocation(name)
		if err != nil {
			panic(fmt.Sprintf("osdm: time zone %s of UIC country %s: %v", name, cc, err))
		}
		m[cc] = loc
	}
	return m
}()

// StationLocation returns the time zone of a UIC station, given as its 7
// digits or as "urn:uic:stn:" and the 7 digits, from the country code of
// its first two digits. ok is false for a country not in the table.
func StationLocation(station string) (loc *time.Location, ok bool) {
	if len(station) > len(uicStationPrefix) && station[:len(uicStationPrefix)] == uicStationPrefix {
		station = station[len(uicStationPrefix):]
	}
	if len(station) < 2 {
		return nil, false
	}
	loc, ok = stationLocations[station[:2]]
	return loc, ok
}

// uicStationPrefix starts an OSDM UIC station code.
const uicStationPrefix = "urn:uic:stn:"
