package tokenauth

import (
	"net/http"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

func TestAccessTokenErrorProblemAndChallenge(t *testing.T) {
	for _, tc := range []struct {
		reason, code string
		status       int
		challenge    string
	}{
		{"missing", osdm.CodeMissingToken, http.StatusUnauthorized, `Bearer realm="osdm"`},
		{"expired", osdm.CodeTokenExpired, http.StatusUnauthorized, `Bearer realm="osdm", error="invalid_token"`},
		{"bad_signature", osdm.CodeInvalidToken, http.StatusUnauthorized, `Bearer realm="osdm", error="invalid_token"`},
		{"insufficient_scope", osdm.CodeInsufficientScope, http.StatusForbidden, `Bearer realm="osdm", error="insufficient_scope", scope="uic_osdm uic_osdm_write"`},
	} {
		e := &AccessTokenError{Reason: tc.reason, Description: `the "why"`}
		p := e.Problem().Body()
		if p.Code != tc.code || p.Status == nil || *p.Status != tc.status || p.Title != http.StatusText(tc.status) || p.Detail != `the "why"` || p.Type != osdm.ProblemType(tc.code) {
			t.Errorf("%s: problem %+v", tc.reason, p)
		}
		if got := e.Challenge("osdm", []string{"uic_osdm", "uic_osdm_write"}); got != tc.challenge {
			t.Errorf("%s: challenge %s, want %s", tc.reason, got, tc.challenge)
		}
	}
}
