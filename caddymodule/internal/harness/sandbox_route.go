package harness

import "strings"

// SandboxRoute is the route of a site that answers OSDM under prefix
// (/osdm: the paths /osdm/*) with osdm_sandbox, the partner the tests
// book with: train 708 runs 08:30-11:00 with 2 places per class, and
// offers stay bookable 15 minutes. more are further subdirectives of
// osdm_sandbox, one an element.
func SandboxRoute(prefix string, more ...string) string {
	var b strings.Builder
	b.WriteString("\troute " + prefix + "/* {\n\t\tosdm_sandbox {\n\t\t\tcapacity 2\n\t\t\toffer_ttl 15m\n\t\t\ttrain 708 08:30 11:00\n")
	for _, m := range more {
		b.WriteString("\t\t\t" + m + "\n")
	}
	b.WriteString("\t\t}\n\t}\n")
	return b.String()
}
