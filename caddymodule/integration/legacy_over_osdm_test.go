package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// legacyOverOSDM serves one legacy system's messages to another legacy
// system over OSDM: legacy client -> osdm_convert -> reverse_proxy ->
// osdm_legacy (refund_fee 10%, and the subdirective lines given) ->
// reverse_proxy -> a legacy sandbox. It returns the far system and a
// client for the near one's messages.
func legacyOverOSDM(t *testing.T, lines ...string) (*legacysandbox.Sandbox, harness.LegacyClient) {
	t.Helper()
	var extra strings.Builder
	for _, l := range lines {
		extra.WriteString("\t\t\t" + l + "\n")
	}
	sb, err := legacysandbox.New(legacysandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	legacyAddr := harness.ServeLocal(t, sb)
	dir := t.TempDir()
	osdmPort := harness.FreePort(t)
	base := harness.Serve(t, func(port int) string {
		return harness.Options() + harness.Site(port, fmt.Sprintf(`
	route /legacy {
		osdm_convert {
			partner hermes-over-osdm
			timeout 10s
		}
		reverse_proxy 127.0.0.1:%d
	}
`, osdmPort)) + harness.Site(osdmPort, fmt.Sprintf(`
	route {
		osdm_legacy {
			partner hermes-test
			refund_fee 10%%
%s			timeout 5s
			store bolt %s
		}
		reverse_proxy %s
	}
`, extra.String(), filepath.Join(dir, "legacy.db"), legacyAddr))
	})
	return sb, harness.LegacyClient{URL: base + "/legacy"}
}

// confirmedAt returns the bookings the far system holds confirmed.
func confirmedAt(sb *legacysandbox.Sandbox) []legacysandbox.BookingInfo {
	var out []legacysandbox.BookingInfo
	for _, b := range sb.Bookings() {
		if b.Status == legacy.StatusConfirmed {
			out = append(out, b)
		}
	}
	return out
}
