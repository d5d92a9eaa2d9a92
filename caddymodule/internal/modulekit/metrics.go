package modulekit

import (
	"errors"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// RegisterOrReuse registers c on reg, or returns the collector of the same
// description already there: a handler appears once per route, and a
// reload registers its metrics again on the same registry.
func RegisterOrReuse[C prometheus.Collector](reg *prometheus.Registry, c C) (C, error) {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, err
	}
	return c, nil
}

// Metrics makes one module's metrics, caddy_<subsystem>_<name>, and
// registers them on a configuration's registry with RegisterOrReuse. A
// nil registry registers nothing (a handler provisioned on its own).
// After a failure it registers nothing more. Every module makes its
// metrics with RegisterMetrics, into a struct of its own that its
// handlers hold: no package-level collector.
type Metrics struct {
	reg       *prometheus.Registry
	subsystem string
	err       error
}

// newMetrics makes the metrics of subsystem (the module's name) on reg.
func newMetrics(reg *prometheus.Registry, subsystem string) *Metrics {
	return &Metrics{reg: reg, subsystem: subsystem}
}

// Counter is the counter vector name with labels.
func (m *Metrics) Counter(name, help string, labels ...string) *prometheus.CounterVec {
	return register(m, prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: m.subsystem, Name: name, Help: help,
	}, labels))
}

// Histogram is the histogram vector name with buckets and labels.
func (m *Metrics) Histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	return register(m, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "caddy", Subsystem: m.subsystem, Name: name, Help: help, Buckets: buckets,
	}, labels))
}

// Gauge is the gauge vector name with labels.
func (m *Metrics) Gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	return register(m, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Namespace: "caddy", Subsystem: m.subsystem, Name: name, Help: help,
	}, labels))
}

// Collector registers c, a collector of its own making (one that reads
// a value when scraped), and returns the one registered.
func (m *Metrics) Collector(c prometheus.Collector) prometheus.Collector {
	return register(m, c)
}

// RegisterMetrics makes a module's metrics with build, on reg under
// subsystem, and returns them, or the first registration that failed.
func RegisterMetrics[T any](reg *prometheus.Registry, subsystem string, build func(all *Metrics) T) (T, error) {
	all := newMetrics(reg, subsystem)
	m := build(all)
	if all.err != nil {
		var none T
		return none, all.err
	}
	return m, nil
}

// register registers c on m's registry unless there is none or one
// failed before.
func register[C prometheus.Collector](m *Metrics, c C) C {
	if m.reg == nil || m.err != nil {
		return c
	}
	c, m.err = RegisterOrReuse(m.reg, c)
	return c
}

// StatusLabel is the metric label of an HTTP status: the code, or "error"
// when there was no answer (0).
func StatusLabel(code int) string {
	if code >= 100 && code < len(statusLabels) {
		return statusLabels[code]
	}
	if code <= 0 {
		return "error"
	}
	return strconv.Itoa(code)
}

// statusLabels are the labels of the HTTP status codes, made once:
// strconv.Itoa of a code >= 100 allocates on every call.
var statusLabels = func() (l [600]string) {
	for code := 100; code < len(l); code++ {
		l[code] = strconv.Itoa(code)
	}
	return l
}()
