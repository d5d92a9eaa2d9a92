package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LegacyGTFS writes a GTFS feed of 10 daily trains Paris Nord ->
// Bruxelles-Midi, 9301 at 06:10, 9302 at 07:10, ... through 2099, in a
// new folder gtfs of dir, and returns the folder's path.
func LegacyGTFS(t testing.TB, dir string) string {
	t.Helper()
	dir = filepath.Join(dir, "gtfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"agency.txt":   "agency_id,agency_name,agency_url,agency_timezone\nES,Eurostar,https://example.com,Europe/Paris\n",
		"stops.txt":    "stop_id,stop_name,stop_code\nPNO,Paris Nord,8727100\nBXL,Bruxelles-Midi,8814001\nLIL,Lille Europe,8722326\n",
		"routes.txt":   "route_id,agency_id,route_type\nR,ES,2\n",
		"calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nD,1,1,1,1,1,1,1,20200101,20991231\n",
	}
	var trips, times strings.Builder
	trips.WriteString("route_id,service_id,trip_id,trip_short_name\n")
	times.WriteString("trip_id,arrival_time,departure_time,stop_id,stop_sequence\n")
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&trips, "R,D,T%d,%d\n", i, 9301+i)
		fmt.Fprintf(&times, "T%d,%02d:10:00,%02d:10:00,PNO,1\n", i, 6+i, 6+i)
		fmt.Fprintf(&times, "T%d,%02d:12:00,%02d:14:00,LIL,2\n", i, 7+i, 7+i)
		fmt.Fprintf(&times, "T%d,%02d:32:00,%02d:32:00,BXL,3\n", i, 7+i, 7+i)
	}
	files["trips.txt"], files["stop_times.txt"] = trips.String(), times.String()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
