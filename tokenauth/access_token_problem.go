package tokenauth

import (
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// Problem is the OSDM Problem (RFC 9457, application/problem+json) that
// answers the refused request: MISSING_TOKEN, TOKEN_EXPIRED,
// INSUFFICIENT_SCOPE or INVALID_TOKEN, with the description as its detail.
func (e *AccessTokenError) Problem() *osdm.ProblemError {
	code := osdm.CodeInvalidToken
	switch e.Reason {
	case "missing":
		code = osdm.CodeMissingToken
	case "expired":
		code = osdm.CodeTokenExpired
	case "insufficient_scope":
		code = osdm.CodeInsufficientScope
	}
	return osdm.NewProblem(e.HTTPStatus(), code, e.Description)
}

// Challenge is the WWW-Authenticate value of the refusal (RFC 6750
// section 3) in realm; scopes are the ones the API requires. The
// description stays in the Problem's detail: its text may hold quotes,
// which a quoted-string in the challenge cannot.
func (e *AccessTokenError) Challenge(realm string, scopes []string) string {
	challenge := "Bearer realm=" + strconv.Quote(realm)
	if code := e.BearerError(); code != "" {
		challenge += `, error="` + code + `"`
	}
	if e.Reason == "insufficient_scope" {
		challenge += ", scope=" + strconv.Quote(strings.Join(scopes, " "))
	}
	return challenge
}
