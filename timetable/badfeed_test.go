package timetable

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// goodFeed is testdata/feed in memory, for bad feeds to alter one file of.
func goodFeed(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	ents, err := os.ReadDir("testdata/feed")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata/feed", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = &fstest.MapFile{Data: b}
	}
	return m
}

func TestBadFeeds(t *testing.T) {
	const (
		agencyHdr = "agency_id,agency_name,agency_url,agency_timezone\n"
		stopsHdr  = "stop_id,stop_name,location_type,parent_station,stop_code\n"
		tripsHdr  = "route_id,service_id,trip_id,trip_short_name\n"
		stHdr     = "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
		calHdr    = "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n"
		cdHdr     = "service_id,date,exception_type\n"
	)
	stops := stopsHdr + "PNO,Paris Nord,1,,8727100\nPNO:1,voie 1,0,PNO,\nLIL,Lille,,,8722326\nBXL,Bruxelles,,,8814001\nAMS,Amsterdam,,,8400058\nPNO:E,entrée,2,PNO,\n"
	cases := []struct {
		name    string
		files   map[string]string // replaced ("" removes the file)
		file    string
		line    int
		field   string
		msgPart string
	}{
		{"no agency.txt", map[string]string{"agency.txt": ""}, "agency.txt", 0, "", "missing"},
		{"no stops.txt", map[string]string{"stops.txt": ""}, "stops.txt", 0, "", "missing"},
		{"no calendar at all", map[string]string{"calendar.txt": "", "calendar_dates.txt": ""}, "calendar.txt", 0, "", "calendar_dates.txt"},
		{"no routes.txt", map[string]string{"routes.txt": ""}, "routes.txt", 0, "", "missing"},
		{"empty file", map[string]string{"trips.txt": "\ufeff"}, "trips.txt", 1, "", "empty file"},
		{"header only, no agency", map[string]string{"agency.txt": agencyHdr}, "agency.txt", 0, "", "no agency"},
		{"header row empty", map[string]string{"routes.txt": "\n"}, "routes.txt", 1, "", "empty file"},
		{"missing timezone column", map[string]string{"agency.txt": "agency_id,agency_name\nA,B\n"}, "agency.txt", 1, "agency_timezone", "required column"},
		{"empty timezone", map[string]string{"agency.txt": agencyHdr + "A,B,http://a,\n"}, "agency.txt", 2, "agency_timezone", "empty"},
		{"unknown timezone", map[string]string{"agency.txt": agencyHdr + "A,B,http://a,Europe/Atlantis\n"}, "agency.txt", 2, "agency_timezone", "Europe/Atlantis"},
		{"two time zones", map[string]string{"agency.txt": agencyHdr + "A,B,http://a,Europe/Paris\nC,D,http://c,Europe/London\n"}, "agency.txt", 3, "agency_timezone", "one time zone"},
		{"duplicate column", map[string]string{"routes.txt": "route_id,route_type,route_id\nR,2,R\n"}, "routes.txt", 1, "route_id", "twice"},
		{"bad quotes", map[string]string{"routes.txt": "route_id,route_type\nR-ES,2\n\"R\"x,2\n"}, "routes.txt", 3, "", "malformed CSV"},
		{"short row", map[string]string{"routes.txt": "route_id,route_type\nR-ES\n"}, "routes.txt", 2, "route_type", "fields"},
		{"route type not a number", map[string]string{"routes.txt": "route_id,route_type\nR-ES,rail\n"}, "routes.txt", 2, "route_type", "rail"},
		{"stop code 6 digits", map[string]string{"stops.txt": strings.Replace(stops, "8722326", "872232", 1)}, "stops.txt", 4, "stop_code", "872232"},
		{"stop code letters", map[string]string{"stops.txt": strings.Replace(stops, "8814001", "88140A1", 1)}, "stops.txt", 5, "stop_code", "7-digit"},
		{"station without code", map[string]string{"stops.txt": strings.Replace(stops, ",8727100", ",", 1)}, "stops.txt", 2, "stop_code", "7-digit"},
		{"no stop_code column", map[string]string{"stops.txt": "stop_id,stop_name\nX,Y\n"}, "stops.txt", 1, "stop_code", "required column"},
		{"unknown parent", map[string]string{"stops.txt": strings.Replace(stops, "0,PNO,", "0,PNX,", 1)}, "stops.txt", 3, "parent_station", "PNX"},
		{"parent not a station", map[string]string{"stops.txt": stops + "Q,q,0,LIL,\n"}, "stops.txt", 8, "parent_station", "location_type 1"},
		{"location type 7", map[string]string{"stops.txt": strings.Replace(stops, "LIL,Lille,,", "LIL,Lille,7,", 1)}, "stops.txt", 4, "location_type", "0..4"},
		{"duplicate stop", map[string]string{"stops.txt": stops + "LIL,Lille,,,8722326\n"}, "stops.txt", 8, "stop_id", "twice"},
		{"calendar flag 2", map[string]string{"calendar.txt": calHdr + "WD,1,1,1,1,2,0,0,20260301,20260430\n"}, "calendar.txt", 2, "friday", "0 or 1"},
		{"calendar no sunday column", map[string]string{"calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,start_date,end_date\n"}, "calendar.txt", 1, "sunday", "required column"},
		{"calendar bad date", map[string]string{"calendar.txt": calHdr + "WD,1,1,1,1,1,0,0,2026-03-01,20260430\n"}, "calendar.txt", 2, "start_date", "YYYYMMDD"},
		{"calendar 31 April", map[string]string{"calendar.txt": calHdr + "WD,1,1,1,1,1,0,0,20260301,20260431\n"}, "calendar.txt", 2, "end_date", "not a date"},
		{"calendar end before start", map[string]string{"calendar.txt": calHdr + "WD,1,1,1,1,1,0,0,20260301,20260201\n"}, "calendar.txt", 2, "end_date", "before start_date"},
		{"calendar duplicate service", map[string]string{"calendar.txt": calHdr + "WD,1,1,1,1,1,0,0,20260301,20260430\nWD,1,1,1,1,1,0,0,20260301,20260430\n"}, "calendar.txt", 3, "service_id", "twice"},
		{"exception type 3", map[string]string{"calendar_dates.txt": cdHdr + "WD,20260406,3\n"}, "calendar_dates.txt", 2, "exception_type", "1 (added) or 2 (removed)"},
		{"exception bad date", map[string]string{"calendar_dates.txt": cdHdr + "WD,20260230,1\n"}, "calendar_dates.txt", 2, "date", "not a date"},
		{"calendar of 200 years", map[string]string{"calendar_dates.txt": cdHdr + "WD,19000101,1\nWD,21000101,1\n"}, "calendar.txt", 0, "", "spans"},
		{"trip unknown route", map[string]string{"trips.txt": tripsHdr + "R-X,WD,T1,9301\n"}, "trips.txt", 2, "route_id", "R-X"},
		{"trip unknown service", map[string]string{"trips.txt": tripsHdr + "R-ES,SUNDAYS,T1,9301\n"}, "trips.txt", 2, "service_id", "SUNDAYS"},
		{"trip duplicate id", map[string]string{"trips.txt": tripsHdr + "R-ES,WD,T1,9301\nR-ES,WD,T1,9302\n"}, "trips.txt", 3, "trip_id", "twice"},
		{"no trip_short_name column", map[string]string{"trips.txt": "route_id,service_id,trip_id\nR-ES,WD,T1\n"}, "trips.txt", 1, "trip_short_name", "required column"},
		{"stop time unknown trip", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:16:00,PNO:1,1\nTX,07:16:00,07:16:00,PNO:1,1\n"}, "stop_times.txt", 3, "trip_id", "TX"},
		{"stop time unknown stop", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:16:00,NOPE,1\n"}, "stop_times.txt", 2, "stop_id", "NOPE"},
		{"stop time at an entrance", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:16:00,PNO:E,1\n"}, "stop_times.txt", 2, "stop_id", "entrance"},
		{"time 7:5:00", map[string]string{"stop_times.txt": stHdr + "T1,7:5:00,07:16:00,PNO:1,1\n"}, "stop_times.txt", 2, "arrival_time", "HH:MM:SS"},
		{"time 07:61:00", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:61:00,PNO:1,1\n"}, "stop_times.txt", 2, "departure_time", "00..59"},
		{"time 200 hours", map[string]string{"stop_times.txt": stHdr + "T1,200:00:00,200:00:00,PNO:1,1\n"}, "stop_times.txt", 2, "arrival_time", "hours"},
		{"sequence negative", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:16:00,PNO:1,-1\n"}, "stop_times.txt", 2, "stop_sequence", "non-negative"},
		{"sequence twice", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:16:00,PNO:1,1\nT1,08:16:00,08:16:00,LIL,1\n"}, "stop_times.txt", 3, "stop_sequence", "twice"},
		{"pickup type 5", map[string]string{"stop_times.txt": "trip_id,arrival_time,departure_time,stop_id,stop_sequence,pickup_type\nT1,07:16:00,07:16:00,PNO:1,1,5\n"}, "stop_times.txt", 2, "pickup_type", "want 0, 1, 2 or 3"},
		{"first stop without time", map[string]string{"stop_times.txt": stHdr + "T1,,,PNO:1,1\nT1,08:16:00,08:16:00,LIL,2\n"}, "stop_times.txt", 2, "arrival_time", "first or last"},
		{"last stop without time", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:16:00,PNO:1,1\nT1,,,LIL,2\n"}, "stop_times.txt", 3, "arrival_time", "first or last"},
		{"departure before arrival", map[string]string{"stop_times.txt": stHdr + "T1,07:16:00,07:10:00,PNO:1,1\nT1,08:16:00,08:16:00,LIL,2\n"}, "stop_times.txt", 2, "departure_time", "before the arrival"},
		{"time runs backwards", map[string]string{"stop_times.txt": stHdr + "T1,08:16:00,08:16:00,LIL,2\nT1,09:16:00,09:16:00,PNO:1,1\n"}, "stop_times.txt", 2, "arrival_time", "previous stop (line 3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fsys := goodFeed(t)
			for name, body := range c.files {
				if body == "" {
					delete(fsys, name)
				} else {
					fsys[name] = &fstest.MapFile{Data: []byte(body)}
				}
			}
			_, err := LoadFS(fsys, Options{})
			var fe *FeedError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FeedError", err)
			}
			if fe.File != c.file || fe.Line != c.line || fe.Field != c.field || !strings.Contains(fe.Msg, c.msgPart) {
				t.Errorf("got %q (file %q line %d field %q), want file %q line %d field %q and %q in the message",
					err, fe.File, fe.Line, fe.Field, c.file, c.line, c.field, c.msgPart)
			}
		})
	}
}

// TestSkippedTrips: train numbers Hermes cannot carry are skipped and
// counted, not refused.
func TestSkippedTrips(t *testing.T) {
	fsys := goodFeed(t)
	fsys["trips.txt"] = &fstest.MapFile{Data: []byte("route_id,service_id,trip_id,trip_short_name\nR-ES,WD,T1,9301\nR-ES,WD,T2,\nR-ES,WD,T3,123456\nR-ES,WD,T4,ÉÉÉÉÉ\n")}
	fsys["stop_times.txt"] = &fstest.MapFile{Data: []byte("trip_id,arrival_time,departure_time,stop_id,stop_sequence\n" +
		"T1,07:16:00,07:16:00,PNO:1,1\nT1,08:16:00,08:16:00,LIL,2\nT2,07:16:00,07:16:00,PNO:1,1\nT2,08:16:00,08:16:00,LIL,2\n" +
		"T3,07:16:00,07:16:00,PNO:1,1\nT3,08:16:00,08:16:00,LIL,2\nT4,07:16:00,07:16:00,PNO:1,1\nT4,08:16:00,08:16:00,LIL,2\n")}
	tt, err := LoadFS(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, trips, st := tt.Stats(); trips != 2 || st != 4 {
		t.Errorf("trips %d stop times %d, want 2 and 4 (9301 and the 5-letter ÉÉÉÉÉ)", trips, st)
	}
	w := tt.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "2 trips skipped") || !strings.Contains(w[0], `line 3 ""`) {
		t.Errorf("warnings %q", w)
	}
	if !tt.HasTrain("ÉÉÉÉÉ") || tt.HasTrain("123456") {
		t.Error("train numbers counted in bytes, not characters")
	}
}
