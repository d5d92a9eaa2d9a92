// Package timetable reads a railway's timetable from a GTFS static feed
// (a .zip file or a folder) and indexes it for the questions the
// OSDM -> legacy direction asks: which stops and times a train has on a
// service date (Run), which direct trains go from one station to another
// around a time (Direct, DirectArriving), and which journeys, direct or
// with changes of train, do (Plan). Ride checks one named train between
// two stations on the date it leaves the first (the legacy
// DepartureDate); ChangeOK checks a change between two such rides. It
// uses encoding/csv only and imports no Caddy.
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
//   - transfers.txt (optional): from_stop_id, to_stop_id, transfer_type,
//     min_transfer_time, and from_trip_id, to_trip_id, from_route_id,
//     to_route_id. A row whose two stops are one station sets the least
//     time to change trains there (type 2: min_transfer_time seconds; 1:
//     on arrival), or forbids it (3); naming trips or routes, only for
//     those (a trip pair beats a trip and route, which beats a route pair,
//     then one trip, one route, the station). Several rows for one change:
//     the longest time, and a forbidding row wins. Types 0, 4 and 5 change
//     nothing; rows between two stations (walks) are counted in Warnings
//     and not used.
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
// running backwards along a trip; a calendar spanning more than 100 years;
// in transfers.txt, a transfer_type not 0..5, a type 2 without a
// min_transfer_time of 0..86400 seconds, a missing stop, an unknown stop,
// trip or route.
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
// # Journeys with changes
//
// Plan answers a Query (origin, destination, a time and a window, the most
// changes, the default change time, the most journeys) with the journeys
// no other dominates (leaving no earlier, arriving no later, with no more
// changes), ordered by arrival, changes, departure. A change is at a
// station both trains stop at (alighting and boarding allowed), never at
// the origin, and takes the time transfers.txt gives (else the query's
// MinTransfer). The search is a range RAPTOR over the trips grouped into
// routes (same stops and flags, no overtaking; built on the first Plan);
// it respects calendars and times past midnight like Run, and searches no
// journey longer than MaxJourney.
//
// # Memory
//
// Strings are interned; stop times are kept as parallel arrays of int32
// (station, arrival, departure: seconds from noon-12h) and a flag byte;
// each station's departures and arrivals are sorted by time of day so a
// window lookup is a binary search and a short walk per candidate service
// date; the days each service runs are a bitset over the feed's dates.
package timetable
