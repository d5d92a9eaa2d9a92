package consumer

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// TestConvertLoginFailureCodes: osdm_token's login failure, as its handler
// returns it (a 502 HandlerError, maybe with the token cache's backoff
// note), becomes AUTHENTICATION_FAILED when the login service refused us
// (our configuration is wrong) and a retryable PARTNER_UNAVAILABLE or
// PARTNER_TIMEOUT when it failed or could not be reached; the reply text
// says the partner's login service failed, in words for a person at a
// reservation desk, without the technical detail (which is logged).
func TestConvertLoginFailureCodes(t *testing.T) {
	const tokenURL = "https://login.unit.example/oauth/token"
	transport := func(err error) error { return &url.Error{Op: "Post", URL: tokenURL, Err: err} }
	login := func(status int, code string, err error) error {
		return &tokenauth.LoginError{Partner: "unit", Status: status, Code: code, Err: err}
	}
	cases := []struct {
		name  string
		err   error
		code  legacy.Code
		text  string
		retry bool
	}{
		{"400 invalid_grant", login(400, "invalid_grant", nil), legacy.CodeAuthenticationFailed, `retrying will not fix`, false},
		{"401 invalid_client", login(401, "invalid_client", nil), legacy.CodeAuthenticationFailed, `retrying will not fix`, false},
		{"404 of a wrong token_url", login(404, "", nil), legacy.CodeAuthenticationFailed, `retrying will not fix`, false},
		{"TLS certificate not accepted", login(0, "", transport(&tls.CertificateVerificationError{Err: errors.New("x509: unknown authority")})),
			legacy.CodeAuthenticationFailed, `retrying will not fix`, false},
		{"identity token not signed", login(0, "", errors.New("signing identity token with ES256: key gone")),
			legacy.CodeAuthenticationFailed, `retrying will not fix`, false},
		{"503 temporarily_unavailable", login(503, "temporarily_unavailable", nil), legacy.CodePartnerUnavailable,
			`the partner's login service failed`, true},
		{"502 of a proxy", login(502, "", nil), legacy.CodePartnerUnavailable, `the partner's login service failed`, true},
		{"429", login(429, "", nil), legacy.CodePartnerUnavailable, `the partner's login service failed`, true},
		{"200 unusable", &tokenauth.LoginError{Partner: "unit", Status: 200, Description: "answer has no access_token"},
			legacy.CodePartnerUnavailable, `the partner's login service failed`, true},
		{"connection refused", login(0, "", transport(errors.New("dial tcp 127.0.0.1:1: connect: connection refused"))),
			legacy.CodePartnerUnavailable, `the partner's login service failed`, true},
		{"no answer in time", login(0, "", transport(context.DeadlineExceeded)), legacy.CodePartnerTimeout,
			`the partner's login service did not answer in time`, true},
		{"no transport osdm", fmt.Errorf("osdm_token of partner %q: %w", "unit", subrequest.ErrNoOSDMTransport), legacy.CodeAuthenticationFailed,
			`retrying will not fix`, false},
		{"503 during the backoff", fmt.Errorf("%w (next login attempt in 1s)", login(503, "", nil)), legacy.CodePartnerUnavailable,
			`the partner's login service failed`, true},
	}
	for i, tc := range cases {
		c := convUnit(t, func(c *Convert) { c.Partner += fmt.Sprint(i) })
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			return caddyhttp.Error(http.StatusBadGateway, tc.err)
		})
		rec := httptest.NewRecorder()
		body := strings.Replace(unitAvailability, `messageId="U-1"`, fmt.Sprintf(`messageId="L-%d"`, i), 1)
		if err := c.ServeHTTP(rec, legacyRequest(t, context.Background(), "application/xml", body), next); err != nil {
			t.Fatal(err)
		}
		r, err := legacy.DecodeReply(legacy.XML, rec.Body.Bytes())
		if err != nil {
			t.Fatalf("%s: %v: %s", tc.name, err, rec.Body)
		}
		nr, ok := r.(*legacy.NegativeReply)
		if !ok || nr.Code != tc.code || nr.Retryable != tc.retry || rec.Code != tc.code.HTTPStatus() {
			t.Errorf("%s: reply %d %+v, want %s retryable %v", tc.name, rec.Code, r, tc.code, tc.retry)
			continue
		}
		if !strings.Contains(nr.Text, tc.text) {
			t.Errorf("%s: text %q does not say %q", tc.name, nr.Text, tc.text)
		}
		// The login service's own words and the transport's go to the
		// log line only.
		for _, detail := range []string{"{id=", "token.go", "HTTP ", "x509", "dial tcp", "key gone", `login at partner "unit"`, "invalid_", "next login attempt"} {
			if strings.Contains(nr.Text, detail) {
				t.Errorf("%s: text %q carries the technical detail %q", tc.name, nr.Text, detail)
			}
		}
	}
}

// TestCallStopsReadingPastMaxAnswer: an answer longer than the call's
// MaxAnswer is not read to its end (the handler's writes fail as soon as
// it passes the bound) and the call fails with ErrAnswerTooLarge, never
// with a cut answer; one announced too long by its Content-Length is
// refused at its first byte.
func TestCallStopsReadingPastMaxAnswer(t *testing.T) {
	for _, announced := range []bool{false, true} {
		var written int
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			if announced {
				w.Header().Set("Content-Length", "1000000")
			}
			w.WriteHeader(http.StatusOK)
			chunk := make([]byte, 1000)
			for range 1000 {
				n, err := w.Write(chunk)
				written += n
				if err != nil {
					return err
				}
			}
			return nil
		})
		r := httptest.NewRequest(http.MethodPost, "/p", nil)
		x := &nextCaller{orig: r, next: next, metrics: convUnit(t, nil).metrics, partner: "unit"}
		a, err := x.Call(context.Background(), &converter.Call{Step: converter.StepDocument, Method: http.MethodGet,
			Path: "/d/1", PathTemplate: "{downloadLink}", Header: http.Header{}, MaxAnswer: 4500})
		x.release()
		if !errors.Is(err, converter.ErrAnswerTooLarge) || a != nil {
			t.Fatalf("announced %v: answer %v, error %v", announced, a, err)
		}
		if max := 4000; written > max || announced && written != 0 {
			t.Errorf("announced %v: %d bytes taken, the bound is 4500", announced, written)
		}
	}
}

// TestPartnerQuotingItsTokenIsRedacted: a partner that quotes the token
// it was sent, bare (an opaque token, which nothing in a text marks as
// one) or with its scheme, in its problem, gets it into no legacy reply: the call's caller knows the tokens
// osdm_token's transport added (subrequest.SentSecrets) and takes them
// out of the answer before the converter reads it. The partner's other
// words stay.
func TestPartnerQuotingItsTokenIsRedacted(t *testing.T) {
	const opaque = "8f3a9c2d7e1b4f6a0c5d8e2b7f1a3c9d"
	c := convUnit(t, nil)
	var sent string
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		// osdm_token, then reverse_proxy's transport osdm.
		b := &subrequest.Bearer{Header: "Authenticate", Value: "Bearer " + opaque}
		out := subrequest.WithBearerHeaders(r.WithContext(subrequest.WithBearer(r.Context(), b)))
		sent = out.Header.Get("Authenticate")
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusBadRequest)
		_, err := fmt.Fprintf(w, `{"code":"urn:uic:problem:VALIDATION_ERROR","title":"Bad request","detail":"token %s is not valid for this operation (sent as %s)"}`, opaque, sent)
		return err
	})
	rec := httptest.NewRecorder()
	if err := c.ServeHTTP(rec, legacyRequest(t, context.Background(), "application/xml", unitAvailability), next); err != nil {
		t.Fatal(err)
	}
	if sent != "Bearer "+opaque {
		t.Fatalf("the partner got %q", sent)
	}
	r, err := legacy.DecodeReply(legacy.XML, rec.Body.Bytes())
	if err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	nr, ok := r.(*legacy.NegativeReply)
	if !ok || strings.Contains(rec.Body.String(), opaque[:16]) || !strings.Contains(nr.Text, "token [redacted] is not valid for this operation") {
		t.Errorf("reply %s", rec.Body)
	}
}
