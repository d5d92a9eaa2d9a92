package modulekit

import "testing"

// TestTimeZone: an IANA zone or UTC is read; Local (the host's zone) and
// an unknown name are refused, naming the setting.
func TestTimeZone(t *testing.T) {
	for _, name := range []string{"Europe/Paris", "UTC"} {
		if loc, err := TimeZone(name); err != nil || loc.String() != name {
			t.Errorf("%s: %v %v", name, loc, err)
		}
	}
	for name, want := range map[string]string{
		"Local":        `time_zone "Local" is the zone of the machine Caddy runs on, not an IANA zone: name it, e.g. Europe/Paris`,
		"Mars/Olympus": `time_zone "Mars/Olympus": unknown time zone Mars/Olympus`,
	} {
		if _, err := TimeZone(name); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", name, err, want)
		}
	}
}
