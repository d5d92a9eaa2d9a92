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
