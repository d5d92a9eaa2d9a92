package sandbox

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// The sandbox answers by itself: next is never called.
func TestLegacySandboxIsTerminal(t *testing.T) {
	s := &LegacySandbox{System: 9101}
	provision(t, s)
	for _, tc := range []struct {
		method, path string
		status       int
	}{{http.MethodGet, "/_sandbox/bookings", 200}, {http.MethodGet, "/other", 405}, {http.MethodPost, "/any", 415}} {
		if rec := serveTerminal(t, s, tc.method, tc.path); rec.Code != tc.status {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, rec.Code, rec.Body)
		}
	}
}

// Handlers with equal settings (a config reload) share the bookings;
// other settings get a sandbox of their own; a changed feed is read again.
func TestLegacySandboxStateSurvivesReload(t *testing.T) {
	first := &LegacySandbox{System: 9102, Capacity: 7}
	provision(t, first)
	reloaded := &LegacySandbox{System: 9102, Capacity: 7}
	provision(t, reloaded)
	other := &LegacySandbox{System: 9102, Capacity: 8}
	provision(t, other)
	if first.handler != reloaded.handler {
		t.Error("a reload with the same settings lost the sandbox")
	}
	if first.handler == other.handler {
		t.Error("other settings share the sandbox")
	}
	if got := first.handler.Config(); got.Capacity != 7 || got.System != 9102 {
		t.Errorf("config %+v", got)
	}

	feed := filepath.Join(t.TempDir(), "feed.zip")
	if err := os.WriteFile(feed, []byte("not a zip"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	bad := &LegacySandbox{System: 9103, Timetable: feed}
	err := bad.Provision(ctx)
	if err == nil || !strings.Contains(err.Error(), feed) {
		t.Errorf("a feed that is not a zip: %v", err)
	}
	_ = bad.Cleanup()
}

func TestLegacySandboxProvisionErrors(t *testing.T) {
	hundredOne := 101
	for _, tc := range []struct {
		s    *LegacySandbox
		want string
	}{
		{&LegacySandbox{Capacity: legacysandbox.MaxCapacity + 1}, "capacity"},
		{&LegacySandbox{System: 10000}, "system"},
		{&LegacySandbox{Foreign: []legacysandbox.Foreign{{Train: "462", System: 80, Operator: "80"}}}, "operator"},
		{&LegacySandbox{Tariffs: []LegacySandboxTariff{{1, 100}, {1, 50}}}, "tariff 1 given twice"},
		{&LegacySandbox{CancelFeePercent: &hundredOne}, "cancel_fee_percent"},
		{&LegacySandbox{StationCode: "stop_id"}, "needs a timetable"},
		{&LegacySandbox{Timetable: "/nonexistent/feed.zip"}, "timetable"},
		{&LegacySandbox{MaxBody: 2 << 20}, "max_body"},
	} {
		if err := harness.TryProvision(tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
	}
}
