package tokenauth

import (
	"net/http"
	"testing"
)

func TestAccessTokenErrorProblemAndChallenge(t *testing.T) {
	for _, tc := range []struct {
		reason, code string
		status       int
		challenge    string
	}{
		{"missing", "MISSING_TOKEN", http.StatusUnauthorized, `Bearer realm="osdm"`},
		{"expired", "TOKEN_EXPIRED", http.StatusUnauthorized, `Bearer realm="osdm", error="invalid_token"`},
		{"bad_signature", "INVALID_TOKEN", http.StatusUnauthorized, `Bearer realm="osdm", error="invalid_token"`},
		{"insufficient_scope", "INSUFFICIENT_SCOPE", http.StatusForbidden, `Bearer realm="osdm", error="insufficient_scope", scope="uic_osdm uic_osdm_write"`},
	} {
		e := &AccessTokenError{Reason: tc.reason, Description: `the "why"`}
		p := e.Problem()
		if p.Code != tc.code || p.Status != tc.status || p.Title != http.StatusText(tc.status) || p.Detail != `the "why"` || p.Type != "about:blank" {
			t.Errorf("%s: problem %+v", tc.reason, p)
		}
		if got := e.Challenge("osdm", []string{"uic_osdm", "uic_osdm_write"}); got != tc.challenge {
			t.Errorf("%s: challenge %s, want %s", tc.reason, got, tc.challenge)
		}
	}
}
