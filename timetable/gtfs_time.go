package timetable

import (
	"fmt"
	"time"
)

// maxGTFSHours bounds a stop time: a trip may run past midnight of its
// service date, but not past a week.
const maxGTFSHours = 7 * 24

// noTime marks an arrival or departure left empty in stop_times.txt.
const noTime = -1

// parseGTFSTime reads H:MM:SS or HH:MM:SS (hours may pass 24) as seconds
// since "noon minus 12h" of the service date.
func parseGTFSTime(s string) (int32, error) {
	// hours: 1 to 3 digits, then ":MM:SS"
	n := len(s)
	if n < 7 || n > 9 || s[n-3] != ':' || s[n-6] != ':' {
		return 0, fmt.Errorf("%q is not a time HH:MM:SS", s)
	}
	h, ok1 := digits(s[:n-6])
	m, ok2 := digits(s[n-5 : n-3])
	sec, ok3 := digits(s[n-2:])
	if !ok1 || !ok2 || !ok3 {
		return 0, fmt.Errorf("%q is not a time HH:MM:SS", s)
	}
	if m > 59 || sec > 59 {
		return 0, fmt.Errorf("%q: minutes and seconds must be 00..59", s)
	}
	if h >= maxGTFSHours {
		return 0, fmt.Errorf("%q: more than %d hours after the service date", s, maxGTFSHours)
	}
	return int32(h*3600 + m*60 + sec), nil
}

func digits(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// day is a civil date as days since 1970-01-01.
type day int32

// parseGTFSDate reads YYYYMMDD.
func parseGTFSDate(s string) (day, error) {
	if len(s) != 8 {
		return 0, fmt.Errorf("%q is not a date YYYYMMDD", s)
	}
	y, ok1 := digits(s[:4])
	m, ok2 := digits(s[4:6])
	d, ok3 := digits(s[6:])
	if !ok1 || !ok2 || !ok3 || y < 1900 || m < 1 || m > 12 || d < 1 || d > 31 {
		return 0, fmt.Errorf("%q is not a date YYYYMMDD", s)
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return 0, fmt.Errorf("%q is not a date of the calendar", s)
	}
	return dayOf(y, time.Month(m), d), nil
}

func dayOf(y int, m time.Month, d int) day {
	return day(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// civil is the year, month and day of d.
func (d day) civil() (int, time.Month, int) {
	return time.Unix(int64(d)*86400, 0).UTC().Date()
}

// dayIn is the calendar date of t in loc.
func dayIn(t time.Time, loc *time.Location) day {
	y, m, d := t.In(loc).Date()
	return dayOf(y, m, d)
}

// base is the instant GTFS times of service date d count from: noon minus
// 12 hours, local time (on days when the clocks change, this is not
// midnight: 23:00 or 01:00 local).
func (d day) base(loc *time.Location) int64 {
	y, m, dd := d.civil()
	return time.Date(y, m, dd, 12, 0, 0, 0, loc).Unix() - 12*3600
}

// midnight is local midnight of d, the Run's ServiceDate.
func (d day) midnight(loc *time.Location) time.Time {
	y, m, dd := d.civil()
	return time.Date(y, m, dd, 0, 0, 0, 0, loc)
}
