package osdmsandbox

import (
	"strconv"
	"time"
)

// parseISODuration reads an ISO 8601 duration of days, hours, minutes and
// seconds, as OSDM writes them ("PT10M", "PT1H30M", "P1DT2H", "PT45S"):
// no years, months or weeks, no fractions, at least one part.
func parseISODuration(s string) (time.Duration, bool) {
	if len(s) < 3 || s[0] != 'P' {
		return 0, false
	}
	var d time.Duration
	inTime, parts := false, 0
	units := "D"
	for i := 1; i < len(s); {
		if s[i] == 'T' {
			if inTime || i == len(s)-1 {
				return 0, false
			}
			inTime, units = true, "HMS"
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j == len(s) || j-i > 6 {
			return 0, false
		}
		n, _ := strconv.Atoi(s[i:j])
		k := 0
		for k < len(units) && units[k] != s[j] {
			k++
		}
		if k == len(units) {
			return 0, false
		}
		unit := map[byte]time.Duration{'D': 24 * time.Hour, 'H': time.Hour, 'M': time.Minute, 'S': time.Second}[s[j]]
		d += time.Duration(n) * unit
		units = units[k+1:] // in order, each once
		parts++
		i = j + 1
	}
	return d, parts > 0
}
