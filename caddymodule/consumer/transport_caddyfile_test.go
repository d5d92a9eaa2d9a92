package consumer

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// transport osdm takes no argument: one on its line is refused, naming
// the line, rather than dropped with the block after it (whose
// dial_timeout, TLS settings and the like would then be silently lost).
func TestTransportCaddyfileRefusesAnArgument(t *testing.T) {
	for _, line := range []string{"transport osdm extra", "transport osdm extra {\n\t\t\tdial_timeout 2s\n\t\t}"} {
		cf := ":9443 {\n\treverse_proxy 127.0.0.1:1 {\n\t\t" + line + "\n\t}\n}\n"
		harness.CheckAdaptRefused(t, cf, "Caddyfile:3", "wrong argument count or unexpected line ending after 'extra'")
	}
	// Without an argument, with or without a block, it adapts.
	harness.CheckAdaptedJSON(t, ":9443 {\n\treverse_proxy 127.0.0.1:1 {\n\t\ttransport osdm {\n\t\t\tdial_timeout 2s\n\t\t}\n\t}\n}\n", `"dial_timeout":2000000000`)
	harness.CheckAdaptedJSON(t, ":9443 {\n\treverse_proxy 127.0.0.1:1 {\n\t\ttransport osdm\n\t}\n}\n", `"protocol":"osdm"`)
}
