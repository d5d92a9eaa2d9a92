package legacy

import "time"

// AgeOn is the age in whole years, on day, of a passenger born on dob, a
// DateOfBirth as the protocol carries it (YYYY-MM-DD); false when dob is
// no date or after day.
func AgeOn(dob string, day time.Time) (int, bool) {
	born, err := time.Parse(time.DateOnly, dob)
	if err != nil {
		return 0, false
	}
	y, m, d := day.Date()
	age := y - born.Year()
	if m < born.Month() || m == born.Month() && d < born.Day() {
		age--
	}
	return age, age >= 0
}
