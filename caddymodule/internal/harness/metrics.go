package harness

import (
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// CounterValue is the value of c.
func CounterValue(t testing.TB, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.Counter.GetValue()
}

// MetricValue is the value of series (name{labels} as Prometheus's text
// format writes it) in page, 0 if page has no such series.
func MetricValue(t testing.TB, page, series string) float64 {
	t.Helper()
	for line := range strings.Lines(page) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), series+" ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err != nil {
			t.Fatalf("%s: %v", series, err)
		}
		return v
	}
	return 0
}
