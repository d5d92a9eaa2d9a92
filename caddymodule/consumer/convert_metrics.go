package consumer

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/converter"
)

// convertMetrics are osdm_convert's metrics.
type convertMetrics struct {
	callDuration *prometheus.HistogramVec // OSDM calls by partner, step, status class
	exchanges    *prometheus.CounterVec   // legacy exchanges by partner, kind, outcome
	settlements  *prometheus.CounterVec   // settled exchanges by partner, outcome, settled
}

// registerConvertMetrics registers the metrics on reg, or returns the ones
// already there (osdm_convert appears once per partner route).
func registerConvertMetrics(reg *prometheus.Registry) (*convertMetrics, error) {
	return modulekit.RegisterMetrics(reg, "osdm_convert", func(all *modulekit.Metrics) *convertMetrics {
		return &convertMetrics{
			callDuration: all.Histogram("osdm_call_duration_seconds",
				"Duration of OSDM calls to partners, by partner, step and status (the HTTP status, or \"error\" when there was no answer).",
				prometheus.DefBuckets, "partner", "step", "status"),
			exchanges: all.Counter("exchanges_total",
				"Legacy exchanges, by partner, legacy message kind and outcome (ok, replacement_proposal, or the NegativeReply code in lower case).",
				"partner", "kind", "outcome"),
			settlements: all.Counter("settlements_total",
				"Exchanges left without an outcome (a process that died, a partner that stopped answering) that settlement looked at, by partner, outcome now recorded, and settled (false: the partner's state is still not known; tried again later).",
				"partner", "outcome", "settled"),
		}
	})
}

// observeCall records one OSDM call; status 0 means no answer.
func (m *convertMetrics) observeCall(partner string, step converter.Step, status int, d time.Duration) {
	m.callDuration.WithLabelValues(partner, string(step), modulekit.StatusLabel(status)).Observe(d.Seconds())
}
