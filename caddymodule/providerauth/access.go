package providerauth

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
	"golang.org/x/net/http/httpguts"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
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
// came in, added by the transport of the reverse_proxy that follows, which
// must be `transport osdm` (see Transport), so that reverse_proxy's debug
// log, which redacts only Authorization, does not print it: the header is
// removed from the request once the token is checked, so the handlers
// after osdm_access and their logs do not see it. Caddy's own access and
// error lines print the request as it came in, copied before any handler
// runs: the log's `filter` encoder keeps the header out of them
// (docs/operations.md, "Secrets in logs"). An answer of a reverse_proxy
// that did not send the token is not passed on: it is a 502 error saying
// so. A token that came in Authorization stays in the request.
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

	now      tokenauth.Clock // nil: time.Now
	logger   *zap.Logger
	verifier *tokenauth.AccessTokenVerifier
	realm    string
}

// CaddyModule returns the Caddy module information.
func (Access) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[Access]("http.handlers.osdm_access")
}

// Provision loads the keys.
func (a *Access) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	if a.Header == "" {
		a.Header = defaultAccessHeader
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
	return nil
}

// Validate checks the configuration, with or without the defaults filled in.
func (a *Access) Validate() error {
	if len(a.KeyFiles) == 0 && a.Issuer == "" {
		return errors.New("key_file or issuer is required: without key_file the key of the osdm_login with that issuer is used")
	}
	if a.Audience == "" {
		return errors.New("audience is required (the aud of the access tokens: osdm_login's access_audience, by default its issuer)")
	}
	if a.Header != "" && !httpguts.ValidHeaderFieldName(a.Header) {
		return fmt.Errorf("header %q is not a valid header name", a.Header)
	}
	if a.ClockSkew < 0 {
		return fmt.Errorf("clock_skew %s must not be negative", time.Duration(a.ClockSkew))
	}
	return nil
}

// ServeHTTP checks the token and calls next when it is valid.
func (a *Access) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	header, token := a.bearerToken(r)
	given := len(r.Header.Values(header))
	// The header leaves the request at once, refused or not: no handler
	// after this one, error routes included, and none of their logs sees
	// it (Caddy's own lines: see Access).
	var b *subrequest.Bearer
	if header != "Authorization" {
		b = &subrequest.Bearer{Header: header, Value: r.Header.Get(header)}
		r.Header.Del(header)
	}
	if given > 1 {
		// Which token is the client's would be a guess (RFC 6750 section
		// 3.1: more than one token is an invalid request).
		a.writeProblem(w, &tokenauth.AccessTokenError{Reason: "malformed",
			Description: "the " + header + " header is given " + strconv.Itoa(given) + " times; send one access token"})
		return nil
	}
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
	if b == nil {
		return next.ServeHTTP(w, r)
	}
	// The backend still gets the token through the transport of the
	// reverse_proxy that follows (subrequest.Bearer), so that reverse_proxy's
	// debug log, which redacts Authorization only, does not print it.
	out := r.WithContext(subrequest.WithBearer(r.Context(), b))
	before, _ := repl.Get(proxyUpstreamVar)
	hw := subrequest.NewHeldWriter(w, func(int) bool {
		now, proxied := repl.Get(proxyUpstreamVar)
		return !b.Sent.Load() && proxied && now != before
	})
	err = next.ServeHTTP(hw, out)
	if hw.Held() {
		a.logger.Error("osdm_access: " + subrequest.ErrNoOSDMTransport.Error())
		return caddyhttp.Error(http.StatusBadGateway, fmt.Errorf("osdm_access: %w", subrequest.ErrNoOSDMTransport))
	}
	return err
}

// proxyUpstreamVar is the placeholder reverse_proxy sets to the upstream
// it is about to call: set (or changed) while next runs, it says that a
// reverse_proxy answered. Any other handler (osdm_sandbox, respond...)
// may answer without the token.
const proxyUpstreamVar = "http.reverse_proxy.upstream.address"

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

// writeProblem answers a refused token with its OSDM Problem and its
// WWW-Authenticate challenge.
func (a *Access) writeProblem(w http.ResponseWriter, ae *tokenauth.AccessTokenError) {
	p := ae.Problem()
	body, _ := json.Marshal(p.Body())
	h := w.Header()
	h.Set("WWW-Authenticate", ae.Challenge(a.realm, a.Scopes))
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(p.Status)
	_, _ = w.Write(body)
}

// Interface guards (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner = (*Access)(nil)
	_ caddy.Validator   = (*Access)(nil)
)
