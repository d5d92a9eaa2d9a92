package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestConvertLogLevelsAndAccessLogFields: with Caddy's log at INFO, a
// successful AvailabilityRequest writes no "legacy exchange" line (it is
// at DEBUG), a booking and a NegativeReply do; and the legacy site's
// access log line of every exchange carries the exchange's fields.
func TestConvertLogLevelsAndAccessLogFields(t *testing.T) {
	dir := t.TempDir()
	info, access := filepath.Join(dir, "info.log"), filepath.Join(dir, "access.log")
	c := startExampleChainWith(t, chainOptions{edit: func(cf string) string {
		return strings.NewReplacer(
			exampleLogBlock, exampleLog(info, "INFO"),
			"http://:8080 {", fmt.Sprintf("http://:8080 {\n\tlog {\n\t\toutput file %s\n\t\tformat json\n\t}", access),
		).Replace(cf)
	}})
	seats := secondClassSeats(legacy.Tariff{Code: 1, Count: 1})
	status, r := c.send(t, "alpine", legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "LOG-avail"},
		Journey: journeyOn("9203"), Places: seats})
	must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
	status, r = c.send(t, "alpine", legacy.XML, &legacy.BookingRequest{Header: legacy.Header{MessageID: "LOG-book"},
		Journey: journeyOn("9203"), Places: seats})
	booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	status, r = c.send(t, "alpine", legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "LOG-none"},
		Journey: journeyOn("0000"), Places: seats})
	if _, ok := r.(*legacy.NegativeReply); !ok {
		t.Fatalf("an unknown train: %d %+v, want a NegativeReply", status, r)
	}
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}

	exchanges := map[string]map[string]any{}
	for _, l := range harness.JSONLines[map[string]any](t, info) {
		if l["msg"] == "legacy exchange" {
			exchanges[fmt.Sprint(l["message_id"])] = l
		}
	}
	if l, ok := exchanges["LOG-avail"]; ok {
		t.Errorf("a successful AvailabilityRequest logged at %v: %v", l["level"], l)
	}
	noneOutcome := fmt.Sprint(exchangesOutcome(t, access, "LOG-none"))
	if noneOutcome == "ok" {
		t.Errorf("the access log gives the unknown train's exchange outcome %q", noneOutcome)
	}
	for id, want := range map[string]string{"LOG-book": "ok", "LOG-none": noneOutcome} {
		l, ok := exchanges[id]
		if !ok {
			t.Errorf("no INFO line for %s; lines: %v", id, exchanges)
			continue
		}
		if l["level"] != "info" || l["outcome"] != want || l["status"] == nil || l["osdm_calls"] == nil {
			t.Errorf("%s: %v", id, l)
		}
	}
	if l := exchanges["LOG-book"]; l != nil && l["booking_ref"] != booked.BookingRef {
		t.Errorf("booking line without its booking_ref %q: %v", booked.BookingRef, l)
	}

	seen := map[string]bool{}
	for _, l := range harness.JSONLines[map[string]any](t, access) {
		id, _ := l["message_id"].(string)
		if !strings.HasPrefix(id, "LOG-") {
			continue
		}
		seen[id] = true
		if id == "LOG-avail" {
			line, _ := json.Marshal(l)
			t.Logf("access log line of a search: %s", line)
		}
		if l["partner"] != "alpine" || l["outcome"] == nil || l["kind"] == nil || l["resent"] != false {
			t.Errorf("access log line of %s lacks the exchange's fields: %v", id, l)
		}
		calls, _ := l["osdm_calls"].([]any)
		if len(calls) == 0 {
			t.Errorf("access log line of %s has no osdm_calls: %v", id, l)
		}
		if _, ok := l["request"]; !ok {
			t.Errorf("not Caddy's access log line: %v", l)
		}
	}
	for _, id := range []string{"LOG-avail", "LOG-book", "LOG-none"} {
		if !seen[id] {
			t.Errorf("no access log line with message_id %s", id)
		}
	}
}

// exchangesOutcome is the outcome the access log gives an exchange.
func exchangesOutcome(t *testing.T, access, id string) any {
	t.Helper()
	for _, l := range harness.JSONLines[map[string]any](t, access) {
		if l["message_id"] == id {
			return l["outcome"]
		}
	}
	return "(no access log line for " + id + ")"
}
