package timetable

import (
	"archive/zip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // the agency's zone must load on hosts without a zoneinfo database
	"unicode/utf8"
)

// MaxTrainNumber is the longest train number Hermes carries (characters).
const MaxTrainNumber = 5

// Options says how to read a feed.
type Options struct {
	// StationCode says where a stop's 7-digit UIC code is: "stop_code"
	// (default) or "stop_id".
	StationCode string
}

// Load reads a GTFS static feed from a .zip file or a folder.
func Load(path string, opts Options) (*Timetable, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("gtfs: %w", err)
	}
	if fi.IsDir() {
		return LoadFS(os.DirFS(path), opts)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("gtfs: %s: not a zip file nor a folder: %w", path, err)
	}
	defer zr.Close()
	return LoadFS(&zr.Reader, opts)
}

// LoadFS reads a GTFS static feed from a file system (a zip.Reader,
// os.DirFS, fstest.MapFS). The files may be at its root or in the one
// folder that holds an agency.txt (a zip made from a folder).
func LoadFS(fsys fs.FS, opts Options) (*Timetable, error) {
	switch opts.StationCode {
	case "":
		opts.StationCode = "stop_code"
	case "stop_code", "stop_id":
	default:
		return nil, fmt.Errorf("gtfs: station code %q: want stop_code or stop_id", opts.StationCode)
	}
	if _, err := fs.Stat(fsys, "agency.txt"); errors.Is(err, fs.ErrNotExist) {
		// A zip made from a folder: the one folder that holds agency.txt
		// (beside, say, __MACOSX/).
		var found []string
		ents, _ := fs.ReadDir(fsys, ".")
		for _, e := range ents {
			if _, err := fs.Stat(fsys, e.Name()+"/agency.txt"); e.IsDir() && err == nil {
				found = append(found, e.Name())
			}
		}
		if len(found) == 1 {
			if sub, err := fs.Sub(fsys, found[0]); err == nil {
				fsys = sub
			}
		}
	}
	l := &loader{fsys: fsys, opts: opts, t: &Timetable{}, strs: map[string]string{}}
	for _, step := range []func() error{l.agency, l.stops, l.routes, l.calendar, l.trips, l.stopTimes, l.transfers} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	l.index()
	return l.t, nil
}

type loader struct {
	fsys fs.FS
	opts Options
	t    *Timetable
	strs map[string]string

	stopIdx  map[string]int32 // stop_id -> station, -1 for entrances and the like
	routeIDs map[string]struct{}
	services map[string]int32
	tripIdx  map[string]int32 // trip_id -> trip, -1 when skipped

	skippedTrain int
	firstSkipped string
	skippedShort int
	interpolated int
}

// intern keeps one copy of each string (and never a substring of a whole
// CSV line, which would keep the line alive).
func (l *loader) intern(s string) string {
	if v, ok := l.strs[s]; ok {
		return v
	}
	s = strings.Clone(s)
	l.strs[s] = s
	return s
}

func (l *loader) agency() error {
	tb, err := openTable(l.fsys, "agency.txt", false)
	if err != nil {
		return err
	}
	defer tb.close()
	tzc := tb.col("agency_timezone")
	var first string
	var firstLine int
	for tb.next() {
		tz := tb.get(tzc)
		if tz == "" {
			return tb.errf(tzc, "empty: every agency needs its time zone")
		}
		if first == "" {
			loc, err := time.LoadLocation(tz)
			if err != nil {
				return tb.errf(tzc, "%q is not a known time zone", tz)
			}
			first, firstLine, l.t.loc = tz, tb.line, loc
			continue
		}
		if tz != first {
			return tb.errf(tzc, "%s differs from %s on line %d: a feed must have one time zone", tz, first, firstLine)
		}
	}
	if err := tb.err(); err != nil {
		return err
	}
	if l.t.loc == nil {
		return feedErr("agency.txt", 0, "", "no agency")
	}
	return nil
}

// isUIC says whether s is a 7-digit UIC station code.
func isUIC(s string) bool {
	if len(s) != 7 {
		return false
	}
	_, ok := digits(s)
	return ok
}

// stops reads stops.txt. A station (location_type 1) or a stop without a
// parent has its own code; a stop with a parent station (a platform) is
// the parent's station. Entrances, generic nodes and boarding areas
// (location_type 2, 3, 4) are not stations.
func (l *loader) stops() error {
	tb, err := openTable(l.fsys, "stops.txt", false)
	if err != nil {
		return err
	}
	defer tb.close()
	idc, codec := tb.col("stop_id"), tb.col(l.opts.StationCode)
	namec := tb.optCol("stop_name")
	typec := tb.optCol("location_type")
	parc := tb.optCol("parent_station")
	type row struct {
		id, code, name, parent string
		typ, line              int
	}
	var rows []row
	byID := map[string]int{}
	for tb.next() {
		id, err := uniqueID(tb, idc, byID)
		if err != nil {
			return err
		}
		r := row{id: strings.Clone(id), code: strings.Clone(tb.get(codec)), name: strings.Clone(tb.get(namec)), parent: strings.Clone(tb.get(parc)), line: tb.line}
		if s := tb.get(typec); s != "" {
			r.typ, err = strconv.Atoi(s)
			if err != nil || r.typ < 0 || r.typ > 4 {
				return tb.errf(typec, "%q is not a location type 0..4", s)
			}
		}
		if r.typ <= 1 && r.parent == "" && !isUIC(r.code) {
			return tb.errf(codec, "%q is not a 7-digit UIC station code", r.code)
		}
		byID[r.id] = len(rows)
		rows = append(rows, r)
	}
	if err := tb.err(); err != nil {
		return err
	}
	l.t.stopRows = len(rows)
	l.t.byCode = map[string]int32{}
	l.stopIdx = make(map[string]int32, len(rows))
	addStation := func(code, name string) int32 {
		if s, ok := l.t.byCode[code]; ok {
			if l.t.stations[s].name == "" {
				l.t.stations[s].name = l.intern(name)
			}
			return s
		}
		s := int32(len(l.t.stations))
		l.t.stations = append(l.t.stations, station{code: l.intern(code), name: l.intern(name)})
		l.t.byCode[l.t.stations[s].code] = s
		return s
	}
	// Stations and stops without parents first, so platforms find them.
	for _, r := range rows {
		if r.typ <= 1 && r.parent == "" {
			l.stopIdx[r.id] = addStation(r.code, r.name)
		}
	}
	for _, r := range rows {
		if r.parent == "" {
			if r.typ > 1 {
				l.stopIdx[r.id] = -1
			}
			continue
		}
		if r.typ > 1 {
			l.stopIdx[r.id] = -1
			continue
		}
		p, ok := byID[r.parent]
		if !ok {
			return feedErr("stops.txt", r.line, "parent_station", "%q is no stop_id of this file", r.parent)
		}
		pr := rows[p]
		if pr.typ != 1 {
			return feedErr("stops.txt", r.line, "parent_station", "%q is not a station (location_type 1)", r.parent)
		}
		if r.typ == 1 {
			return feedErr("stops.txt", r.line, "parent_station", "a station (location_type 1) cannot have a parent station")
		}
		l.stopIdx[r.id] = l.stopIdx[pr.id]
	}
	return nil
}

func (l *loader) routes() error {
	tb, err := openTable(l.fsys, "routes.txt", false)
	if err != nil {
		return err
	}
	defer tb.close()
	idc, typc := tb.col("route_id"), tb.col("route_type")
	l.routeIDs = map[string]struct{}{}
	for tb.next() {
		id := tb.get(idc)
		if id == "" {
			return tb.errf(idc, "empty")
		}
		if _, err := strconv.Atoi(tb.get(typc)); err != nil {
			return tb.errf(typc, "%q is not a route type (an integer)", tb.get(typc))
		}
		if _, dup := l.routeIDs[id]; dup {
			return tb.errf(idc, "%q appears twice", id)
		}
		l.routeIDs[strings.Clone(id)] = struct{}{}
	}
	return tb.err()
}

var weekdays = [7]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// calendar reads calendar.txt and calendar_dates.txt (at least one of
// them) into one bitset per service over the feed's date range.
func (l *loader) calendar() error {
	type week struct {
		service    int32
		days       [7]bool
		start, end day
	}
	type exception struct {
		service int32
		d       day
		add     bool
	}
	var weeks []week
	var excs []exception
	l.services = map[string]int32{}
	service := func(id string) int32 {
		if s, ok := l.services[id]; ok {
			return s
		}
		s := int32(len(l.services))
		l.services[strings.Clone(id)] = s
		return s
	}
	first, last := day(1<<31-1), day(-1<<31)
	span := func(d day) {
		first, last = min(first, d), max(last, d)
	}
	tb, err := openTable(l.fsys, "calendar.txt", true)
	if err != nil {
		return err
	}
	hasCal := tb != nil
	if tb != nil {
		defer tb.close()
		idc := tb.col("service_id")
		var dayc [7]int
		for i, n := range weekdays {
			dayc[i] = tb.col(n)
		}
		startc, endc := tb.col("start_date"), tb.col("end_date")
		seen := map[string]bool{}
		for tb.next() {
			id, err := uniqueID(tb, idc, seen)
			if err != nil {
				return err
			}
			seen[strings.Clone(id)] = true
			w := week{service: service(id)}
			for i, c := range dayc {
				switch tb.get(c) {
				case "1":
					w.days[i] = true
				case "0":
				default:
					return tb.errf(c, "%q: want 0 or 1", tb.get(c))
				}
			}
			if w.start, err = parseGTFSDate(tb.get(startc)); err != nil {
				return tb.errf(startc, "%v", err)
			}
			if w.end, err = parseGTFSDate(tb.get(endc)); err != nil {
				return tb.errf(endc, "%v", err)
			}
			if w.end < w.start {
				return tb.errf(endc, "%s is before start_date", tb.get(endc))
			}
			span(w.start)
			span(w.end)
			weeks = append(weeks, w)
		}
		if err := tb.err(); err != nil {
			return err
		}
	}
	tb2, err := openTable(l.fsys, "calendar_dates.txt", true)
	if err != nil {
		return err
	}
	if tb2 == nil && !hasCal {
		return feedErr("calendar.txt", 0, "", "file missing from the feed, and so is calendar_dates.txt: one of them is required")
	}
	if tb2 != nil {
		tb := tb2
		defer tb.close()
		idc, datec, typc := tb.col("service_id"), tb.col("date"), tb.col("exception_type")
		for tb.next() {
			id := tb.get(idc)
			if id == "" {
				return tb.errf(idc, "empty")
			}
			e := exception{service: service(id)}
			if e.d, err = parseGTFSDate(tb.get(datec)); err != nil {
				return tb.errf(datec, "%v", err)
			}
			switch tb.get(typc) {
			case "1":
				e.add = true
			case "2":
			default:
				return tb.errf(typc, "%q: want 1 (added) or 2 (removed)", tb.get(typc))
			}
			span(e.d)
			excs = append(excs, e)
		}
		if err := tb.err(); err != nil {
			return err
		}
	}
	if len(weeks) == 0 && len(excs) == 0 {
		first, last = 0, -1
	}
	if int64(last)-int64(first) >= maxCalendarDays {
		return feedErr("calendar.txt", 0, "", "the calendar spans %d days, more than %d", int64(last)-int64(first)+1, maxCalendarDays)
	}
	c := newCalendar(first, last, len(l.services))
	for _, w := range weeks {
		for d := w.start; d <= w.end; d++ {
			if w.days[((int(d)%7)+7+4)%7] { // 1970-01-01 was a Thursday
				c.set(w.service, d, true)
			}
		}
	}
	for _, e := range excs {
		c.set(e.service, e.d, e.add)
	}
	l.t.cal = c
	return nil
}

func (l *loader) trips() error {
	tb, err := openTable(l.fsys, "trips.txt", false)
	if err != nil {
		return err
	}
	defer tb.close()
	routec, servc := tb.col("route_id"), tb.col("service_id")
	idc, namec := tb.col("trip_id"), tb.col("trip_short_name")
	l.tripIdx = map[string]int32{}
	l.t.byTrain = map[string][]int32{}
	for tb.next() {
		id, err := uniqueID(tb, idc, l.tripIdx)
		if err != nil {
			return err
		}
		if _, ok := l.routeIDs[tb.get(routec)]; !ok {
			return tb.errf(routec, "%q is no route_id of routes.txt", tb.get(routec))
		}
		svc, ok := l.services[tb.get(servc)]
		if !ok {
			return tb.errf(servc, "%q is no service_id of calendar.txt or calendar_dates.txt", tb.get(servc))
		}
		id = strings.Clone(id)
		name := tb.get(namec)
		if n := utf8.RuneCountInString(name); n < 1 || n > MaxTrainNumber {
			if l.skippedTrain == 0 {
				l.firstSkipped = fmt.Sprintf("line %d %q", tb.line, name)
			}
			l.skippedTrain++
			l.tripIdx[id] = -1
			continue
		}
		ti := int32(len(l.t.trips))
		l.t.trips = append(l.t.trips, trip{train: l.intern(name), id: id, route: l.intern(tb.get(routec)), service: svc})
		l.tripIdx[id] = ti
	}
	if err := tb.err(); err != nil {
		return err
	}
	if l.skippedTrain > 0 {
		l.t.warnings = append(l.t.warnings, fmt.Sprintf("trips.txt: %d trips skipped: their trip_short_name (the train number) is empty or longer than %d characters (the first: %s)", l.skippedTrain, MaxTrainNumber, l.firstSkipped))
	}
	return nil
}
