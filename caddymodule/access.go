package caddymodule

import (
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	caddy.RegisterModule(Access{})
}

// defaultAccessHeader is the header OSDM consumers send the token in.
const defaultAccessHeader = "Authenticate"

// Access is the osdm_access handler: it lets a request through to the next
// handler only with a valid access token of the login service, read from
// the configured header (default Authenticate) or else Authorization, with
// or without the "Bearer " prefix. Otherwise it answers 401 (403 when the
// token lacks a required scope) with an RFC 9457 problem+json body in the
// OSDM Problem shape and a WWW-Authenticate Bearer challenge (RFC 6750).
//
// The client (sub) is available to later handlers and logs as
// {http.auth.user.id} (as with basic_auth) and {osdm.client}; the granted
// scopes as {osdm.scope}. The token goes on to the backend in the header it
// came in; where reverse_proxy follows, that header is added inside its
// transport, so that its debug log, which redacts only Authorization, does
// not print it.
type Access struct {
	// KeyFiles are the PEM public keys of the login service (all are
	// tried, for key rotation). When empty, the signing key of the
	// osdm_login with the same issuer in this Caddy configuration is used,
	// and issuer is required.
	KeyFiles []string `json:"key_files,omitempty"`
	// Issuer, when set, must be the iss of the token.
	Issuer string `json:"issuer,omitempty"`
	// Audience must be among the aud of the token: the functional API the
	// token is for (osdm_login's access_audience, by default its issuer).
	// A token without aud, or for another audience, is refused. Required.
	Audience string `json:"audience,omitempty"`
	// Scopes must all be granted by the token.
	Scopes []string `json:"scope,omitempty"`
	// Header is read first for the token; Authorization is read when it is
	// absent. Default: Authenticate.
	Header string `json:"header,omitempty"`
	// ClockSkew tolerates clock differences on exp and iat. Default: 0, as
	// the login service and the API usually share a clock.
	ClockSkew caddy.Duration `json:"clock_skew,omitempty"`

	now      func() time.Time
	logger   *zap.Logger
	verifier *tokenauth.AccessTokenVerifier
	realm    string
	proxies  *proxyAttachment
}

// CaddyModule returns the Caddy module information.
func (Access) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.osdm_access",
		New: func() caddy.Module { return new(Access) },
	}
}

// Provision loads the keys.
func (a *Access) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	if a.now == nil {
		a.now = time.Now
	}
	if a.Header == "" {
		a.Header = defaultAccessHeader
	}
	if a.ClockSkew < 0 {
		return fmt.Errorf("clock_skew %s must not be negative", time.Duration(a.ClockSkew))
	}
	if a.Audience == "" {
		return errors.New("audience is required: the aud the access tokens must carry (osdm_login's access_audience, by default its issuer)")
	}
	a.realm = a.Issuer
	if a.realm == "" {
		a.realm = "osdm"
	}
	v := &tokenauth.AccessTokenVerifier{
		Issuer: a.Issuer, Audience: a.Audience, Scopes: a.Scopes,
		Leeway: time.Duration(a.ClockSkew), Now: a.now,
	}
	if len(a.KeyFiles) == 0 {
		if a.Issuer == "" {
			return errors.New("key_file or issuer is required: without key_file the key of the osdm_login with that issuer is used")
		}
		issuer := a.Issuer
		// Looked up per request: the osdm_login may be provisioned after
		// this handler, and a reload replaces its key.
		v.Keys = func(kid string) []crypto.PublicKey { return loginPublicKeys(issuer, kid) }
	} else {
		keys := make([]crypto.PublicKey, 0, len(a.KeyFiles))
		for _, f := range a.KeyFiles {
			pub, err := tokenauth.LoadPublicKeyFile(f)
			if err != nil {
				return fmt.Errorf("loading key_file: %w", err)
			}
			keys = append(keys, pub)
		}
		v.Keys = tokenauth.StaticKeys(keys...)
	}
	a.verifier = v
	a.proxies = newProxyAttachment(ctx, a, func(n int, ok bool) {
		a.logger.Debug("access token passed on by the reverse_proxy transport", zap.Bool("in_transport", ok), zap.Int("proxies", n))
	})
	return nil
}

// ServeHTTP checks the token and calls next when it is valid.
func (a *Access) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	header, token := a.bearerToken(r)
	claims, err := a.verifier.Verify(token)
	if err != nil {
		var ae *tokenauth.AccessTokenError
		if !errors.As(err, &ae) {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		a.logger.Debug("access token refused", zap.String("reason", ae.Reason), zap.String("detail", ae.Description))
		a.writeProblem(w, ae)
		return nil
	}
	repl := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	repl.Set("http.auth.user.id", claims.Subject)
	repl.Set("osdm.client", claims.Subject)
	repl.Set("osdm.scope", claims.Scope)
	if header != "Authorization" && a.proxies.inTransport() {
		// The backend still gets the token, but reverse_proxy's debug log,
		// which redacts Authorization only, does not (see bearerTransport).
		b := &bearer{header: header, value: r.Header.Get(header)}
		r = r.Clone(withBearer(r.Context(), b))
		r.Header.Del(header)
	}
	return next.ServeHTTP(w, r)
}

// bearerToken reads the token: the configured header, else Authorization;
// the Bearer prefix is optional (OSDM's Authenticate header often has none).
// It returns the header the token came from.
func (a *Access) bearerToken(r *http.Request) (header, token string) {
	header = http.CanonicalHeaderKey(a.Header)
	v := r.Header.Get(header)
	if v == "" {
		header = "Authorization"
		v = r.Header.Get(header)
	}
	v = strings.TrimSpace(v)
	if len(v) > 7 && strings.EqualFold(v[:7], "bearer ") {
		v = strings.TrimSpace(v[7:])
	}
	return header, v
}

// accessProblem is the OSDM Problem (RFC 9457) body of a refused request.
type accessProblem struct {
	Code   string `json:"code"`
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

func (a *Access) writeProblem(w http.ResponseWriter, ae *tokenauth.AccessTokenError) {
	status := ae.HTTPStatus()
	p := accessProblem{Type: "about:blank", Status: status, Title: http.StatusText(status), Detail: ae.Description}
	switch ae.Reason {
	case "missing":
		p.Code = "MISSING_TOKEN"
	case "expired":
		p.Code = "TOKEN_EXPIRED"
	case "insufficient_scope":
		p.Code = "INSUFFICIENT_SCOPE"
	default:
		p.Code = "INVALID_TOKEN"
	}
	// error_description stays in the body: its text may hold quotes, which
	// a quoted-string in the challenge cannot.
	challenge := "Bearer realm=" + strconv.Quote(a.realm)
	if code := ae.BearerError(); code != "" {
		challenge += `, error="` + code + `"`
	}
	if ae.Reason == "insufficient_scope" {
		challenge += ", scope=" + strconv.Quote(strings.Join(a.Scopes, " "))
	}
	body, _ := json.Marshal(p)
	h := w.Header()
	h.Set("WWW-Authenticate", challenge)
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Access)(nil)
	_ caddyhttp.MiddlewareHandler = (*Access)(nil)
)
