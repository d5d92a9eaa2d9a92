package legacyprovider

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

// The metrics of an OSDM call: the call by operation and outcome, each
// legacy message by kind and outcome, the search's fan-out, store errors;
// a second registration (another osdm_legacy route) reuses them.
func TestOSDMLegacyMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := registerLegacyMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := registerLegacyMetrics(reg); err != nil || again.calls != m.calls {
		t.Fatalf("second registration: %v", err)
	}
	m.observeAnswer("p", &osdmlegacy.Answer{
		Operation: "POST /offers", Outcome: "SERVICE_UNAVAILABLE", FanOut: 3, StoreErrors: 1,
		Messages: []osdmlegacy.MessageRecord{
			{Kind: legacy.KindAvailabilityRequest, Outcome: "AvailabilityReply"},
			{Kind: legacy.KindAvailabilityRequest, Outcome: "NegativeReply:NO_AVAILABILITY"},
			{Kind: legacy.KindAvailabilityRequest, Outcome: "down"},
		},
	})
	m.observeLegacy("p", 200, 20*time.Millisecond)
	m.observeLegacy("p", 0, time.Second)
	counter := func(c prometheus.Counter) float64 {
		var out dto.Metric
		if err := c.Write(&out); err != nil {
			t.Fatal(err)
		}
		return out.GetCounter().GetValue()
	}
	checks := []struct {
		c    prometheus.Counter
		want float64
	}{
		{m.calls.WithLabelValues("p", "POST /offers", "service_unavailable"), 1},
		{m.messages.WithLabelValues("p", "AvailabilityRequest", "availabilityreply"), 1},
		{m.messages.WithLabelValues("p", "AvailabilityRequest", "negativereply:no_availability"), 1},
		{m.messages.WithLabelValues("p", "AvailabilityRequest", "down"), 1},
		{m.storeErrors.WithLabelValues("p"), 1},
	}
	for i, c := range checks {
		if got := counter(c.c); got != c.want {
			t.Errorf("check %d: %v, want %v", i, got, c.want)
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	series := map[string]int{}
	for _, f := range families {
		series[f.GetName()] = len(f.GetMetric())
	}
	if series["caddy_osdm_legacy_legacy_duration_seconds"] != 2 || series["caddy_osdm_legacy_search_fanout"] != 1 {
		t.Errorf("series %v, want 2 latency (200, error) and 1 fan-out", series)
	}
}
