package ticketpdf

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
)

// BenchmarkRender renders one ticket of three passengers (Latin, Greek
// and Cyrillic): what a fulfilment answer costs with its document.
func BenchmarkRender(b *testing.B) {
	tk := sample()
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	var size int
	for b.Loop() {
		pdf, err := Render(tk)
		if err != nil {
			b.Fatal(err)
		}
		size = len(pdf)
	}
	stop()
	b.ReportMetric(float64(size), "bytes/doc")
}

// BenchmarkRenderCached is a read of a document rendered before: the
// hash of the ticket and a map look-up.
func BenchmarkRenderCached(b *testing.B) {
	c := NewCache(16)
	tk := sample()
	if _, err := c.Render(tk); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		if _, err := c.Render(tk); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}
