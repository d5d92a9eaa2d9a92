package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// ChangeGTFS writes a GTFS feed without a direct train from Paris Est
// (8711300) to Basel SBB (8500010): every journey changes at Strasbourg
// (8721202), where transfers.txt asks 12 minutes. Daily through 2099:
//
//	Paris Est -> Strasbourg: 9571 07:00-08:50, 9573 08:00-09:50, 9575 09:00-10:50
//	Strasbourg -> Basel SBB: 96001 08:55-10:15 (5 minutes after 9571: too short),
//	                         96003 09:10-10:30, 96005 10:10-11:30, 96007 11:10-12:30
//
// so that from 06:30 the journeys are 9571+96003, 9573+96005 and
// 9575+96007, in that order. Without transfers (no transfers.txt) the
// change at Strasbourg takes osdm_legacy's min_transfer. It returns the
// feed's folder (gtfs in dir).
func ChangeGTFS(t testing.TB, dir string, transfers bool) string {
	t.Helper()
	dir = filepath.Join(dir, "gtfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"agency.txt": "agency_id,agency_name,agency_url,agency_timezone\nSNCF,SNCF,https://example.com,Europe/Paris\n",
		"stops.txt":  "stop_id,stop_name,stop_code\nPST,Paris Est,8711300\nSXB,Strasbourg,8721202\nBSL,Basel SBB,8500010\n",
		"routes.txt": "route_id,agency_id,route_type\nTGV,SNCF,2\nTER,SNCF,2\n",
		"calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n" +
			"D,1,1,1,1,1,1,1,20200101,20991231\n",
		"trips.txt": "route_id,service_id,trip_id,trip_short_name\n" +
			"TGV,D,T9571,9571\nTGV,D,T9573,9573\nTGV,D,T9575,9575\n" +
			"TER,D,T96001,96001\nTER,D,T96003,96003\nTER,D,T96005,96005\nTER,D,T96007,96007\n",
		"stop_times.txt": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n" +
			"T9571,07:00:00,07:00:00,PST,1\nT9571,08:50:00,08:50:00,SXB,2\n" +
			"T9573,08:00:00,08:00:00,PST,1\nT9573,09:50:00,09:50:00,SXB,2\n" +
			"T9575,09:00:00,09:00:00,PST,1\nT9575,10:50:00,10:50:00,SXB,2\n" +
			"T96001,08:55:00,08:55:00,SXB,1\nT96001,10:15:00,10:15:00,BSL,2\n" +
			"T96003,09:10:00,09:10:00,SXB,1\nT96003,10:30:00,10:30:00,BSL,2\n" +
			"T96005,10:10:00,10:10:00,SXB,1\nT96005,11:30:00,11:30:00,BSL,2\n" +
			"T96007,11:10:00,11:10:00,SXB,1\nT96007,12:30:00,12:30:00,BSL,2\n",
		"transfers.txt": "from_stop_id,to_stop_id,transfer_type,min_transfer_time\nSXB,SXB,2,720\n",
	}
	if !transfers {
		delete(files, "transfers.txt")
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
