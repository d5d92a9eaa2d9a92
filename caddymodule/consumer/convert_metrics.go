package consumer

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/converter"
)

// convertMetrics are osdm_convert's metrics.
type convertMetrics struct {
	exchanges    *prometheus.CounterVec   // legacy exchanges by partner, kind, outcome
	callDuration *prometheus.HistogramVec // OSDM calls by partner, step, status class
}

// registerConvertMetrics registers the metrics on reg, or returns the ones
// already there (osdm_convert appears once per partner route).
func registerConvertMetrics(reg *prometheus.Registry) (*convertMetrics, error) {
	m := &convertMetrics{
		exchanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "caddy", Subsystem: "osdm_convert", Name: "exchanges_total",
			Help: "Legacy exchanges, by partner, legacy message kind and outcome (ok, replacement_proposal, or the NegativeReply code in lower case).",
		}, []string{"partner", "kind", "outcome"}),
		callDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "caddy", Subsystem: "osdm_convert", Name: "osdm_call_duration_seconds",
			Help:    "Duration of OSDM calls to partners, by partner, step and status (the HTTP status, or \"error\" when there was no answer).",
			Buckets: prometheus.DefBuckets,
		}, []string{"partner", "step", "status"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.exchanges, err = glue.RegisterOrReuse(reg, m.exchanges); err != nil {
		return nil, err
	}
	if m.callDuration, err = glue.RegisterOrReuse(reg, m.callDuration); err != nil {
		return nil, err
	}
	return m, nil
}

// observeCall records one OSDM call; status 0 means no answer.
func (m *convertMetrics) observeCall(partner string, step converter.Step, status int, d time.Duration) {
	label := "error"
	if status > 0 {
		label = statusLabel(status)
	}
	m.callDuration.WithLabelValues(partner, string(step), label).Observe(d.Seconds())
}

// statusLabels are the status label values of the HTTP status codes, made
// once: strconv.Itoa of a code >= 100 allocates on every call.
var statusLabels = func() (l [600]string) {
	for code := 100; code < len(l); code++ {
		l[code] = strconv.Itoa(code)
	}
	return l
}()

// statusLabel is the metric label of an HTTP status code.
func statusLabel(code int) string {
	if code >= 100 && code < len(statusLabels) {
		return statusLabels[code]
	}
	return strconv.Itoa(code)
}
