package osdmlegacy

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
)

// BenchmarkReadOfferRequest measures the strict reader of an offer search
// (the JSON tree, then the OfferCollectionRequest read from it) on a
// trip search naming one train and on a trip specification.
func BenchmarkReadOfferRequest(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"trip-search", namedTrainSearch},
		{"trip-specification", offerSearchSeeds[2]},
	} {
		b.Run(c.name, func(b *testing.B) {
			body := []byte(c.body)
			if _, p := readOfferRequest(body); p != nil {
				b.Fatal(p.Detail)
			}
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				if _, p := readOfferRequest(body); p != nil {
					b.Fatal(p.Detail)
				}
			}
			stop()
		})
	}
}
