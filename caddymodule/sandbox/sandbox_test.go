package sandbox

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// The sandbox answers by itself: next is never called.
func TestSandboxIsTerminal(t *testing.T) {
	s := &Sandbox{Operator: "1999"}
	provision(t, s)
	for _, path := range []string{"/_sandbox/bookings", "/not/osdm"} {
		rec := serveTerminal(t, s, http.MethodGet, path)
		if path == "/_sandbox/bookings" && (rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != "[]") {
			t.Errorf("%s: %d %s", path, rec.Code, rec.Body)
		}
		if path == "/not/osdm" && rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d", path, rec.Code)
		}
	}
}

// Handlers with equal settings (a config reload) share the bookings;
// other settings get a sandbox of their own.
func TestSandboxStateSurvivesReload(t *testing.T) {
	first := &Sandbox{Capacity: 7, Operator: "1998"}
	provision(t, first)
	reloaded := &Sandbox{Capacity: 7, Operator: "1998"}
	provision(t, reloaded)
	other := &Sandbox{Capacity: 8, Operator: "1998"}
	provision(t, other)
	if first.handler != reloaded.handler {
		t.Error("a reload with the same settings lost the sandbox")
	}
	if first.handler == other.handler {
		t.Error("other settings share the sandbox")
	}
	if got := first.handler.Config(); got.Capacity != 7 || got.Operator != "urn:uic:rics:1998" {
		t.Errorf("config %+v", got)
	}
}

func TestSandboxProvisionErrors(t *testing.T) {
	for _, s := range []*Sandbox{
		{Capacity: osdmsandbox.MaxCapacity + 1},
		{Operator: "x"},
		{ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "462", ReservationSystemID: 80, Operator: "80"}}},
		{Trains: []osdmsandbox.Schedule{{Train: "708", Departure: "25:00", Arrival: "11:00"}}},
		{Timetable: "testdata/no-such-feed"},
		{Timetable: "../../timetable/testdata/stopid"}, // codes in stop_id, read from stop_code
	} {
		if err := harness.TryProvision(s); err == nil {
			t.Errorf("%+v provisioned", s)
		}
	}
}

// TestSandboxValidate: the settings are checked as the sandbox checks them.
func TestSandboxValidate(t *testing.T) {
	if err := (&Sandbox{}).Validate(); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	if err := (&Sandbox{Capacity: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "capacity -1") {
		t.Fatalf("capacity -1: %v", err)
	}
	if err := (&Sandbox{UnknownTrains: []string{"no such train"}}).Validate(); err == nil || !strings.Contains(err.Error(), "unknown_train") {
		t.Fatalf("a bad unknown_train: %v", err)
	}
	three, none := 3, 0
	for _, c := range []struct {
		s    *Sandbox
		want string
	}{
		{&Sandbox{TimetableStationCode: "stop_id"}, "needs a timetable"},
		{&Sandbox{Timetable: "feed.zip", TimetableStationCode: "stop_name"}, "want stop_code or stop_id"},
		{&Sandbox{Timetable: "feed.zip", Trains: []osdmsandbox.Schedule{{Train: "708", Departure: "08:30", Arrival: "11:00"}}}, "train 708: with a timetable"},
		{&Sandbox{MaxChanges: &three}, "max_changes 3 must be 0..2"},
		{&Sandbox{MinTransfer: caddy.Duration(7 * time.Hour)}, "min_transfer 7h0m0s must be at most 6h0m0s"},
		{&Sandbox{MaxTrips: 51}, "max_trips"},
	} {
		if err := c.s.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
	if err := (&Sandbox{MaxChanges: &none, Timetable: "feed.zip"}).Validate(); err != nil {
		t.Errorf("max_changes 0: %v", err)
	}
}

// A timetable whose transfers.txt has a bad row stops the sandbox from
// provisioning, the error naming the feed, the file, the line and the
// field.
func TestSandboxBadTimetable(t *testing.T) {
	dir := t.TempDir()
	src := "../../osdmsandbox/testdata/journeys"
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "transfers.txt" {
			b = append(b, "BSL,BSL,7,\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	err = harness.TryProvision(&Sandbox{Timetable: dir})
	if err == nil || !strings.Contains(err.Error(), "timetable "+dir+": gtfs transfers.txt line 3, field transfer_type: \"7\"") {
		t.Fatalf("err = %v", err)
	}
}
