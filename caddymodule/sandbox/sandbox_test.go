package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

func provisionSandbox(t *testing.T, s *Sandbox) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := s.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Cleanup() })
}

// The sandbox answers by itself: next is never called.
func TestSandboxIsTerminal(t *testing.T) {
	s := &Sandbox{Operator: "1999"}
	provisionSandbox(t, s)
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error {
		t.Error("next was called")
		return nil
	})
	for _, path := range []string{"/_sandbox/bookings", "/not/osdm"} {
		rec := httptest.NewRecorder()
		if err := s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil), next); err != nil {
			t.Fatal(err)
		}
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
	provisionSandbox(t, first)
	reloaded := &Sandbox{Capacity: 7, Operator: "1998"}
	provisionSandbox(t, reloaded)
	other := &Sandbox{Capacity: 8, Operator: "1998"}
	provisionSandbox(t, other)
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
}
