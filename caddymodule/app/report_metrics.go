package app

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/runner"
)

// statusMetrics are the app's gauges of what an operator watches: the
// settlement backlog and whether each store answers, updated by a
// background job every settle_interval (the dashboards and alerts of
// docs/operations.md read them).
type statusMetrics struct {
	pending *prometheus.GaugeVec
	storeUp *prometheus.GaugeVec
}

// registerStatusMetrics registers the app's gauges on reg.
func registerStatusMetrics(reg *prometheus.Registry) (*statusMetrics, error) {
	return modulekit.RegisterMetrics(reg, "osdm", func(all *modulekit.Metrics) *statusMetrics {
		return &statusMetrics{
			pending: all.Gauge("settlement_pending",
				"Work settlement still has to do (intents without an outcome, held bookings, unconfirmed exchanges), by direction, partner and kind, as of the last count (every settle_interval).",
				"direction", "partner", "kind"),
			storeUp: all.Gauge("store_up",
				"1 when the store answered the last check (a Redis that persists; an open bolt file), 0 when not, by store (its engine and where, without credentials).",
				"store"),
		}
	})
}

// statusJob counts the pending work and checks the stores, for the gauges.
func (a *App) statusJob(m *statusMetrics) runner.Job {
	return runner.Job{Name: "osdm: settlement backlog and store checks", Run: func(ctx context.Context) {
		pending, _ := a.pending(ctx)
		if ctx.Err() != nil {
			return
		}
		m.pending.Reset()
		for _, p := range pending {
			m.pending.WithLabelValues(p.Direction, p.Partner, p.Kind).Inc()
		}
		for _, s := range a.storeStatus(ctx) {
			up := 0.0
			if s.Check == "ok" && s.Open {
				up = 1
			}
			m.storeUp.WithLabelValues(s.Engine + " " + s.Where).Set(up)
		}
	}}
}
