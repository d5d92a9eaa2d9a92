package legacyprovider

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

// legacyMetrics are osdm_legacy's metrics.
type legacyMetrics struct {
	calls       *prometheus.CounterVec   // OSDM calls by partner, operation, outcome
	messages    *prometheus.CounterVec   // legacy messages by partner, kind, outcome
	latency     *prometheus.HistogramVec // legacy round trips by partner, HTTP status
	fanOut      *prometheus.HistogramVec // legacy messages planned per offer search
	storeErrors *prometheus.CounterVec   // failed store operations by partner
	settled     *prometheus.CounterVec   // background settlement results by partner, what
}

// registerLegacyMetrics registers the metrics on reg, or returns the ones
// already there (osdm_legacy may appear once per legacy system).
func registerLegacyMetrics(reg *prometheus.Registry) (*legacyMetrics, error) {
	return modulekit.RegisterMetrics(reg, "osdm_legacy", func(all *modulekit.Metrics) *legacyMetrics {
		return &legacyMetrics{
			calls: all.Counter("calls_total",
				"OSDM calls served, by partner, operation (\"POST /offers\", ...) and outcome (ok, or the problem code in lower case).",
				"partner", "operation", "outcome"),
			messages: all.Counter("legacy_messages_total",
				"Legacy messages sent, by partner, message kind and outcome (the reply kind in lower case, negativereply:<code> for a NegativeReply, down, slow, garbage).",
				"partner", "kind", "outcome"),
			latency: all.Histogram("legacy_duration_seconds",
				"Duration of legacy round trips through the route, by partner and HTTP status (\"error\" when there was no answer).",
				prometheus.DefBuckets, "partner", "status"),
			fanOut: all.Histogram("search_fanout",
				"Legacy messages per offer search (trains x classes x service codes), by partner.",
				[]float64{1, 2, 4, 8, 16, 32, 64}, "partner"),
			storeErrors: all.Counter("store_errors_total",
				"Store operations that failed, by partner.",
				"partner"),
			settled: all.Counter("settlement_total",
				"Background settlement work, by partner and what (settled, released, unresolved, errors).",
				"partner", "what"),
		}
	})
}

// observeAnswer records one OSDM call.
func (m *legacyMetrics) observeAnswer(partner string, a *osdmlegacy.Answer) {
	m.calls.WithLabelValues(partner, a.Operation, strings.ToLower(a.Outcome)).Inc()
	for _, msg := range a.Messages {
		m.messages.WithLabelValues(partner, string(msg.Kind), strings.ToLower(msg.Outcome)).Inc()
	}
	if a.FanOut > 0 {
		m.fanOut.WithLabelValues(partner).Observe(float64(a.FanOut))
	}
	if a.StoreErrors > 0 {
		m.storeErrors.WithLabelValues(partner).Add(float64(a.StoreErrors))
	}
}

// observeLegacy records one legacy round trip; status 0 means no answer.
func (m *legacyMetrics) observeLegacy(partner string, status int, d time.Duration) {
	m.latency.WithLabelValues(partner, modulekit.StatusLabel(status)).Observe(d.Seconds())
}

// observeSettle records one settlement run.
func (m *legacyMetrics) observeSettle(partner string, rep osdmlegacy.SettleReport) {
	for what, n := range map[string]int{"settled": rep.Settled, "released": rep.Released, "unresolved": rep.Unresolved, "errors": rep.Errors} {
		if n > 0 {
			m.settled.WithLabelValues(partner, what).Add(float64(n))
		}
	}
}
