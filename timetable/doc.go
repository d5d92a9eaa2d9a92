// Package timetable reads a railway's timetable from a GTFS static feed
// (a .zip file or a folder) and indexes it for the two questions the
// OSDM -> legacy direction asks: which stops and times a train has on a
// service date (Run), and which direct trains go from one station to
// another around a time (Direct, DirectArriving). Ride checks one named
// train between two stations on the date it leaves the first (the
// legacy DepartureDate). It uses encoding/csv only and imports no Caddy.
//
// # What is read
//
//   - agency.txt: agency_timezone. Every agency must name the same zone
//     (one zone per feed); all times the package gives are in it.
//   - stops.txt: stop_id, the station's UIC code from stop_code (default)
//     or stop_id (Options.StationCode), stop_name, location_type,
//     parent_station. A station (location_type 1) and a stop without a
//     parent carry their own 7-digit code; a stop with a parent station (a
//     platform) is its parent's station, whatever its own code says, and the
//     station's name is used. Stops sharing a code are one station.
//     Entrances, generic nodes and boarding areas (location_type 2, 3, 4)
//     are not stations. stop_timezone is ignored: GTFS times are in the
//     agency's zone anyway.
//   - routes.txt: route_id and route_type (any type: the feed is taken to
//     be the railway's; trips are filtered by train number, not by type).
//   - trips.txt: trip_id, route_id, service_id, and trip_short_name as the
//     train number.
//   - stop_times.txt: trip_id, stop_id, stop_sequence (rows in any order),
//     arrival_time, departure_time, pickup_type, drop_off_type. A trip is
//     not offered from a stop where pickup_type is 1 nor to a stop where
//     drop_off_type is 1.
//   - calendar.txt and calendar_dates.txt: weekly patterns between
//     start_date and end_date, then exceptions (exception_type 1 adds the
//     date, 2 removes it). Either file may be absent, not both.
//
// Columns are found by name in the header, in any order; a UTF-8 byte
// order mark is allowed; unknown columns and files are ignored. The files
// may sit at the zip's root or in its only folder.
//
// # Times
//
// A GTFS time counts from "noon minus 12 hours" of the service date, local
// time, and may pass 24:00 (25:10:00 is 01:10 the next morning). On the
// days the clocks change this base is not midnight (23:00 or 01:00): on
// 29 March 2026 in Europe/Paris, 01:30:00 is 00:30 CET and 09:13:00 is
// 09:13 CEST, and a train running through the change takes the time its
// times say. On 25 October 2026 the base is 01:00 CEST: 01:30:00 is
// 02:30 CEST and 03:30:00 is 03:30 CET. A Run or Leg keeps the service
// date it started on.
//
// An intermediate stop whose arrival and departure are both empty (as
// timepoint=0 allows) gets a time interpolated evenly, by stop count,
// between the timed stops around it (Warnings counts them). A stop with
// only one of the two uses it for both. The first and last stops of a trip
// must have a time.
//
// # What is refused
//
// Load fails with a *FeedError naming the file, the line (the header is
// line 1) and the field for: a required file or column missing; malformed
// CSV; a station code that is not 7 digits; several time zones; an unknown
// time zone; a reference to a stop, route, service or trip that does not
// exist; a time not H:MM:SS or HH:MM:SS (or 168 hours or more); a date
// not YYYYMMDD; a flag not 0/1; a duplicate id or stop_sequence; times
// running backwards along a trip; a calendar spanning more than 100 years.
//
// What is skipped rather than refused, and counted in Warnings: trips whose
// trip_short_name is empty or longer than 5 characters (the Hermes limit
// for a train number; a national feed carries buses and other services
// that the legacy system cannot reserve, and refusing the whole feed for
// them would make it unusable), and trips with fewer than two stops.
//
// # Choices
//
// When several trips share a train number and run on the same date, Run
// gives the first in trips.txt. Run reads the service date as
// serviceDate's year, month and day in serviceDate's own location.
// Direct and DirectArriving search [from-window, from+window] (window 0
// means DefaultWindow, 4h) and return legs in order of departure.
//
// # Memory
//
// Strings are interned; stop times are kept as parallel arrays of int32
// (station, arrival, departure: seconds from noon-12h) and a flag byte;
// each station's departures and arrivals are sorted by time of day so a
// window lookup is a binary search and a short walk per candidate service
// date; the days each service runs are a bitset over the feed's dates.
package timetable
