package legacy

import (
	"strings"
	"testing"
)

// TestNameFault: each way of breaking the name rule is named, and what
// the rule takes (validName) is what NameFault finds nothing against.
func TestNameFault(t *testing.T) {
	for _, c := range []struct {
		name, want string
	}{
		{"Müller", ""},
		{"Ζωή O'Neil-Smith", ""},
		{strings.Repeat("é", 70), ""},
		{"", "must be 1..70 characters without control characters"},
		{strings.Repeat("é", 71), "must be 1..70 characters without control characters"},
		{"Ada\x07", "must be 1..70 characters without control characters"},
		{"Ada\uFFFE", "must be 1..70 characters without control characters"},
		{"Ada\xff", "must be 1..70 characters without control characters"},
		{"  \u00a0 ", "must not be only white space"},
		{"Love\u202Ecalev", "must not hold the bidirectional formatting character U+202E"},
		{"\u2066Ada", "must not hold the bidirectional formatting character U+2066"},
	} {
		if got := NameFault(c.name); got != c.want {
			t.Errorf("NameFault(%q) = %q, want %q", c.name, got, c.want)
		}
		if validName(c.name) != (c.want == "") {
			t.Errorf("validName(%q) = %v", c.name, !(c.want == ""))
		}
	}
}
