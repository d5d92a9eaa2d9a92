package provider

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
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

var (
	loginRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "osdm_login", Name: "token_requests_total",
		Help: "Token requests by login service (its issuer), configured client (or unknown) and outcome (granted or the refusal reason).",
	}, []string{"issuer", "client", "outcome"})
	loginReplayEntriesDesc = prometheus.NewDesc("caddy_osdm_login_replay_store_entries",
		"Entries in the memory replay store of each login service issuer.", []string{"issuer"}, nil)
)

// loginReplayCollector reports the size of every memory replay store in
// use, whichever configuration loaded it.
type loginReplayCollector struct{}

func (loginReplayCollector) Describe(ch chan<- *prometheus.Desc) { ch <- loginReplayEntriesDesc }

func (loginReplayCollector) Collect(ch chan<- prometheus.Metric) {
	loginMemoryReplayStores.Range(func(p *pooledMemoryReplay) bool {
		ch <- prometheus.MustNewConstMetric(loginReplayEntriesDesc, prometheus.GaugeValue, float64(p.Len()), p.issuer)
		return true
	})
}

// registerLoginMetrics adds the login metrics to a configuration's
// registry; a second osdm_login in the same configuration finds them there.
// Both collectors are process-wide (the replay stores outlive a
// configuration), so the one already registered is the same.
func registerLoginMetrics(reg *prometheus.Registry) error {
	if _, err := glue.RegisterOrReuse(reg, loginRequests); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	if _, err := glue.RegisterOrReuse(reg, loginReplayCollector{}); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	return nil
}
