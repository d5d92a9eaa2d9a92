package integration

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/google/uuid"
)

// overOSDM is one legacy system sending to another over OSDM: the far
// system, and what the near one sends with.
type overOSDM struct {
	t      *testing.T
	far    *legacysandbox.Sandbox
	client harness.LegacyClient
	// day is tomorrow, the day of every journey.
	day string
}

// legacyOverOSDM serves one legacy system's messages to another legacy
// system over OSDM: legacy client -> osdm_convert -> reverse_proxy ->
// osdm_legacy (refund_fee 10%, and the subdirective lines given) ->
// reverse_proxy -> a legacy sandbox.
func legacyOverOSDM(t *testing.T, lines ...string) *overOSDM {
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
	return &overOSDM{t: t, far: sb, client: harness.LegacyClient{URL: base + "/legacy"},
		day: time.Now().AddDate(0, 0, 1).Format(time.DateOnly)}
}

// post sends msg from the near system and returns the reply.
func (o *overOSDM) post(msg legacy.Request) legacy.Reply {
	o.t.Helper()
	_, reply := o.client.Send(o.t, msg)
	return reply
}

// journey is train's journey from Basel to Zürich on o.day.
func (o *overOSDM) journey(train string) legacy.Journey {
	return legacy.Journey{TrainNumber: train, DepartureDate: o.day, From: "8500010", To: "8503000"}
}

// header is a message header with a new messageId starting with prefix.
func header(prefix string) legacy.Header {
	return legacy.Header{MessageID: prefix + uuid.NewString()[:8]}
}

// confirmed returns the bookings the far system holds confirmed.
func (o *overOSDM) confirmed() []legacysandbox.BookingInfo {
	var out []legacysandbox.BookingInfo
	for _, b := range o.far.Bookings() {
		if b.Status == legacy.StatusConfirmed {
			out = append(out, b)
		}
	}
	return out
}
