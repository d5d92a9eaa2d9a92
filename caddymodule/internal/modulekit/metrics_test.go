package modulekit

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestRegisterOrReuse: registering a collector again, as a second handler
// or a reload does, returns the one registered first.
func TestRegisterOrReuse(t *testing.T) {
	reg := prometheus.NewRegistry()
	opts := prometheus.CounterOpts{Name: "glue_test_total", Help: "test"}
	first, err := RegisterOrReuse(reg, prometheus.NewCounter(opts))
	if err != nil {
		t.Fatal(err)
	}
	again, err := RegisterOrReuse(reg, prometheus.NewCounter(opts))
	if err != nil || again != first {
		t.Fatalf("second registration: %v, same collector %v", err, again == first)
	}
	if _, err := RegisterOrReuse(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "glue_test_total", Help: "other"})); err == nil {
		t.Error("a different collector of the same name was accepted")
	}
}

// TestMetrics: a module's metrics are named caddy_<subsystem>_<name>,
// registered again as the ones already there (a collector of its own
// making too), and the first failure is returned with nothing registered
// after it.
func TestMetrics(t *testing.T) {
	type set struct {
		c *prometheus.CounterVec
		h *prometheus.HistogramVec
		g prometheus.Collector
	}
	gauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "glue_test_own", Help: "Own."})
	build := func(all *Metrics) set {
		return set{
			c: all.Counter("calls_total", "Calls.", "partner"),
			h: all.Histogram("call_seconds", "Call time.", []float64{1, 2}, "partner"),
			g: all.Collector(gauge),
		}
	}
	reg := prometheus.NewRegistry()
	first, err := RegisterMetrics(reg, "glue_test", build)
	if err != nil {
		t.Fatal(err)
	}
	again, err := RegisterMetrics(reg, "glue_test", build)
	if err != nil || again.c != first.c || again.h != first.h || again.g != first.g {
		t.Errorf("a second registration made new metrics: %v", err)
	}
	first.c.WithLabelValues("p").Inc()
	families, err := reg.Gather()
	if err != nil || len(families) != 2 || families[0].GetName() != "caddy_glue_test_calls_total" || families[1].GetName() != "glue_test_own" {
		t.Fatalf("gathered %v, %v", families, err)
	}
	var later *prometheus.CounterVec
	_, err = RegisterMetrics(reg, "glue_test", func(all *Metrics) int {
		all.Counter("calls_total", "Other help.", "partner")
		later = all.Counter("other_total", "Other.", "partner")
		return 0
	})
	if err == nil {
		t.Error("a clashing metric was accepted")
	}
	if reg.Unregister(later) {
		t.Error("registered after a failure")
	}
	none, err := RegisterMetrics(nil, "glue_test", build)
	if err != nil || none.c == nil {
		t.Error("no registry: no metric or an error")
	}
}

// TestRegisterMetrics: the module's metrics come back made, or the
// registration that failed does.
func TestRegisterMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	counter := func(help string) func(all *Metrics) *prometheus.CounterVec {
		return func(all *Metrics) *prometheus.CounterVec { return all.Counter("calls_total", help, "partner") }
	}
	c, err := RegisterMetrics(reg, "glue_test", counter("Calls."))
	if err != nil || c == nil {
		t.Fatalf("first: %v, %v", c, err)
	}
	if again, err := RegisterMetrics(reg, "glue_test", counter("Calls.")); err != nil || again != c {
		t.Fatalf("again: same %v, %v", again == c, err)
	}
	if clash, err := RegisterMetrics(reg, "glue_test", counter("Other help.")); err == nil || clash != nil {
		t.Fatalf("clash: %v, %v", clash, err)
	}
}

// TestStatusLabel: a status is its code; no answer is "error".
func TestStatusLabel(t *testing.T) {
	for code, want := range map[int]string{0: "error", 200: "200", 503: "503", 599: "599", 600: "600", 42: "42"} {
		if got := StatusLabel(code); got != want {
			t.Errorf("StatusLabel(%d) = %q, want %q", code, got, want)
		}
	}
}
