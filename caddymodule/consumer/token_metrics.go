package consumer

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// tokenMetrics are osdm_token's metrics, labelled by partner.
type tokenMetrics struct {
	requests        *prometheus.CounterVec   // token requests by result: ok, failed
	hits            *prometheus.CounterVec   // tokens served from the cache
	refreshDuration *prometheus.HistogramVec // duration of login calls
}

// registerTokenMetrics registers the metrics on reg, or returns the ones
// already there (osdm_token appears once per partner route).
func registerTokenMetrics(reg *prometheus.Registry) (*tokenMetrics, error) {
	return modulekit.RegisterMetrics(reg, "osdm_token", func(all *modulekit.Metrics) *tokenMetrics {
		return &tokenMetrics{
			requests: all.Counter("requests_total",
				"Token requests to partner login services, by partner and result (ok, failed).",
				"partner", "result"),
			hits: all.Counter("cache_hits_total",
				"Access tokens served from the cache without waiting for a login, by partner.",
				"partner"),
			refreshDuration: all.Histogram("refresh_duration_seconds",
				"Duration of token requests to partner login services, by partner.",
				prometheus.DefBuckets, "partner"),
		}
	})
}

// observer returns the cache observer counting into m for partner.
func (m *tokenMetrics) observer(partner string) tokenauth.CacheObserver {
	return &tokenObserver{
		hits:     m.hits.WithLabelValues(partner),
		ok:       m.requests.WithLabelValues(partner, "ok"),
		failed:   m.requests.WithLabelValues(partner, "failed"),
		duration: m.refreshDuration.WithLabelValues(partner),
	}
}

// tokenObserver holds the curried metrics of one partner, so that the
// cache hit path does no label lookup.
type tokenObserver struct {
	hits, ok, failed prometheus.Counter
	duration         prometheus.Observer
}

func (o *tokenObserver) CacheHit() { o.hits.Inc() }

func (o *tokenObserver) LoginDone(d time.Duration, err error) {
	o.duration.Observe(d.Seconds())
	if err != nil {
		o.failed.Inc()
		return
	}
	o.ok.Inc()
}

// Interface guard
var _ tokenauth.CacheObserver = (*tokenObserver)(nil)
