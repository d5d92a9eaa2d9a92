package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// tokUnit is an osdm_token handler provisioned against a stub login
// service that numbers its tokens (at-1, at-2...) or fails.
type tokUnit struct {
	h      *Token
	logins atomic.Int64
	fail   atomic.Bool
}

func newTokUnit(t testing.TB, edit func(*Token)) *tokUnit {
	t.Helper()
	u := &tokUnit{}
	login := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if u.fail.Load() {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"invalid_client","error_description":"unknown kid"}`)
			return
		}
		n := u.logins.Add(1)
		json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("at-%d", n), "token_type": "Bearer", "expires_in": 600})
	}))
	t.Cleanup(login.Close)
	key := harness.ECKey(t)
	keyFile := filepath.Join(t.TempDir(), "k.pem")
	harness.WriteKey(t, keyFile, key)
	u.h = &Token{TokenURL: login.URL + "/token", KeyFile: keyFile, KeyID: "k1", Subject: "me", Issuer: "https://me.example", Partner: "unit-" + t.Name()}
	if edit != nil {
		edit(u.h)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := u.h.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.h.Cleanup() })
	return u
}

// partnerStub is a next handler acting as the partner: it refuses the
// tokens in refuse with 401 and records what it got.
type partnerStub struct {
	refuse  map[string]bool
	headers []string
	bodies  []string
	lengths []int64
}

func (p *partnerStub) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	r = subrequest.WithBearerHeaders(r) // what the osdm transport sends
	auth := r.Header.Get("Authenticate")
	body, _ := io.ReadAll(r.Body)
	p.headers = append(p.headers, auth)
	p.bodies = append(p.bodies, string(body))
	p.lengths = append(p.lengths, r.ContentLength)
	if p.refuse[strings.TrimPrefix(auth, "Bearer ")] {
		w.Header().Set("X-Refused", "1")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "refused")
		return nil
	}
	w.Header().Set("X-Ok", "1")
	w.WriteHeader(http.StatusCreated)
	io.WriteString(w, "created:"+string(body))
	return nil
}

func TestTokenHandlerAttachesTokenWithoutTouchingTheRequest(t *testing.T) {
	u := newTokUnit(t, nil)
	next := &partnerStub{}
	r := httptest.NewRequest(http.MethodPost, "/offers", strings.NewReader(`{"a":1}`))
	w := httptest.NewRecorder()
	if err := u.h.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusCreated || w.Body.String() != `created:{"a":1}` || w.Header().Get("X-Ok") != "1" {
		t.Fatalf("client got %d %q %v", w.Code, w.Body, w.Header())
	}
	if next.headers[0] != "Bearer at-1" || next.lengths[0] != 7 {
		t.Fatalf("partner got Authenticate %q, Content-Length %d", next.headers[0], next.lengths[0])
	}
	if len(r.Header) != 0 {
		t.Fatalf("the incoming request was modified: %v", r.Header)
	}
}

func TestTokenHandlerReplaysOnceAfter401(t *testing.T) {
	u := newTokUnit(t, nil)
	next := &partnerStub{refuse: map[string]bool{"at-1": true}}
	ctx := context.Background()
	r := httptest.NewRequest(http.MethodPost, "/bookings", strings.NewReader("payload")).WithContext(ctx)
	w := httptest.NewRecorder()
	if err := u.h.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusCreated || w.Body.String() != "created:payload" {
		t.Fatalf("client got %d %q", w.Code, w.Body)
	}
	if w.Header().Get("X-Refused") != "" {
		t.Fatal("a header of the swallowed 401 reached the client")
	}
	if got := strings.Join(next.headers, ","); got != "Bearer at-1,Bearer at-2" {
		t.Fatalf("partner got tokens %s, want at-1 then at-2", got)
	}
	if next.bodies[0] != "payload" || next.bodies[1] != "payload" || next.lengths[1] != 7 {
		t.Fatalf("replayed bodies %q lengths %v", next.bodies, next.lengths)
	}

	// Refused again: the second 401 goes to the client, no third attempt.
	next = &partnerStub{refuse: map[string]bool{"at-2": true, "at-3": true}}
	w = httptest.NewRecorder()
	if err := u.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/x", nil), next); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusUnauthorized || len(next.headers) != 2 || u.logins.Load() != 3 {
		t.Fatalf("got %d after %d attempts and %d logins; want 401, 2, 3", w.Code, len(next.headers), u.logins.Load())
	}
}

func TestTokenHandlerLargeBodyIsNotReplayed(t *testing.T) {
	u := newTokUnit(t, func(h *Token) { h.MaxReplayBody = 4 })
	next := &partnerStub{refuse: map[string]bool{"at-1": true}}
	w := httptest.NewRecorder()
	if err := u.h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/x", strings.NewReader("12345")), next); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusUnauthorized || len(next.bodies) != 1 || next.bodies[0] != "12345" {
		t.Fatalf("got %d with bodies %q; want the 401 and the whole body sent once", w.Code, next.bodies)
	}
}

func TestTokenHandlerLoginFailureIs502(t *testing.T) {
	u := newTokUnit(t, nil)
	u.fail.Store(true)
	err := u.h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil), &partnerStub{})
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode != http.StatusBadGateway {
		t.Fatalf("got %v, want a 502 HandlerError", err)
	}
	var le *tokenauth.LoginError
	if !errors.As(err, &le) || le.Partner != u.h.Partner || le.Status != 401 || le.Code != "invalid_client" {
		t.Fatalf("got %v, want the LoginError of the partner", err)
	}
	if !strings.Contains(err.Error(), `login at partner "`+u.h.Partner+`" failed: HTTP 401 invalid_client: unknown kid`) {
		t.Fatalf("message %q", err)
	}
	if got := harness.CounterValue(t, u.h.metrics.requests.WithLabelValues(u.h.Partner, "failed")); got != 1 {
		t.Fatalf("failed token requests = %v, want 1", got)
	}
}

// A login service that does not answer fails the request with a 502
// after login_timeout, not when the client gives up.
func TestTokenHandlerLoginTimeout(t *testing.T) {
	release := make(chan struct{})
	login := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(login.Close)
	t.Cleanup(func() { close(release) })
	u := newTokUnit(t, func(h *Token) {
		h.TokenURL = login.URL + "/token"
		h.LoginTimeout = caddy.Duration(50 * time.Millisecond)
	})
	err := u.h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil), &partnerStub{})
	var he caddyhttp.HandlerError
	var le *tokenauth.LoginError
	if !errors.As(err, &he) || he.StatusCode != http.StatusBadGateway || !errors.As(err, &le) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a 502 LoginError of an exceeded deadline", err)
	}
}

func TestTokenHandlerMetrics(t *testing.T) {
	u := newTokUnit(t, nil)
	for range 3 {
		if err := u.h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil), &partnerStub{}); err != nil {
			t.Fatal(err)
		}
	}
	p := u.h.Partner
	if got := harness.CounterValue(t, u.h.metrics.requests.WithLabelValues(p, "ok")); got != 1 {
		t.Fatalf("ok token requests = %v, want 1", got)
	}
	if got := harness.CounterValue(t, u.h.metrics.requests.WithLabelValues(p, "failed")); got != 0 {
		t.Fatalf("failed token requests = %v, want 0", got)
	}
	if got := harness.CounterValue(t, u.h.metrics.hits.WithLabelValues(p)); got != 2 {
		t.Fatalf("cache hits = %v, want 2", got)
	}
	var m dto.Metric
	if err := u.h.metrics.refreshDuration.WithLabelValues(p).(prometheus.Histogram).Write(&m); err != nil || m.Histogram.GetSampleCount() != 1 {
		t.Fatalf("refresh duration samples = %d (%v), want 1", m.Histogram.GetSampleCount(), err)
	}
}

func TestTokenProvisionErrors(t *testing.T) {
	dir := t.TempDir()
	ecFile := filepath.Join(dir, "ec.pem")
	key := harness.ECKey(t)
	harness.WriteKey(t, ecFile, key)
	for _, tc := range []struct {
		name string
		edit func(*Token)
		want string
	}{
		{"missing key file", func(h *Token) { h.KeyFile = filepath.Join(dir, "nope.pem") }, "reading key_file"},
		{"alg mismatch", func(h *Token) { h.Alg = "RS256" }, `key_file "` + ecFile + `": alg RS256 does not fit a EC P-256 key`},
		{"short lifetime", func(h *Token) { h.Lifetime = caddy.Duration(10e9) }, "lifetime 10s is below the minimum"},
		{"no kid", func(h *Token) { h.KeyID = "" }, "kid is required"},
		// A JSON config hears of its grant and issuer by their names, as a
		// Caddyfile does, not as a fault of its key_file.
		{"no issuer", func(h *Token) { h.Issuer = "" }, "issuer is required with grant jwt_bearer"},
		{"unknown grant", func(h *Token) { h.Grant = "password" }, `grant "password": want jwt_bearer or client_assertion`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Token{TokenURL: "https://login.example/token", KeyFile: ecFile, KeyID: "k", Subject: "s", Issuer: "i"}
			tc.edit(h)
			ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
			defer cancel()
			err := h.Provision(ctx)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// BenchmarkTokenCacheHitWithMetrics is the cache hit of every proxied
// request as osdm_token runs it: with the partner's cache hit counter.
func BenchmarkTokenCacheHitWithMetrics(b *testing.B) {
	m, err := registerTokenMetrics(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	src := tokenauth.TokenSource(benchSource{})
	c := tokenauth.NewTokenCache(src, tokenauth.CacheConfig{})
	defer c.Close()
	c.SetObserver(m.observer("bench"))
	ctx := context.Background()
	benchcpu.Parallel(b, func() error {
		_, err := c.Token(ctx)
		return err
	})
}

// benchSource hands out a token valid for a day.
type benchSource struct{}

func (benchSource) Token(context.Context) (*tokenauth.Token, error) {
	return &tokenauth.Token{AccessToken: "at", Expiry: time.Now().Add(24 * time.Hour)}, nil
}

// TestTokenWithoutOSDMTransportFails: when next answers without a
// transport having sent the token (a reverse_proxy without `transport
// osdm`), the client gets a 502 naming the fix, not the partner's answer,
// and no replay is tried.
func TestTokenWithoutOSDMTransportFails(t *testing.T) {
	for _, body := range []string{"small", strings.Repeat("x", 2<<20)} {
		u := newTokUnit(t, nil)
		nextCalls := 0
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			nextCalls++
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "who are you")
			return nil
		})
		w := httptest.NewRecorder()
		err := u.h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/offers", strings.NewReader(body)), next)
		var he caddyhttp.HandlerError
		if !errors.As(err, &he) || he.StatusCode != http.StatusBadGateway || !errors.Is(err, subrequest.ErrNoOSDMTransport) ||
			!strings.Contains(err.Error(), "add `transport osdm`") {
			t.Fatalf("body of %d bytes: error %v, want a 502 naming transport osdm", len(body), err)
		}
		if nextCalls != 1 || w.Body.Len() != 0 || w.Code != http.StatusOK && w.Code != 0 || w.Header().Get("X-Refused") != "" {
			t.Fatalf("body of %d bytes: %d calls, the client got %d %q", len(body), nextCalls, w.Code, w.Body)
		}
	}
}

// TestTokenNextErrorWithoutAnswer: a next that fails without answering
// (reverse_proxy with no healthy upstream) keeps its own error.
func TestTokenNextErrorWithoutAnswer(t *testing.T) {
	u := newTokUnit(t, nil)
	want := caddyhttp.Error(http.StatusServiceUnavailable, errors.New("no upstreams available"))
	next := caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return want })
	if err := u.h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil), next); !errors.Is(err, want.Err) {
		t.Fatalf("error %v, want %v", err, want)
	}
}

// TestTokenHandlerReplaysFromGetBody: a request that can make its body
// again (osdm_convert's sub-requests) is sent with its own body, not a
// copy, and replayed after a 401 with the body GetBody makes.
func TestTokenHandlerReplaysFromGetBody(t *testing.T) {
	u := newTokUnit(t, nil)
	next := &partnerStub{refuse: map[string]bool{"at-1": true}}
	r := httptest.NewRequest(http.MethodPost, "/offers", nil)
	first := &countingReader{r: strings.NewReader("payload")}
	r.Body, r.ContentLength = io.NopCloser(first), 7
	made := 0
	r.GetBody = func() (io.ReadCloser, error) {
		made++
		return io.NopCloser(strings.NewReader("payload")), nil
	}
	w := httptest.NewRecorder()
	if err := u.h.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusCreated || w.Body.String() != "created:payload" {
		t.Fatalf("client got %d %q", w.Code, w.Body)
	}
	if first.n != 7 || made != 1 {
		t.Fatalf("the first attempt read %d bytes of the request's own body, GetBody made %d bodies; want 7 and 1", first.n, made)
	}
	if strings.Join(next.bodies, ",") != "payload,payload" || next.lengths[1] != 7 {
		t.Fatalf("bodies %q lengths %v", next.bodies, next.lengths)
	}
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
