package consumer

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
)

// benchPartner is the partner behind osdm_token in BenchmarkConvertExchange:
// it does what the osdm transport does to the request (the bearer's
// headers on a copy), reads the body and answers a recorded answer with the
// headers reverse_proxy copies from a partner.
type benchPartner struct{ answer []byte }

func (p *benchPartner) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	r = subrequest.WithBearerHeaders(r)
	if r.Header.Get("Authenticate") == "" {
		return caddyhttp.Error(http.StatusUnauthorized, nil)
	}
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(p.answer)))
	h.Set("Date", "Sat, 21 Nov 2026 10:00:00 GMT")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(p.answer)
	return err
}

// BenchmarkConvertExchange is scenario B's front path without the network:
// osdm_convert's whole ServeHTTP on the golden AvailabilityRequest (a new
// messageId each time, as bench/run.sh sends), its OSDM call through
// osdm_token (a cached token) to a next that answers the golden offer
// search answer, compacted, and the legacy reply written. What it
// allocates above converter.BenchmarkAvailabilityExchange is the glue's.
func BenchmarkConvertExchange(b *testing.B) {
	const dir = "../../converter/testdata/golden/availability/"
	request, err := os.ReadFile(dir + "request.xml")
	if err != nil {
		b.Fatal(err)
	}
	pretty, err := os.ReadFile(dir + "offers.json")
	if err != nil {
		b.Fatal(err)
	}
	var answer bytes.Buffer
	if err := json.Compact(&answer, pretty); err != nil {
		b.Fatal(err)
	}
	// The golden files' clock: the departure is still ahead.
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	c := convUnit(b, func(c *Convert) { c.now = func() time.Time { return now } })
	tok := newTokUnit(b, nil)
	partner := &benchPartner{answer: answer.Bytes()}
	// Caddy's default level: a search's exchange line is DEBUG, not written.
	info := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(io.Discard), zapcore.InfoLevel))
	c.logger, tok.h.logger = info, info
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return tok.h.ServeHTTP(w, r, partner)
	})
	const id = `messageId="A-20261201-0001"`
	if !bytes.Contains(request, []byte(id)) {
		b.Fatal("the golden request's messageId moved")
	}
	exchange := func(n int) {
		body := strings.Replace(string(request), id, `messageId="BENCH-`+strconv.Itoa(n)+`"`, 1)
		// The access log's extra fields, as Caddy's server gives every request.
		ctx := context.WithValue(context.Background(), caddyhttp.ExtraLogFieldsCtxKey, new(caddyhttp.ExtraLogFields))
		// The request as Caddy's server hands it over (httptest.NewRequest
		// would add its own parsing's garbage to every exchange).
		r := (&http.Request{
			Method: http.MethodPost, URL: &url.URL{Path: "/partners/unit"}, RequestURI: "/partners/unit",
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Host: "front.example",
			Header: http.Header{
				"Content-Type":    {"application/xml"},
				"Accept-Encoding": {"gzip"},
				"Authorization":   {"Basic bGVnYWN5OnNlY3JldA=="},
			},
			Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)),
		}).WithContext(context.WithValue(ctx, caddy.ReplacerCtxKey, caddy.NewReplacer()))
		rec := httptest.NewRecorder()
		if err := c.ServeHTTP(rec, r, next); err != nil {
			b.Fatal(err)
		}
		if rec.Code != http.StatusOK || !bytes.Contains(rec.Body.Bytes(), []byte("<Offer")) {
			b.Fatalf("reply %d %s", rec.Code, rec.Body)
		}
	}
	exchange(-1) // the login, the pools
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	n := 0
	for b.Loop() {
		exchange(n)
		n++
	}
	stop()
}
