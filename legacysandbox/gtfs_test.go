package legacysandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// writeFeed writes a small GTFS feed into a new folder, its calendar from
// the test clock's start: 9301 runs on weekdays PNO 07:16 - LIL - BXL -
// AMS; 9315 daily PNO 09:13 - BXL 10:35 except on start+2; 9399 is a
// night train, daily, PNO 23:40 - LIL 00:45 - BXL 01:30 - AMS 02:30;
// 9350 daily PNO 10:00 - LIL 11:00 (no alighting) - BXL 11:40.
func writeFeed(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	d := func(days int) string { return start.AddDate(0, 0, days).Format("20060102") }
	files := map[string]string{
		"agency.txt": "agency_id,agency_name,agency_url,agency_timezone\nES,Eurostar,https://example.eu,Europe/Paris\n",
		"stops.txt": "stop_id,stop_name,stop_code,location_type,parent_station\n" +
			"PNO,Paris Nord,8727100,1,\nPNO:1,Paris Nord voie 1,,0,PNO\nLIL,Lille Europe,8722326,0,\n" +
			"BXL,Bruxelles-Midi,8814001,0,\nAMS,Amsterdam Centraal,8400058,0,\n",
		"routes.txt": "route_id,agency_id,route_type\nR,ES,2\n",
		"trips.txt":  "route_id,service_id,trip_id,trip_short_name\nR,WD,T1,9301\nR,DAILY,T2,9315\nR,DAILY,T3,9399\nR,DAILY,T4,9350\n",
		"stop_times.txt": "trip_id,arrival_time,departure_time,stop_id,stop_sequence,pickup_type,drop_off_type\n" +
			"T1,07:16:00,07:16:00,PNO:1,1,,\nT1,08:18:00,08:20:00,LIL,2,,\nT1,09:00:00,09:05:00,BXL,3,,\nT1,11:30:00,11:30:00,AMS,4,,\n" +
			"T2,09:13:00,09:13:00,PNO:1,1,,\nT2,10:35:00,10:35:00,BXL,2,,\n" +
			"T3,23:40:00,23:40:00,PNO:1,1,,\nT3,24:45:00,24:47:00,LIL,2,,\nT3,25:30:00,25:32:00,BXL,3,,\nT3,26:30:00,26:30:00,AMS,4,,\n" +
			"T4,10:00:00,10:00:00,PNO:1,1,0,0\nT4,11:00:00,11:00:00,LIL,2,0,1\nT4,11:40:00,11:40:00,BXL,3,0,0\n",
		"calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n" +
			"WD,1,1,1,1,1,0,0," + d(-30) + "," + d(60) + "\nDAILY,1,1,1,1,1,1,1," + d(-30) + "," + d(60) + "\n",
		"calendar_dates.txt": "service_id,date,exception_type\nDAILY," + d(2) + ",2\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// nextDay returns the first day after start that is (or is not) a
// weekday, YYYY-MM-DD.
func nextDay(weekday bool) string {
	for i := 1; ; i++ {
		day := start.AddDate(0, 0, i)
		if wd := day.Weekday(); (wd != time.Saturday && wd != time.Sunday) == weekday {
			return day.Format(time.DateOnly)
		}
	}
}

func TestGTFSSchedule(t *testing.T) {
	sched, err := LoadGTFS(writeFeed(t), "")
	if err != nil {
		t.Fatal(err)
	}
	weekday, weekend := nextDay(true), nextDay(false)
	nightDay := start.AddDate(0, 0, 3).Format(time.DateOnly)
	nightNext := start.AddDate(0, 0, 4).Format(time.DateOnly)
	for _, tc := range []struct {
		name, train, date, from, to string
		dep, arr, serviceDate       string // "2006-01-02 15:04" local, and YYYY-MM-DD
		services                    int
		err                         string
	}{
		{"weekday train", "9301", weekday, "8727100", "8814001", weekday + " 07:16", weekday + " 09:00", weekday, 1, ""},
		{"from a middle stop", "9301", weekday, "8722326", "8400058", weekday + " 08:20", weekday + " 11:30", weekday, 1, ""},
		{"not on weekends", "9301", weekend, "8727100", "8814001", "", "", "", 0, "does not run on " + weekend},
		{"removed date", "9315", start.AddDate(0, 0, 2).Format(time.DateOnly), "8727100", "8814001", "", "", "", 0, "does not run on"},
		{"station not called at", "9315", weekday, "8722326", "8814001", "", "", "", 0, "does not leave 8722326"},
		{"wrong direction", "9315", weekday, "8814001", "8727100", "", "", "", 0, "does not call at 8727100 after 8814001"},
		{"no alighting at Lille", "9350", weekday, "8727100", "8722326", "", "", "", 0, "takes no passengers from 8727100 to 8722326"},
		{"passing Lille", "9350", weekday, "8727100", "8814001", weekday + " 10:00", weekday + " 11:40", weekday, 1, ""},
		{"unknown train", "1234", weekday, "8727100", "8814001", "", "", "", 0, "not in the timetable"},
		{"night train from its origin", "9399", nightDay, "8727100", "8400058", nightDay + " 23:40", nightNext + " 02:30", nightDay, 3, ""},
		{"night train after midnight", "9399", nightNext, "8722326", "8814001", nightNext + " 00:47", nightNext + " 01:30", nightDay, 3, ""},
		{"night train: not from Paris after midnight", "9399", nightNext, "8727100", "8814001", nightNext + " 23:40", start.AddDate(0, 0, 5).Format(time.DateOnly) + " 01:30", nightNext, 3, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leg, err := sched.Leg(tc.train, tc.date, tc.from, tc.to)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%+v %v, want %q", leg, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := leg.Departure.Format("2006-01-02 15:04"); got != tc.dep {
				t.Errorf("departure %s, want %s", got, tc.dep)
			}
			if got := leg.Arrival.Format("2006-01-02 15:04"); got != tc.arr {
				t.Errorf("arrival %s, want %s", got, tc.arr)
			}
			if leg.ServiceDate != tc.serviceDate || len(leg.Services) != tc.services || leg.Departure.Location().String() != "Europe/Paris" {
				t.Errorf("leg %+v", leg)
			}
		})
	}
	if _, err := LoadGTFS(filepath.Join(t.TempDir(), "missing.zip"), ""); err == nil {
		t.Error("a missing feed loaded")
	}
}

// Through the sandbox: TRAIN_NOT_FOUND from the feed, the feed's times in
// the reply, and one run's places shared by the stations a night train
// calls at before and after midnight.
func TestSandboxOnGTFS(t *testing.T) {
	sched, err := LoadGTFS(writeFeed(t), "stop_code")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newSandbox(t, Config{Schedule: sched, Capacity: 3})
	j := legacy.Journey{TrainNumber: "9301", DepartureDate: nextDay(false), From: "8727100", To: "8814001"}
	nr := negative(t, handle(s, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "G1"}, Journey: j, Places: adults(1)}), legacy.CodeTrainNotFound)
	if !strings.Contains(nr.Text, "does not run on") {
		t.Errorf("text %q", nr.Text)
	}
	j.DepartureDate = nextDay(true)
	r := as[*legacy.AvailabilityReply](t, handle(s, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "G2"}, Journey: j, Places: adults(1)}))
	if r.Journey.DepartureTime != "07:16" || r.Journey.ArrivalTime != "09:00" || len(r.Offers) != 1 {
		t.Errorf("reply %+v", r)
	}
	night := legacy.PlaceRequest{TravelClass: 2, ServiceCode: legacy.ServiceCouchette, Tariffs: []legacy.Tariff{{Code: 1, Count: 2}}}
	first := legacy.Journey{TrainNumber: "9399", DepartureDate: start.AddDate(0, 0, 3).Format(time.DateOnly), From: "8727100", To: "8400058"}
	as[*legacy.BookingReply](t, handle(s, &legacy.BookingRequest{Header: legacy.Header{MessageID: "G3"}, Journey: first, Places: night}))
	later := legacy.Journey{TrainNumber: "9399", DepartureDate: start.AddDate(0, 0, 4).Format(time.DateOnly), From: "8722326", To: "8814001"}
	nr = negative(t, handle(s, &legacy.BookingRequest{Header: legacy.Header{MessageID: "G4"}, Journey: later, Places: night}), legacy.CodeNoAvailability)
	if !strings.Contains(nr.Text, "1 2nd class couchettes left") {
		t.Errorf("text %q", nr.Text)
	}
}
