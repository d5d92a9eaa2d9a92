package defaults

import (
	"testing"
	"time"
)

// A zero count takes the default; a count, given or default, outside
// 1..max is refused by name.
func TestCount(t *testing.T) {
	check := func(n, def, want int, wantErr string) {
		t.Helper()
		got := n
		err := Count("max_entries", &got, def, 20)
		if got != want || wantErr == "" && err != nil || wantErr != "" && (err == nil || err.Error() != wantErr) {
			t.Errorf("%d (default %d): %d %v, want %d %q", n, def, got, err, want, wantErr)
		}
	}
	check(0, 7, 7, "")
	check(1, 7, 1, "")
	check(20, 7, 20, "")
	check(21, 7, 21, "max_entries 21 must be 1..20")
	check(-1, 7, -1, "max_entries -1 must be 1..20")
	check(0, 30, 30, "max_entries 30 must be 1..20")
}

// A zero duration takes the default; one under a second is refused by
// name.
func TestDuration(t *testing.T) {
	check := func(d, want time.Duration, wantErr string) {
		t.Helper()
		got := d
		err := Duration("retention", &got, time.Hour)
		if got != want || wantErr == "" && err != nil || wantErr != "" && (err == nil || err.Error() != wantErr) {
			t.Errorf("%s: %s %v, want %s %q", d, got, err, want, wantErr)
		}
	}
	check(0, time.Hour, "")
	check(time.Second, time.Second, "")
	check(999*time.Millisecond, 999*time.Millisecond, "retention 999ms must be at least 1s")
	check(-time.Minute, -time.Minute, "retention -1m0s must be at least 1s")
}
