package tokenauth

import (
	"net/http"
	"strconv"
	"strings"
)

// AccessProblem is the OSDM Problem (RFC 9457, application/problem+json)
// that answers a request whose access token was refused.
type AccessProblem struct {
	// Code is MISSING_TOKEN, TOKEN_EXPIRED, INSUFFICIENT_SCOPE or INVALID_TOKEN.
	Code   string `json:"code"`
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// Problem is the OSDM Problem of the refusal.
func (e *AccessTokenError) Problem() AccessProblem {
	status := e.HTTPStatus()
	p := AccessProblem{Type: "about:blank", Status: status, Title: http.StatusText(status), Detail: e.Description}
	switch e.Reason {
	case "missing":
		p.Code = "MISSING_TOKEN"
	case "expired":
		p.Code = "TOKEN_EXPIRED"
	case "insufficient_scope":
		p.Code = "INSUFFICIENT_SCOPE"
	default:
		p.Code = "INVALID_TOKEN"
	}
	return p
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
