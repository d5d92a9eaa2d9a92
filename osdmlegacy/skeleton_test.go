package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/store/storetest"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

func newTestFacade(t *testing.T, cfg Config, deps Deps) *Facade {
	t.Helper()
	if cfg.Partner == "" {
		cfg.Partner = "hermes-test"
	}
	if deps.Store == nil {
		deps.Store = storetest.NewMemory()
	}
	f, err := New(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func decodeProblem(t *testing.T, a *Answer) osdm.Problem {
	t.Helper()
	if ct := a.Header.Get("Content-Type"); ct != osdm.ContentTypeProblem {
		t.Fatalf("Content-Type %q, want %s; body %s", ct, osdm.ContentTypeProblem, a.Body)
	}
	var p osdm.Problem
	if err := json.Unmarshal(a.Body, &p); err != nil {
		t.Fatalf("problem body: %v: %s", err, a.Body)
	}
	if p.Status == nil || *p.Status != a.Status {
		t.Errorf("problem status %v, answer status %d", p.Status, a.Status)
	}
	return p
}

func TestRoutingAnswersProblemsNeverBare404(t *testing.T) {
	f := newTestFacade(t, Config{}, Deps{})
	cases := []struct {
		method, path string
		status       int
		code         string
		detail       string
	}{
		{"POST", "/bookings/b1/cancel-fulfillments-offers", 501, osdm.CodeOperationNotPermitted, "a partial refund is a refund offer naming passengers"},
		{"POST", "/bookings/b1/release-offers", 501, osdm.CodeOperationNotPermitted, "release (restriction 7)"},
		{"GET", "/trips/t1", 501, osdm.CodeOperationNotPermitted, "/trips/{tripId}"},
		{"GET", "/no/such/thing", 404, osdm.CodeResourceNotFound, "no OSDM operation"},
		{"GET", "/offers", 405, osdm.CodeOperationNotPermitted, "allowed: POST"},
		{"PUT", "/bookings/b1", 405, osdm.CodeOperationNotPermitted, "allowed: DELETE, GET, PATCH"},
	}
	for _, tc := range cases {
		a := f.serve(context.Background(), nil, tc.method, tc.path, http.Header{}, nil)
		if a.Status != tc.status {
			t.Errorf("%s %s: status %d, want %d (%s)", tc.method, tc.path, a.Status, tc.status, a.Body)
			continue
		}
		p := decodeProblem(t, a)
		if p.Code != tc.code || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%s %s: problem %s %q, want %s containing %q", tc.method, tc.path, p.Code, p.Detail, tc.code, tc.detail)
		}
		if tc.status == 405 && a.Header.Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.path)
		}
		if tc.status != 405 {
			osdmspec.ValidateSchema(t, osdmspec.V39, "Problem", a.Body)
		}
	}
}

func TestBodyChecks(t *testing.T) {
	f := newTestFacade(t, Config{MaxBody: 100}, Deps{})
	a := f.serve(context.Background(), nil, "POST", "/offers", http.Header{"Content-Type": {"application/json"}}, make([]byte, 101))
	if a.Status != 413 || decodeProblem(t, a).Code != osdm.CodeRequestTooLarge {
		t.Errorf("oversized body: %d %s", a.Status, a.Body)
	}
	a = f.serve(context.Background(), nil, "POST", "/offers", http.Header{"Content-Type": {"text/plain"}}, []byte("{}"))
	if a.Status != 415 || decodeProblem(t, a).Code != osdm.CodeUnsupportedMediaType {
		t.Errorf("text/plain body: %d %s", a.Status, a.Body)
	}
	a = f.serve(context.Background(), nil, "POST", "/offers", http.Header{"Content-Type": {"application/json; charset=iso-8859-1"}}, []byte("{}"))
	if p := decodeProblem(t, a); a.Status != 415 || p.Code != osdm.CodeUnsupportedMediaType || p.Detail != `the body must be UTF-8, not charset "iso-8859-1"` {
		t.Errorf("latin-1 body: %d %s", a.Status, a.Body)
	}
	// A charset's name is case-insensitive: Utf-8 is UTF-8, and the body
	// is read (and found to be no search).
	for _, ct := range []string{"application/json; charset=Utf-8", `application/json;charset="utf-8"`} {
		a = f.serve(context.Background(), nil, "POST", "/offers", http.Header{"Content-Type": {ct}}, []byte("{}"))
		if a.Status == 415 {
			t.Errorf("%s: %d %s", ct, a.Status, a.Body)
		}
	}
}

func TestNegativeProblemMapping(t *testing.T) {
	for code, want := range map[legacy.Code]struct {
		status int
		code   string
	}{
		legacy.CodeNoAvailability:     {409, osdm.CodeInsufficientAvailability},
		legacy.CodeTrainNotFound:      {404, osdm.CodeTripNotFound},
		legacy.CodeOfferExpired:       {404, osdm.CodeOfferNotFound},
		legacy.CodeBookingNotFound:    {404, osdm.CodeBookingNotFound},
		legacy.CodeAlreadyCancelled:   {409, osdm.CodeBookingAlreadyCancelled},
		legacy.CodePartnerUnavailable: {503, osdm.CodeServiceUnavailable},
		legacy.CodePartnerTimeout:     {504, osdm.CodeTimeout},
		"SOMETHING_NEW":               {502, osdm.CodeBadGateway},
	} {
		nr := &legacy.NegativeReply{Code: code, Text: "internal host db7.hermes.local refused"}
		p := NegativeProblem(nr, "train 9203")
		if p.Status != want.status || p.Code != want.code {
			t.Errorf("%s: %d %s, want %d %s", code, p.Status, p.Code, want.status, want.code)
		}
		if strings.Contains(p.Detail, "db7") || !strings.HasPrefix(p.Detail, "train 9203: ") {
			t.Errorf("%s: detail %q leaks the legacy text or lacks the subject", code, p.Detail)
		}
	}
	for _, kind := range []error{ErrLegacyDown, ErrLegacySlow, ErrLegacyGarbage} {
		err := &SendError{Kind: kind, Err: errors.New("dial tcp 10.1.2.3:8443: refused")}
		p := sendProblem("hermes", err, "")
		if strings.Contains(p.Detail, "10.1.2.3") || !p.Retryable {
			t.Errorf("%v: %+v", kind, p)
		}
		want := map[error]int{ErrLegacyDown: 503, ErrLegacySlow: 504, ErrLegacyGarbage: 502}[kind]
		if p.Status != want {
			t.Errorf("%v: status %d, want %d", kind, p.Status, want)
		}
	}
	if kindOf(context.DeadlineExceeded) != ErrLegacySlow {
		t.Error("a deadline is not slow")
	}
}

func TestParseFee(t *testing.T) {
	for in, want := range map[string]Fee{"10%": {BasisPoints: 1000}, "12.5%": {BasisPoints: 1250}, "0%": {}, "2.50 EUR": {Amount: "2.50", Currency: "EUR"},
		"2.5 EUR": {Amount: "2.5", Currency: "EUR"}, "300 JPY": {Amount: "300", Currency: "JPY"}, "1.250 KWD": {Amount: "1.250", Currency: "KWD"}} {
		got, err := ParseFee(in)
		if err != nil || got != want {
			t.Errorf("%q: %+v %v", in, got, err)
		}
		if back, _ := ParseFee(got.String()); back != got {
			t.Errorf("%q: String %q does not parse back", in, got.String())
		}
	}
	for _, bad := range []string{"101%", "-1%", "1.234%", "2.50", "2.50 eur", "abc", "%"} {
		if _, err := ParseFee(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// A percentage that is not digits is told what one is, not only that
	// it has too many decimals.
	for _, bad := range []string{"10 %", "1,5%", "-5%", "1.234%"} {
		want := strconv.Quote(bad) + ": a percentage is digits with at most two decimals after a point, then %, e.g. 10% or 12.5%"
		if _, err := ParseFee(bad); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", bad, err, want)
		}
	}
	// An amount finer than its currency's minor unit is never what the
	// legacy system keeps.
	for bad, want := range map[string]string{
		"1.005 EUR":  `"1.005 EUR": EUR has 2 decimals, the legacy system's fee can have no more`,
		"1.5 JPY":    `"1.5 JPY": JPY has 0 decimals, the legacy system's fee can have no more`,
		"1.2345 KWD": `"1.2345 KWD": KWD has 3 decimals, the legacy system's fee can have no more`,
	} {
		if _, err := ParseFee(bad); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", bad, err, want)
		}
	}
}
