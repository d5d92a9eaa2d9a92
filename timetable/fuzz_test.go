package timetable

import (
	"errors"
	"os"
	"testing"
	"testing/fstest"
)

// FuzzStopsFile reads arbitrary bytes as stops.txt, in both station code
// modes: no panic, and either a *FeedError naming stops.txt, a line of the
// file and (for a value) a column of its header, or stations that all
// have 7-digit codes and stops that all point at one of them.
func FuzzStopsFile(f *testing.F) {
	for _, p := range []string{"testdata/feed/stops.txt", "testdata/stopid/stops.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Add([]byte("\xef\xbb\xbfstop_id,stop_code\n\"a,b\",8700001\n"), false)
	f.Add([]byte("stop_code,stop_id,parent_station,location_type\n8700001,P,,1\n,Q,P,0\n,R,P,3\n"), false)
	f.Add([]byte("stop_id\n\"unterminated\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, byID bool) {
		opts := Options{StationCode: "stop_code"}
		if byID {
			opts.StationCode = "stop_id"
		}
		l := &loader{fsys: fstest.MapFS{"stops.txt": {Data: data}}, opts: opts, t: &Timetable{}, strs: map[string]string{}}
		err := l.stops()
		if err != nil {
			var fe *FeedError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FeedError: %v", err)
			}
			if fe.File != "stops.txt" || fe.Line < 0 || fe.Msg == "" {
				t.Fatalf("FeedError %+v", fe)
			}
			if fe.Line > 1 && fe.Field == "" && !contains(fe.Msg, "CSV") {
				t.Fatalf("an error on a row names no field: %v", err)
			}
			return
		}
		for i, s := range l.t.stations {
			if !isUIC(s.code) {
				t.Fatalf("station %d has code %q", i, s.code)
			}
			if l.t.byCode[s.code] != int32(i) {
				t.Fatalf("byCode[%q] = %d, want %d", s.code, l.t.byCode[s.code], i)
			}
		}
		for id, s := range l.stopIdx {
			if s < -1 || int(s) >= len(l.t.stations) {
				t.Fatalf("stop %q -> station %d of %d", id, s, len(l.t.stations))
			}
		}
	})
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// FuzzTransfersFile reads arbitrary bytes as the transfers.txt of the
// test feed: no panic, and either a *FeedError naming transfers.txt, a
// line and (past the header, for a value) a column, or rules that are a
// time of 0..24h, the default or forbidden, for stations of the feed.
func FuzzTransfersFile(f *testing.F) {
	f.Add([]byte("from_stop_id,to_stop_id,transfer_type,min_transfer_time\nBXL,BXL,2,300\nPNO:1,PNO,3,\nLIL,BXL,2,60\n"))
	f.Add([]byte("from_stop_id,to_stop_id,transfer_type,min_transfer_time,from_trip_id,to_trip_id,from_route_id,to_route_id\nBXL,BXL,2,120,T1,T2,,\nBXL,BXL,3,,,,R-ES,R-TGV\n,,4,,T1,T2,,\n"))
	f.Add([]byte("transfer_type\n9\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fs := fstest.MapFS{}
		for _, name := range []string{"agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt", "calendar.txt", "calendar_dates.txt"} {
			b, err := os.ReadFile("testdata/feed/" + name)
			if err != nil {
				t.Fatal(err)
			}
			fs[name] = &fstest.MapFile{Data: b}
		}
		fs["transfers.txt"] = &fstest.MapFile{Data: data}
		tt, err := LoadFS(fs, Options{})
		if err != nil {
			var fe *FeedError
			if !errors.As(err, &fe) || fe.File != "transfers.txt" || fe.Line < 0 || fe.Msg == "" {
				t.Fatalf("error %v", err)
			}
			if fe.Line > 1 && fe.Field == "" && !contains(fe.Msg, "CSV") && !contains(fe.Msg, "fields") {
				t.Fatalf("an error on a row names no field: %v", err)
			}
			return
		}
		if len(tt.transfers.station) != len(tt.stations) {
			t.Fatalf("%d station rules for %d stations", len(tt.transfers.station), len(tt.stations))
		}
		check := func(v int32) {
			if v < transferForbidden || v > maxTransferSecs {
				t.Fatalf("rule %d", v)
			}
		}
		for _, v := range tt.transfers.station {
			check(v)
		}
		for k, v := range tt.transfers.specific {
			check(v)
			if k.station < 0 || int(k.station) >= len(tt.stations) || !tt.transfers.hasSpecific[k.station] {
				t.Fatalf("rule %+v", k)
			}
		}
	})
}
