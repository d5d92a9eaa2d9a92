package tokenauth

import (
	"fmt"
	"net/url"
	"strconv"
)

// PartnerLogin is who a consumer logs in as at a partner's login service,
// and in which form: the settings that osdm_token and caddy osdm-token
// share, with the one set of rules for their defaults (Resolve).
type PartnerLogin struct {
	// TokenURL is the login service's token endpoint.
	TokenURL string
	// Partner labels logs, metrics and errors; empty means the host name
	// of TokenURL.
	Partner string
	// Grant is the token request form; empty means GrantJWTBearer.
	Grant Grant
	// Issuer is the identity token's iss claim. Required with
	// GrantJWTBearer; with GrantClientAssertion empty means Subject, the
	// client's own name (RFC 7523 section 3).
	Issuer string
	// Subject is the sub claim: the user name the partner gave.
	Subject string
	// Audience is the aud claim; empty means TokenURL.
	Audience string
}

// Resolve checks the grant and the issuer and returns l with its
// defaults filled in. Its errors are *PartnerLoginError. It neither
// checks TokenURL nor requires Subject: NewTokenClient and
// NewIdentitySigner do, as do callers that name every missing setting
// at once.
func (l PartnerLogin) Resolve() (PartnerLogin, error) {
	grant, ok := l.Grant.orDefault()
	if !ok {
		return l, &PartnerLoginError{Field: "grant", Value: string(l.Grant),
			Problem: fmt.Sprintf("want %s or %s", GrantJWTBearer, GrantClientAssertion)}
	}
	l.Grant = grant
	if l.Issuer == "" {
		if grant == GrantJWTBearer {
			return l, &PartnerLoginError{Field: "issuer", Problem: "is required with grant " + string(GrantJWTBearer)}
		}
		l.Issuer = l.Subject
	}
	if l.Audience == "" {
		l.Audience = l.TokenURL
	}
	if l.Partner == "" {
		if u, err := url.Parse(l.TokenURL); err == nil {
			l.Partner = u.Hostname()
		}
	}
	return l, nil
}

// PartnerLoginError is a PartnerLogin setting that Resolve refuses. Its
// message names the setting as Field does; a caller whose users spell
// it otherwise (a command's --flag) gives its own name to Named.
type PartnerLoginError struct {
	// Field is the setting, named as the PartnerLogin field in
	// snake_case: "grant" or "issuer".
	Field string
	// Value is the value refused, quoted in the message; empty when the
	// setting is missing.
	Value string
	// Problem is what is wrong, said after the setting (and its value).
	Problem string
}

func (e *PartnerLoginError) Error() string { return e.Named(e.Field) }

// Named is the message with the setting called name.
func (e *PartnerLoginError) Named(name string) string {
	if e.Value == "" {
		return name + " " + e.Problem
	}
	return name + " " + strconv.Quote(e.Value) + ": " + e.Problem
}
