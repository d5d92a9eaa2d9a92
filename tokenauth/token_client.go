package tokenauth

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Grant is the form of the token request.
type Grant string

const (
	// GrantJWTBearer sends the identity token as an RFC 7523 section 2.1
	// authorization grant: grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer
	// and assertion. The default.
	GrantJWTBearer Grant = "jwt_bearer"
	// GrantClientAssertion sends it as RFC 7523 section 2.2 client
	// authentication: grant_type=client_credentials, client_assertion_type
	// and client_assertion.
	GrantClientAssertion Grant = "client_assertion"
)

// orDefault is g, or GrantJWTBearer for the empty grant, and whether it
// is a grant this package knows.
func (g Grant) orDefault() (Grant, bool) {
	switch g {
	case "":
		return GrantJWTBearer, true
	case GrantJWTBearer, GrantClientAssertion:
		return g, true
	}
	return g, false
}

// Form values of the two grants.
const (
	grantTypeJWTBearer         = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	grantTypeClientCredentials = "client_credentials"
	clientAssertionTypeJWT     = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// Defaults of TokenClient.
const (
	// DefaultExpiresIn is how long an access token is used when the login
	// service gives neither expires_in nor a JWT with exp.
	DefaultExpiresIn = 5 * time.Minute
	// MaxTokenResponseBytes bounds a login service's answer.
	MaxTokenResponseBytes = 1 << 20
)

// Token is an access token and the time it stops being used.
type Token struct {
	// AccessToken is the credential; never log it.
	AccessToken string
	// Expiry is when the token is dropped from the cache.
	Expiry time.Time
}

// TokenSource returns a valid access token. Implementations are safe for
// concurrent use.
type TokenSource interface {
	Token(ctx context.Context) (*Token, error)
}

// TokenClientConfig configures a TokenClient.
type TokenClientConfig struct {
	// Partner labels errors and warnings.
	Partner string
	// TokenURL is the login service's token endpoint. Required.
	TokenURL string
	// Grant is the request form; empty means GrantJWTBearer.
	Grant Grant
	// Signer makes the identity token sent with each request. Required.
	Signer *IdentitySigner
	// HTTPClient makes the request; nil means a client with a 30 s timeout.
	// Custom CAs or client certificates go into its Transport; a TLS
	// failure is a LoginError whose Description says which side refused.
	// Its CheckRedirect is not used: the client follows no redirect (see
	// NewTokenClient).
	HTTPClient *http.Client
	// DefaultExpiresIn is used when the answer has neither expires_in nor
	// a JWT access token with exp; zero means DefaultExpiresIn.
	DefaultExpiresIn time.Duration
	// Warn, if set, receives warnings about unusual answers (never a token).
	Warn func(msg string)
	// Now is the clock; nil means time.Now.
	Now Clock
}

// TokenClient is our client of a partner's login service (osdm_token): each
// Token call signs a new identity token and posts it. It does not cache;
// wrap it in a TokenCache. Its counterpart is RegisteredConsumer, a
// consumer registered at our own login service.
type TokenClient struct {
	cfg TokenClientConfig
}

// ParseTokenURL parses raw as a login service's token endpoint, or says
// why it cannot be one: it must be an absolute http or https URL.
func ParseTokenURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("token_url %q is not an absolute http(s) URL", raw)
	}
	// A password would be logged with the URL (and sent as the default
	// audience); the login is the signed identity token's, not basic auth.
	if u.User != nil {
		return nil, fmt.Errorf("token_url %q must not carry a user or password: the login is the signed identity token", u.Redacted())
	}
	if u.Fragment != "" || strings.HasSuffix(raw, "#") {
		return nil, fmt.Errorf("token_url %q must not have a fragment (#...): it is never sent", raw)
	}
	return u, nil
}

// NewTokenClient checks cfg and fills in its defaults.
func NewTokenClient(cfg TokenClientConfig) (*TokenClient, error) {
	if _, err := ParseTokenURL(cfg.TokenURL); err != nil {
		return nil, err
	}
	if cfg.Signer == nil {
		return nil, errors.New("no identity token signer")
	}
	grant, ok := cfg.Grant.orDefault()
	if !ok {
		return nil, fmt.Errorf("unknown grant %q (want %s or %s)", cfg.Grant, GrantJWTBearer, GrantClientAssertion)
	}
	cfg.Grant = grant
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	// A redirect is answered as the login's failure, never followed: a 307
	// or 308 would post the identity token again, unused, to whatever host
	// Location names, which could trade it for an access token in our
	// name (301, 302 and 303 turn the POST into a GET, which is no token
	// request either). A copy, so that the caller's client is left as it is.
	hc := *cfg.HTTPClient
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	cfg.HTTPClient = &hc
	if cfg.DefaultExpiresIn <= 0 {
		cfg.DefaultExpiresIn = DefaultExpiresIn
	}
	cfg.Now = cfg.Now.orNow()
	return &TokenClient{cfg: cfg}, nil
}

// Partner returns the partner label.
func (c *TokenClient) Partner() string { return c.cfg.Partner }

// TokenRequestForm returns the form body of a token request carrying
// assertion in the given grant form.
func TokenRequestForm(grant Grant, assertion, scope string) url.Values {
	if grant == GrantClientAssertion {
		return url.Values{
			"grant_type":            {grantTypeClientCredentials},
			"client_assertion_type": {clientAssertionTypeJWT},
			"client_assertion":      {assertion},
			"scope":                 {scope},
		}
	}
	return url.Values{
		"grant_type": {grantTypeJWTBearer},
		"assertion":  {assertion},
		"scope":      {scope},
	}
}

// Token logs in and returns the new access token. Failures are *LoginError.
func (c *TokenClient) Token(ctx context.Context) (*Token, error) {
	assertion, err := c.cfg.Signer.Sign()
	if err != nil {
		return nil, c.fail(0, "", "", err)
	}
	form := TokenRequestForm(c.cfg.Grant, assertion, c.cfg.Signer.Config().Scope)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, c.fail(0, "", "", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	sent := c.cfg.Now()
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		return nil, c.fail(0, "", tlsFailure(err), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxTokenResponseBytes+1))
	if err != nil {
		return nil, c.fail(resp.StatusCode, "", "reading the answer", err)
	}
	if len(body) > MaxTokenResponseBytes {
		return nil, c.fail(resp.StatusCode, "", fmt.Sprintf("answer larger than %d bytes", MaxTokenResponseBytes), nil)
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, c.fail(resp.StatusCode, "", redirectRefused(resp), nil)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.errorAnswer(resp, body)
	}
	return c.parseAnswer(resp.StatusCode, body, sent)
}

// errorAnswer turns a non-200 answer into a LoginError, reading an RFC 6749
// section 5.2 body if there is one. Other bodies are not quoted: they might
// echo what we sent.
func (c *TokenClient) errorAnswer(resp *http.Response, body []byte) error {
	var oe OAuthError
	if json.Unmarshal(body, &oe) == nil && oe.Code != "" {
		return c.fail(resp.StatusCode, sanitizeDescription(oe.Code), sanitizeDescription(oe.Description), nil)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return c.fail(resp.StatusCode, "", fmt.Sprintf("answer is not an RFC 6749 error (Content-Type %q, %d bytes)", ct, len(body)), nil)
}

// redirectRefused describes a redirect answered to a token request,
// which is not followed: where it pointed (scheme, host and path; a
// query is left out), and what to do.
func redirectRefused(resp *http.Response) string {
	where := "no Location"
	if loc, err := resp.Location(); err == nil {
		loc.User, loc.RawQuery, loc.Fragment = nil, "", ""
		// URL.String escapes what is not printable ASCII.
		where = loc.String()
		if len(where) > maxDescription {
			where = where[:maxDescription] + "..."
		}
	}
	return "answered with a redirect (" + where + "), which is not followed: it would send the identity token elsewhere; set token_url to the login service's token endpoint itself"
}

// tokenAnswer is a successful token response (RFC 6749 section 5.1).
type tokenAnswer struct {
	AccessToken string          `json:"access_token"`
	TokenType   string          `json:"token_type"`
	ExpiresIn   json.RawMessage `json:"expires_in"`
}

func (c *TokenClient) parseAnswer(status int, body []byte, sent time.Time) (*Token, error) {
	var ans tokenAnswer
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, c.fail(status, "", "answer is not a JSON token response", errors.New(strings.ReplaceAll(err.Error(), "\n", " ")))
	}
	if ans.AccessToken == "" {
		return nil, c.fail(status, "", "answer has no access_token", nil)
	}
	if ans.TokenType != "" && !strings.EqualFold(ans.TokenType, "Bearer") {
		return nil, c.fail(status, "", fmt.Sprintf("token_type %q is not Bearer", sanitizeDescription(ans.TokenType)), nil)
	}
	lifetime, err := parseExpiresIn(ans.ExpiresIn)
	if err != nil {
		return nil, c.fail(status, "", err.Error(), nil)
	}
	var expiry time.Time
	switch {
	case lifetime > 0:
		// Counted from when the request was sent, so that the time the
		// answer took is not added to the token's life.
		expiry = sent.Add(lifetime)
	default:
		if exp, ok := unverifiedExpiry(ans.AccessToken); ok {
			expiry = exp
			break
		}
		expiry = sent.Add(c.cfg.DefaultExpiresIn)
		if c.cfg.Warn != nil {
			c.cfg.Warn(fmt.Sprintf("login service answer has no expires_in and the access token is not a JWT with exp; using it for %s", c.cfg.DefaultExpiresIn))
		}
	}
	if !expiry.After(c.cfg.Now()) {
		return nil, c.fail(status, "", "access token is already expired", nil)
	}
	return &Token{AccessToken: ans.AccessToken, Expiry: expiry}, nil
}

// parseExpiresIn reads expires_in as a JSON number or, as some servers send
// it, a string of digits. Absent or null gives 0.
func parseExpiresIn(raw json.RawMessage) (time.Duration, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, nil
	}
	s = strings.Trim(s, `"`)
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || n <= 0 || n > 10*365*24*3600 {
		return 0, fmt.Errorf("expires_in %.20q is not a positive number of seconds", s)
	}
	return time.Duration(n * float64(time.Second)), nil
}

// unverifiedExpiry reads exp from an access token that is a JWT. The
// signature is not checked: the token is the login service's business, we
// only want to know how long to keep it.
func unverifiedExpiry(token string) (time.Time, bool) {
	if strings.Count(token, ".") != 2 {
		return time.Time{}, false
	}
	claims := jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, claims); err != nil {
		return time.Time{}, false
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return time.Time{}, false
	}
	return exp.Time, true
}

// tlsFailure says which side of a TLS connection to the login service
// gave up, which Go's error text leaves to the reader: our check of the
// service's certificate (its CA or name), or the service (most often
// because it wants a client certificate that we did not send or that it
// does not trust). Other errors give "".
func tlsFailure(err error) string {
	var verify *tls.CertificateVerificationError
	if errors.As(err, &verify) {
		return "the login service's TLS certificate was not accepted"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		return "the login service refused the TLS connection"
	}
	return ""
}

func (c *TokenClient) fail(status int, code, desc string, err error) *LoginError {
	return &LoginError{Partner: c.cfg.Partner, Status: status, Code: code, Description: desc, Err: err}
}

// Interface guard.
var _ TokenSource = (*TokenClient)(nil)
