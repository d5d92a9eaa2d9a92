package modulekit

import "testing"

// TestUnknownSubdirective: a typo gets the closest name, anything else
// the list of known names.
func TestUnknownSubdirective(t *testing.T) {
	known := []string{"tariff", "timeout", "partner"}
	for name, want := range map[string]string{
		"tarif":     `unrecognized subdirective "tarif"; did you mean "tariff"?`,
		"TimeOut":   `unrecognized subdirective "TimeOut"; did you mean "timeout"?`,
		"ab":        `unrecognized subdirective "ab" (known: tariff, timeout, partner)`,
		"something": `unrecognized subdirective "something" (known: tariff, timeout, partner)`,
	} {
		if got := UnknownSubdirective("subdirective", name, known); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}
