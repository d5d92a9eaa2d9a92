package defaults

import (
	"testing"
	"time"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n, want int
		err     string
	}{
		{0, 7, ""}, // the default
		{1, 1, ""},
		{20, 20, ""},
		{21, 21, "max_entries 21 must be 1..20"},
		{-1, -1, "max_entries -1 must be 1..20"},
	} {
		n := tc.n
		err := Count("max_entries", &n, 7, 20)
		if n != tc.want || tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("%d: %d %v, want %d %q", tc.n, n, err, tc.want, tc.err)
		}
	}
	// A default out of bounds is refused as well.
	n := 0
	if err := Count("capacity", &n, 30, 20); err == nil || err.Error() != "capacity 30 must be 1..20" {
		t.Errorf("a default out of bounds: %v", err)
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d, want time.Duration
		err     string
	}{
		{0, time.Hour, ""}, // the default
		{time.Second, time.Second, ""},
		{999 * time.Millisecond, 999 * time.Millisecond, "retention 999ms must be at least 1s"},
		{-time.Minute, -time.Minute, "retention -1m0s must be at least 1s"},
	} {
		d := tc.d
		err := Duration("retention", &d, time.Hour)
		if d != tc.want || tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("%s: %s %v, want %s %q", tc.d, d, err, tc.want, tc.err)
		}
	}
}
