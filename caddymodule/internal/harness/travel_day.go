package harness

import "time"

// TravelDay is the travel day of the osdm_legacy tests' searches: the
// first day from two days ahead on which Paris is at +01:00 (the tests'
// times are written with that offset, and the test timetable's trains run
// in Paris time), so that it is always within osdm_legacy's sale window
// (not past, within the booking horizon); ReturnDay is two days later.
var TravelDay, ReturnDay = func() (string, string) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic(err)
	}
	d := time.Now().In(paris).AddDate(0, 0, 2)
	for {
		noon := time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, paris)
		if _, off := noon.Zone(); off == 3600 {
			return noon.Format(time.DateOnly), noon.AddDate(0, 0, 2).Format(time.DateOnly)
		}
		d = d.AddDate(0, 0, 1)
	}
}()
