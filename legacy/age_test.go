package legacy

import (
	"testing"
	"time"
)

// TestAgeOn: the age counts whole years, turns on the birthday itself (a
// 29 February birthday on 1 March in other years), and is refused for a
// date that is none or after the day.
func TestAgeOn(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		dob, on string
		age     int
		ok      bool
	}{
		{"1990-05-17", "2026-05-16", 35, true},
		{"1990-05-17", "2026-05-17", 36, true},
		{"1990-05-17", "2026-12-01", 36, true},
		{"2008-02-29", "2026-02-28", 17, true},
		{"2008-02-29", "2026-03-01", 18, true},
		{"2026-12-01", "2026-12-01", 0, true},
		{"2026-12-02", "2026-12-01", -1, false},
		{"1990-02-30", "2026-12-01", 0, false},
		{"17.05.1990", "2026-12-01", 0, false},
		{"", "2026-12-01", 0, false},
	} {
		if age, ok := AgeOn(c.dob, day(c.on)); age != c.age || ok != c.ok {
			t.Errorf("AgeOn(%q, %s) = %d, %v; want %d, %v", c.dob, c.on, age, ok, c.age, c.ok)
		}
	}
}
