package harness

import (
	"fmt"
	"strings"
)

// Options is the global options block of a test Caddy: no admin
// endpoint, nothing persisted, no automatic HTTPS, then extra (options
// on lines of their own, indented by one tab, as LogOption writes).
func Options(extra ...string) string {
	return "{\n\tadmin off\n\tpersist_config off\n\tauto_https off\n" + strings.Join(extra, "") + "}\n"
}

// LogOption is the global log option that writes Caddy's log as JSON to
// path, at level ("" for Caddy's default).
func LogOption(path, level string) string {
	opt := "\tlog {\n\t\toutput file " + path + "\n\t\tformat json\n"
	if level != "" {
		opt += "\t\tlevel " + level + "\n"
	}
	return opt + "\t}\n"
}

// Site is the site block http://127.0.0.1:<port> holding body (its
// lines indented by one tab; a first empty line is dropped), after a
// blank line: Options() + Site(port, ...) is a whole Caddyfile, and
// further sites may follow.
func Site(port int, body string) string {
	return fmt.Sprintf("\nhttp://127.0.0.1:%d {\n%s}\n", port, strings.TrimPrefix(body, "\n"))
}

// DebugOption is the global option that turns on Caddy's debug log.
const DebugOption = "\tdebug\n"

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

// LegacyRoute is the route of a site that answers OSDM under prefix
// (/osdm: the paths /osdm/*, the prefix stripped) with osdm_legacy in
// front of the legacy reservation system at legacyAddr. options are
// osdm_legacy's subdirectives, one an element, partner first; an empty
// one is left out, and one may hold more lines, each after "\n\t\t\t".
func LegacyRoute(prefix, legacyAddr string, options ...string) string {
	var b strings.Builder
	b.WriteString("\troute " + prefix + "/* {\n\t\turi strip_prefix " + prefix + "\n\t\tosdm_legacy {\n")
	for _, o := range options {
		if o = strings.TrimPrefix(o, "\n\t\t\t"); o != "" {
			b.WriteString("\t\t\t" + o + "\n")
		}
	}
	b.WriteString("\t\t}\n\t\treverse_proxy " + legacyAddr + "\n\t}\n")
	return b.String()
}
