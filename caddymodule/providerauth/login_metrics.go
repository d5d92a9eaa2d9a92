package providerauth

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

// loginClientLabel is the client metric label: configured clients only,
// so that made-up subjects cannot grow the label set.
func loginClientLabel(client string) string {
	if client == "" {
		return "unknown"
	}
	return client
}

// loginOutcomeGranted is the outcome label of a granted token request;
// refusals carry their tokenauth.RefusalReason.
const loginOutcomeGranted = "granted"

// loginMetrics are osdm_login's metrics.
type loginMetrics struct {
	requests *prometheus.CounterVec // token requests by issuer, client, outcome
}

// loginReplayEntriesDesc describes the size of each memory replay store.
var loginReplayEntriesDesc = prometheus.NewDesc("caddy_osdm_login_replay_store_entries",
	"Entries in the memory replay store of each login service issuer.", []string{"issuer"}, nil)

// loginReplayCollector reports the size of every memory replay store in
// use, whichever configuration loaded it (the stores outlive a
// configuration).
type loginReplayCollector struct{}

func (loginReplayCollector) Describe(ch chan<- *prometheus.Desc) { ch <- loginReplayEntriesDesc }

func (loginReplayCollector) Collect(ch chan<- prometheus.Metric) {
	loginMemoryReplayStores.Range(func(p *pooledMemoryReplay) bool {
		ch <- prometheus.MustNewConstMetric(loginReplayEntriesDesc, prometheus.GaugeValue, float64(p.Len()), p.issuer)
		return true
	})
}

// registerLoginMetrics registers the metrics on reg, or returns the ones
// already there (a second osdm_login in the same configuration).
func registerLoginMetrics(reg *prometheus.Registry) (*loginMetrics, error) {
	return modulekit.RegisterMetrics(reg, "osdm_login", func(all *modulekit.Metrics) *loginMetrics {
		all.Collector(loginReplayCollector{})
		return &loginMetrics{
			requests: all.Counter("token_requests_total",
				"Token requests by login service (its issuer), configured client (or unknown) and outcome (granted or the refusal reason).",
				"issuer", "client", "outcome"),
		}
	})
}
