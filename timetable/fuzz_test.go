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
