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
	all := glue.NewMetrics(reg, "osdm_convert")
	m := &convertMetrics{
		exchanges: all.Counter("exchanges_total",
			"Legacy exchanges, by partner, legacy message kind and outcome (ok, replacement_proposal, or the NegativeReply code in lower case).",
			"partner", "kind", "outcome"),
		callDuration: all.Histogram("osdm_call_duration_seconds",
			"Duration of OSDM calls to partners, by partner, step and status (the HTTP status, or \"error\" when there was no answer).",
			prometheus.DefBuckets, "partner", "step", "status"),
	}
	if err := all.Err(); err != nil {
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
