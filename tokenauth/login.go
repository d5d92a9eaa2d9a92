package tokenauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// MaxTokenRequestBytes bounds the body of a token request: an identity
// token of at most MaxAssertionBytes and a few short parameters.
const MaxTokenRequestBytes = MaxAssertionBytes + 4<<10

// The grant and assertion types of RFC 7523 a login service accepts.
const (
	loginGrantJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	loginGrantClientCredentials = "client_credentials"
	loginClientAssertionType    = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// LoginService is the token endpoint of an OSDM login service: it checks
// an identity token, makes sure its jti is used once, and issues an access
// token. It is safe for concurrent use.
type LoginService struct {
	// Validator checks identity tokens.
	Validator *AssertionValidator
	// Issuer signs access tokens.
	Issuer *AccessTokenIssuer
	// Replay remembers used jti values.
	Replay ReplayStore
}

// AccessTokenResponse is the RFC 6749 section 5.1 success body.
type AccessTokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope"`
}

// LoginGrant is a granted token request: the response and what logs may say.
type LoginGrant struct {
	// Response is the body to send.
	Response AccessTokenResponse
	// Assertion is the identity token that was accepted.
	Assertion *ValidatedAssertion
	// AccessTokenID is the jti of the issued access token.
	AccessTokenID string
}

// tokenRequest is the RFC 7523 part of a token request.
type tokenRequest struct {
	assertion string
	// clientAuth is the section 2.2 form (client_credentials with a client
	// assertion), where a bad token means the client failed to
	// authenticate: invalid_client rather than invalid_grant.
	clientAuth bool
	clientID   string
	scopes     []string
}

// Token handles a token request. The error is always a *Refusal.
func (s *LoginService) Token(ctx context.Context, r *http.Request) (*LoginGrant, error) {
	if ref := s.refuseURLAssertion(ctx, r); ref != nil {
		return nil, ref
	}
	req, refusal := readTokenRequest(r)
	if refusal != nil {
		return nil, refusal
	}
	got, err := s.Validator.Validate(req.assertion)
	if err != nil {
		ref := err.(*Refusal)
		if req.clientAuth && ref.OAuth.Code == ErrCodeInvalidGrant {
			ref.OAuth.Code = ErrCodeInvalidClient
		}
		return nil, ref
	}
	fail := func(ref *Refusal) (*LoginGrant, error) {
		ref.Client, ref.KeyID = got.Subject, got.KeyID
		if req.clientAuth && ref.OAuth.Code == ErrCodeInvalidGrant {
			ref.OAuth.Code = ErrCodeInvalidClient
		}
		return nil, ref
	}
	if req.clientAuth {
		// RFC 7523 section 3 has iss = sub = client_id in a client
		// authentication JWT; OSDM consumers send the same identity token
		// in both forms, with iss their issuer URL and sub their user
		// name. Both are accepted; a client registered with an issuer has
		// had its iss checked by the validator.
		if req.clientID != "" && req.clientID != got.Subject {
			return fail(refuse(ReasonMalformedRequest, ErrCodeInvalidClient,
				"client_id %s does not match the client assertion's sub %q", quoteInput(req.clientID), got.Subject))
		}
	}
	scopes := got.Scopes
	if len(req.scopes) > 0 {
		// The signed scope claim is the ceiling; the form may narrow it.
		for _, sc := range req.scopes {
			if !slices.Contains(got.Scopes, sc) {
				return fail(refuse(ReasonBadScope, ErrCodeInvalidScope,
					"scope %s is not in the identity token's scope claim (%s)", quoteInput(sc), strings.Join(got.Scopes, " ")))
			}
		}
		scopes = req.scopes
	}
	// Last, once everything else passed, so that an invalid token cannot
	// burn a jti: one atomic check-and-set.
	if err := s.Replay.Claim(ctx, got.Subject, got.ID, got.ReplayUntil); err != nil {
		switch {
		case errors.Is(err, ErrReplay):
			return fail(refuse(ReasonReplay, ErrCodeInvalidGrant,
				"jti %s was already used; every token request needs a new identity token with a new jti", quoteInput(got.ID)))
		case errors.Is(err, ErrReplayStoreFull):
			return fail(refuse(ReasonReplayStoreFull, ErrCodeTemporarilyUnavailable,
				"the login service is at its limit of identity tokens in use; retry later"))
		default:
			return fail(refuse(ReasonReplayStoreError, ErrCodeServerError,
				"the login service cannot check identity tokens for replay at the moment; retry later"))
		}
	}
	issued, err := s.Issuer.Issue(got.Subject, scopes)
	if err != nil {
		return fail(refuse(ReasonInternal, ErrCodeServerError, "the login service could not sign the access token; retry later"))
	}
	return &LoginGrant{
		Response: AccessTokenResponse{
			AccessToken: issued.Token,
			TokenType:   "Bearer",
			ExpiresIn:   issued.ExpiresIn,
			Scope:       strings.Join(scopes, " "),
		},
		Assertion:     got,
		AccessTokenID: issued.ID,
	}, nil
}

// refuseURLAssertion refuses a token request with an identity token in
// the URL query (assertion or client_assertion). The URL, token included,
// ends up in access logs, so the token is exposed: a token whose
// signature verifies with a key registered for its client has its jti
// spent in the replay store first, so that nobody who reads the log can
// use it within its lifetime. A token whose signature does not verify is
// left alone, so that nobody can burn the identifiers of another client's
// tokens. nil when the query holds no identity token.
func (s *LoginService) refuseURLAssertion(ctx context.Context, r *http.Request) *Refusal {
	q := r.URL.Query()
	for _, name := range []string{"assertion", "client_assertion"} {
		if !q.Has(name) {
			continue
		}
		spent := ""
		for _, token := range q[name] {
			sub, jti, until, ok := s.Validator.SignedID(token)
			if !ok {
				continue
			}
			if err := s.Replay.Claim(ctx, sub, jti, until); err != nil && !errors.Is(err, ErrReplay) {
				ref := refuse(ReasonReplayStoreError, ErrCodeServerError,
					"%s must be sent in the request body, not in the URL; the exposed identity token could not be marked as used, so do not use it: create a new one", name)
				ref.Client = sub
				return ref
			}
			spent = sub
		}
		ref := refuse(ReasonMalformedRequest, ErrCodeInvalidRequest,
			"%s must be sent in the request body, not in the URL; an identity token sent in a URL is exposed in logs", name)
		if spent != "" {
			ref.Client = spent
			ref.OAuth.Description += ", so its jti is now spent and it will never be accepted: create a new identity token"
		}
		return ref
	}
	return nil
}

// readTokenRequest reads and checks the form of a token request.
func readTokenRequest(r *http.Request) (*tokenRequest, *Refusal) {
	if r.Method != http.MethodPost {
		ref := refuse(ReasonMethodNotAllowed, ErrCodeInvalidRequest, "the token endpoint accepts only POST")
		ref.Status = http.StatusMethodNotAllowed
		return nil, ref
	}
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mediaType != "application/x-www-form-urlencoded" {
		return nil, refuse(ReasonContentType, ErrCodeInvalidRequest,
			"Content-Type must be application/x-www-form-urlencoded (RFC 6749 section 4.4.2)")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxTokenRequestBytes+1))
	if err != nil {
		return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidRequest, "the request body could not be read")
	}
	if len(body) > MaxTokenRequestBytes {
		ref := refuse(ReasonBodyTooLarge, ErrCodeInvalidRequest, "the request body exceeds %d bytes", MaxTokenRequestBytes)
		ref.Status = http.StatusRequestEntityTooLarge
		return nil, ref
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidRequest, "the request body is not valid form encoding")
	}
	// RFC 6749 section 3.2: parameters must not be repeated.
	for name, values := range form {
		if len(values) > 1 {
			return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidRequest, "parameter %s is repeated", quoteInput(name))
		}
	}
	req := &tokenRequest{scopes: strings.Fields(form.Get("scope")), clientID: form.Get("client_id")}
	switch gt := form.Get("grant_type"); gt {
	case "":
		return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidRequest, "grant_type is missing")
	case loginGrantJWTBearer:
		if form.Has("client_assertion") {
			return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidRequest,
				"send either assertion (grant_type %s) or client_assertion (grant_type client_credentials), not both", loginGrantJWTBearer)
		}
		req.assertion = form.Get("assertion")
		if req.assertion == "" {
			return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidRequest, "assertion is missing")
		}
	case loginGrantClientCredentials:
		req.clientAuth = true
		if form.Has("assertion") {
			return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidRequest,
				"grant_type client_credentials takes client_assertion, not assertion")
		}
		if at := form.Get("client_assertion_type"); at != loginClientAssertionType {
			return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidClient,
				"client_assertion_type must be %s; got %s", loginClientAssertionType, quoteInput(at))
		}
		req.assertion = form.Get("client_assertion")
		if req.assertion == "" {
			return nil, refuse(ReasonMalformedRequest, ErrCodeInvalidClient, "client_assertion is missing")
		}
	default:
		return nil, refuse(ReasonUnsupportedGrant, ErrCodeUnsupportedGrantType,
			"grant_type %s is not supported; use %s with assertion, or client_credentials with a client_assertion", quoteInput(gt), loginGrantJWTBearer)
	}
	return req, nil
}

// WriteTokenResponse answers a granted token request (RFC 6749 section 5.1).
func WriteTokenResponse(w http.ResponseWriter, resp *AccessTokenResponse) {
	writeNoStoreJSON(w, http.StatusOK, resp)
}

// WriteRefusal answers a refused token request (RFC 6749 section 5.2).
// realm names the login service in the WWW-Authenticate challenge that
// goes with a 401 invalid_client.
func WriteRefusal(w http.ResponseWriter, ref *Refusal, realm string) {
	status := ref.HTTPStatus()
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm=%s, error="invalid_client"`, strconv.Quote(realm)))
	}
	if status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	writeNoStoreJSON(w, status, &ref.OAuth)
}

// writeNoStoreJSON writes a token endpoint answer, which no cache may keep
// (RFC 6749 section 5.1).
func writeNoStoreJSON(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v)
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=UTF-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// ServeHTTP makes the service a plain http.Handler for programs without
// Caddy.
func (s *LoginService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g, err := s.Token(r.Context(), r)
	if err != nil {
		WriteRefusal(w, err.(*Refusal), s.Issuer.Issuer)
		return
	}
	WriteTokenResponse(w, &g.Response)
}

// Interface guard.
var _ http.Handler = (*LoginService)(nil)
