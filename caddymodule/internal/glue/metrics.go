package glue

import (
	"errors"

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
// After a failure it registers nothing more; Err returns the failure.
type Metrics struct {
	reg       *prometheus.Registry
	subsystem string
	err       error
}

// NewMetrics makes the metrics of subsystem (the module's name) on reg.
func NewMetrics(reg *prometheus.Registry, subsystem string) *Metrics {
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

// Err is the first registration that failed, or nil.
func (m *Metrics) Err() error { return m.err }

// register registers c on m's registry unless there is none or one
// failed before.
func register[C prometheus.Collector](m *Metrics, c C) C {
	if m.reg == nil || m.err != nil {
		return c
	}
	c, m.err = RegisterOrReuse(m.reg, c)
	return c
}
