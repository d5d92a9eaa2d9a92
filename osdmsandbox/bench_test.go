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
	sb, err := osdmsandbox.New(osdmsandbox.Config{})
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(offerRequest("708", nil, adult("p1"), child("p2")))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/offers", bytes.NewReader(body))
		req.Header.Set("Content-Type", osdm.ContentTypeJSON)
		rec := httptest.NewRecorder()
		sb.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkSearchOffersParallel is the same from all CPUs at once, through
// the one mutex.
func BenchmarkSearchOffersParallel(b *testing.B) {
	sb, err := osdmsandbox.New(osdmsandbox.Config{})
	if err != nil {
		b.Fatal(err)
	}
	body, _ := json.Marshal(offerRequest("708", nil, adult("p1"), child("p2")))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			req := httptest.NewRequest(http.MethodPost, "/offers", bytes.NewReader(body))
			req.Header.Set("Content-Type", osdm.ContentTypeJSON)
			rec := httptest.NewRecorder()
			sb.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Errorf("%d %s", rec.Code, rec.Body)
				return
			}
		}
	})
}
