package osdmsandbox_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// BenchmarkSearchOffers measures POST /offers through the handler: two
// passengers, a day train, both classes (two offers stored per search).
func BenchmarkSearchOffers(b *testing.B) {
	search := offerSearch(b)
	b.ReportAllocs()
	for b.Loop() {
		if rec := search(); rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkSearchOffersParallel is the same from all CPUs at once, through
// the one mutex.
func BenchmarkSearchOffersParallel(b *testing.B) {
	search := offerSearch(b)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if rec := search(); rec.Code != http.StatusOK {
				b.Errorf("%d %s", rec.Code, rec.Body)
				return
			}
		}
	})
}

// offerSearch returns a function that POSTs the benchmarks' offer search
// to a new sandbox, safe to call from several goroutines.
func offerSearch(b *testing.B) func() *httptest.ResponseRecorder {
	sb, err := osdmsandbox.New(osdmsandbox.Config{})
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(offerRequest("708", nil, adult("p1"), child("p2")))
	return func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/offers", bytes.NewReader(body))
		req.Header.Set("Content-Type", osdm.ContentTypeJSON)
		rec := httptest.NewRecorder()
		sb.ServeHTTP(rec, req)
		return rec
	}
}
