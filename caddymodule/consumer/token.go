package consumer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"go.uber.org/zap"
	"golang.org/x/net/http/httpguts"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	caddy.RegisterModule(Token{})
}

// Defaults of osdm_token.
const (
	defaultTokenHeader   = "Authenticate"
	defaultMaxReplayBody = 1 << 20
)

// Token is the osdm_token handler: it logs in at a partner railway's login
// service with a signed identity token (RFC 7523), caches the access token,
// and sends it on the request to the next handler, normally reverse_proxy.
// When the partner answers 401 the token is dropped and the request is sent
// once more with a new one. A failed login is a 502 error wrapping a
// *tokenauth.LoginError.
//
// The token never reaches a log: the incoming request is not modified, and
// the reverse_proxy that follows in the same route adds the header inside
// its transport, which must be `transport osdm` (see Transport), after its
// debug log has taken its copy of the headers. An answer to a request whose
// token no transport sent is not passed on: it is a 502 error saying so.
type Token struct {
	// Partner labels logs and metrics. Default: the host of token_url.
	Partner string `json:"partner,omitempty"`
	// TokenURL is the partner's login service token endpoint. Required.
	TokenURL string `json:"token_url,omitempty"`
	// KeyFile is the PEM private key signing identity tokens: RSA (PKCS#1
	// or PKCS#8), EC P-256/384/521 (SEC1 or PKCS#8) or Ed25519 (PKCS#8).
	// It is read again on every config load. Required.
	KeyFile string `json:"key_file,omitempty"`
	// KeyID is the kid header naming the key at the partner. Required.
	KeyID string `json:"kid,omitempty"`
	// Issuer is the iss claim. Required with grant jwt_bearer; with grant
	// client_assertion it defaults to subject (RFC 7523 section 3).
	Issuer string `json:"issuer,omitempty"`
	// Subject is the sub claim, the user name given by the partner. Required.
	Subject string `json:"subject,omitempty"`
	// Audience is the aud claim. Default: token_url.
	Audience string `json:"audience,omitempty"`
	// Alg is the JWS algorithm. Default: from the key type (RS256, ES256,
	// ES384, ES512, EdDSA); PS256/384/512 and RS384/512 may be chosen.
	Alg string `json:"alg,omitempty"`
	// Scope is the scope claim and form value. Default: uic_osdm.
	Scope string `json:"scope,omitempty"`
	// Grant is the token request form: jwt_bearer (default) or client_assertion.
	Grant string `json:"grant,omitempty"`
	// Header carries "Bearer <token>" to the partner. Default: Authenticate.
	Header string `json:"header,omitempty"`
	// Lifetime is the identity token's exp - now. Default 300s, minimum 120s.
	Lifetime caddy.Duration `json:"lifetime,omitempty"`
	// RefreshAhead is how long before the access token expires a background
	// refresh starts. Default: 10% of its lifetime, at least 5s; never more
	// than half the lifetime.
	RefreshAhead caddy.Duration `json:"refresh_ahead,omitempty"`
	// DefaultExpiresIn is how long an access token is used when the login
	// service gives neither expires_in nor a JWT with exp. Default 5m.
	DefaultExpiresIn caddy.Duration `json:"default_expires_in,omitempty"`
	// MaxReplayBody is the largest request body kept in memory so that the
	// request can be sent again after a 401. Larger requests are streamed
	// and not replayed. Default 1 MiB.
	MaxReplayBody int64 `json:"max_replay_body,omitempty"`
	// LoginTimeout bounds one call of the login service, from dialling to
	// the end of its answer. Requests waiting for a token wait at most this
	// long, or less if their own context ends first. Default 30s.
	LoginTimeout caddy.Duration `json:"login_timeout,omitempty"`
	// TLS sets up the connection to an https token_url: partner CA, client
	// certificate (mutual TLS), server name, handshake timeout (default
	// 10s). It is reverse_proxy's http transport "tls" object, applied by
	// its own code. Default: the system's roots, no client certificate.
	TLS *reverseproxy.TLSConfig `json:"tls,omitempty"`

	cache      *tokenauth.TokenCache
	lastBearer *atomic.Pointer[tokenBearer]
	poolKey    string
	logger     *zap.Logger
	metrics    *tokenMetrics
}

// CaddyModule returns the Caddy module information.
func (Token) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[Token]("http.handlers.osdm_token")
}

// tokenCaches holds the token caches across config reloads, keyed by
// everything that makes a partner configuration: an unchanged partner keeps
// its token, a changed one (new key, kid, URL...) starts afresh.
// Once no configuration uses a cache, it is closed with its idle login
// connections.
var tokenCaches = modulekit.NewPool(func(c pooledCache) error {
	c.Close()
	c.transport.CloseIdleConnections()
	return nil
})

// pooledCache is a tokenCaches value: a cache and the transport of its
// logins.
type pooledCache struct {
	*tokenauth.TokenCache
	transport *http.Transport
}

// Provision fills in the defaults, loads the key and sets up (or reuses)
// the token cache.
func (t *Token) Provision(ctx caddy.Context) error {
	t.logger = ctx.Logger()
	t.lastBearer = new(atomic.Pointer[tokenBearer])
	if err := t.applyDefaults(); err != nil {
		return err
	}
	keyPEM, err := os.ReadFile(t.KeyFile)
	if err != nil {
		return fmt.Errorf("reading key_file: %w", err)
	}
	key, err := tokenauth.ParsePrivateKeyPEM(keyPEM)
	if err != nil {
		return fmt.Errorf("loading key_file %q: %w", t.KeyFile, err)
	}
	signer, err := tokenauth.NewIdentitySigner(tokenauth.IdentityConfig{
		Issuer:   t.Issuer,
		Subject:  t.Subject,
		Audience: t.Audience,
		KeyID:    t.KeyID,
		Alg:      t.Alg,
		Scope:    t.Scope,
		Lifetime: time.Duration(t.Lifetime),
	}, key, nil)
	if err != nil {
		return fmt.Errorf("key_file %q: %w", t.KeyFile, err)
	}
	t.Alg = signer.Config().Alg
	var lt *loginTLS
	var tlsDigest string
	if t.TLS != nil {
		if lt, err = loadLoginTLS(ctx, t.TLS); err != nil {
			return err
		}
		tlsDigest = lt.digest
	}

	t.metrics, err = registerTokenMetrics(ctx.GetMetricsRegistry())
	if err != nil {
		return err
	}
	keyHash := sha256.Sum256(keyPEM)
	poolKey := t.identity(hex.EncodeToString(keyHash[:]), tlsDigest)
	cache, loaded, err := tokenCaches.Take(poolKey, func() (pooledCache, error) {
		var handshake time.Duration
		if t.TLS != nil {
			handshake = time.Duration(t.TLS.HandshakeTimeout)
		}
		transport := loginTransport(lt, handshake)
		client, err := tokenauth.NewTokenClient(tokenauth.TokenClientConfig{
			Partner:          t.Partner,
			TokenURL:         t.TokenURL,
			Grant:            tokenauth.Grant(t.Grant),
			Signer:           signer,
			HTTPClient:       &http.Client{Transport: transport, Timeout: time.Duration(t.LoginTimeout)},
			DefaultExpiresIn: time.Duration(t.DefaultExpiresIn),
			Warn:             t.warn,
		})
		if err != nil {
			return pooledCache{}, err
		}
		return pooledCache{tokenauth.NewTokenCache(client, tokenauth.CacheConfig{
			RefreshAhead: time.Duration(t.RefreshAhead),
			LoginTimeout: time.Duration(t.LoginTimeout),
		}), transport}, nil
	})
	if err != nil {
		return err
	}
	t.poolKey = poolKey
	t.cache = cache.TokenCache
	t.cache.SetObserver(t.metrics.observer(t.Partner))
	app, err := appview.For(ctx)
	if err != nil {
		return err
	}
	app.Report(tokenStatus{partner: t.Partner, tokenURL: t.TokenURL, cache: t.cache})

	fields := []zap.Field{
		zap.String("partner", t.Partner),
		zap.String("token_url", t.TokenURL),
		zap.String("kid", t.KeyID),
		zap.String("alg", t.Alg),
		zap.String("key", tokenauth.KeyDescription(key.Public())),
		zap.String("grant", t.Grant),
		zap.Duration("login_timeout", time.Duration(t.LoginTimeout)),
		zap.Bool("cached_token_kept", loaded),
	}
	if lt != nil {
		fields = append(fields, lt.fields...)
	}
	t.logger.Info("osdm_token ready", fields...)
	if lt != nil && !lt.clientNotAfter.IsZero() && time.Now().After(lt.clientNotAfter) {
		t.logger.Warn("the tls_client_auth certificate has expired; the login service will refuse it",
			zap.String("partner", t.Partner), zap.Time("not_after", lt.clientNotAfter))
	}
	if t.TLS != nil && t.TLS.InsecureSkipVerify {
		t.logger.Warn("tls_insecure_skip_verify: the login service's certificate is not checked; "+
			"anyone on the path can take the identity tokens", zap.String("partner", t.Partner))
	}
	return nil
}

// login is the part of t that tokenauth.PartnerLogin's rules cover.
func (t *Token) login() tokenauth.PartnerLogin {
	return tokenauth.PartnerLogin{
		TokenURL: t.TokenURL, Partner: t.Partner, Grant: tokenauth.Grant(t.Grant),
		Issuer: t.Issuer, Subject: t.Subject, Audience: t.Audience,
	}
}

// applyDefaults fills in the defaults that do not need the key. It fails
// on a grant or issuer that Validate refuses too, so that a JSON config
// hears of them by their names before its key is read.
func (t *Token) applyDefaults() error {
	login, err := t.login().Resolve()
	if err != nil {
		return err
	}
	t.Partner, t.Grant, t.Issuer, t.Audience = login.Partner, string(login.Grant), login.Issuer, login.Audience
	if t.Scope == "" {
		t.Scope = tokenauth.DefaultScope
	}
	if t.Header == "" {
		t.Header = defaultTokenHeader
	}
	t.Header = http.CanonicalHeaderKey(t.Header)
	if t.MaxReplayBody == 0 {
		t.MaxReplayBody = defaultMaxReplayBody
	}
	if t.LoginTimeout == 0 {
		t.LoginTimeout = caddy.Duration(tokenauth.DefaultLoginTimeout)
	}
	return nil
}

// Validate checks the configuration, with or without the defaults filled in.
func (t *Token) Validate() error {
	for _, f := range []struct{ name, val string }{
		{"token_url", t.TokenURL}, {"key_file", t.KeyFile}, {"kid", t.KeyID}, {"subject", t.Subject},
	} {
		if f.val == "" {
			return fmt.Errorf("%s is required", f.name)
		}
	}
	u, err := tokenauth.ParseTokenURL(t.TokenURL)
	if err != nil {
		return err
	}
	if _, err := t.login().Resolve(); err != nil {
		return err
	}
	// RFC 6749 section 3.3: scope-tokens of printable ASCII but " and \,
	// separated by one space each.
	if t.Scope != "" {
		for _, tok := range strings.Split(t.Scope, " ") {
			if tok == "" || strings.IndexFunc(tok, func(r rune) bool { return r < 0x21 || r > 0x7e || r == '"' || r == '\\' }) >= 0 {
				return fmt.Errorf("scope %q: want scope tokens of printable ASCII (no \" or \\) separated by single spaces (RFC 6749 section 3.3)", t.Scope)
			}
		}
	}
	if t.Header != "" && !httpguts.ValidHeaderFieldName(t.Header) {
		return fmt.Errorf("header %q is not a valid HTTP header name", t.Header)
	}
	if t.Alg != "" {
		if _, err := tokenauth.SigningMethod(t.Alg); err != nil {
			return err
		}
	}
	if t.Lifetime != 0 && time.Duration(t.Lifetime) < tokenauth.MinIdentityLifetime {
		return fmt.Errorf("lifetime %s is below the minimum of %s", time.Duration(t.Lifetime), tokenauth.MinIdentityLifetime)
	}
	for _, d := range []struct {
		name string
		val  caddy.Duration
	}{{"refresh_ahead", t.RefreshAhead}, {"default_expires_in", t.DefaultExpiresIn}, {"login_timeout", t.LoginTimeout}} {
		if d.val < 0 {
			return fmt.Errorf("%s %s must not be negative", d.name, time.Duration(d.val))
		}
	}
	if t.MaxReplayBody < 0 {
		return fmt.Errorf("max_replay_body %d must not be negative", t.MaxReplayBody)
	}
	if t.TLS != nil {
		if u.Scheme != "https" {
			return fmt.Errorf("tls settings need an https token_url, not %q", t.TokenURL)
		}
		if t.TLS.HandshakeTimeout < 0 {
			return errors.New("tls: handshake_timeout must not be negative")
		}
	}
	return nil
}

// identity is the token cache key: every setting that changes which token
// the login service issues, how it is fetched or how it is cached. The
// digests stand for the content of the key and TLS files.
func (t *Token) identity(keyHash, tlsDigest string) string {
	b, _ := json.Marshal([]any{
		t.Partner, t.TokenURL, keyHash, t.KeyID, t.Issuer, t.Subject, t.Audience, t.Alg, t.Scope,
		t.Grant, t.Header, t.Lifetime, t.RefreshAhead, t.DefaultExpiresIn, t.LoginTimeout, tlsDigest,
	})
	return "osdm_token:" + string(b)
}

func (t *Token) warn(msg string) {
	t.logger.Warn(msg, zap.String("partner", t.Partner))
}

// Cleanup releases this configuration's hold on the token cache.
func (t *Token) Cleanup() error {
	return tokenCaches.Release(t.poolKey)
}

// ServeHTTP attaches the access token and calls next, once more with a new
// token if the partner answered 401.
func (t *Token) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	body, replayable, err := t.readBody(r)
	if err != nil {
		return caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("reading request body: %w", err))
	}
	tok, err := t.token(r)
	if err != nil {
		return err
	}
	a := &tokenAttempt{Bearer: subrequest.Bearer{Header: t.Header, Value: t.bearerValue(tok)}, replayable: replayable}
	a.hw.Init(w, a)
	out, err := t.outgoing(r, &a.Bearer, body, false)
	if err != nil {
		return caddyhttp.Error(http.StatusBadRequest, fmt.Errorf("reading request body: %w", err))
	}
	err = next.ServeHTTP(&a.hw, out)
	if !a.Sent.Load() && (a.hw.Held() || err == nil) {
		t.logger.Error("osdm_token: "+subrequest.ErrNoOSDMTransport.Error(), zap.String("partner", t.Partner))
		return caddyhttp.Error(http.StatusBadGateway, fmt.Errorf("osdm_token of partner %q: %w", t.Partner, subrequest.ErrNoOSDMTransport))
	}
	if !a.hw.Held() {
		return err
	}
	// The partner refused this token: drop it (unless another request
	// already did and got a new one) and try once more.
	t.cache.Invalidate(tok)
	t.logger.Debug("partner answered 401; logging in again and replaying the request", zap.String("partner", t.Partner))
	if tok, err = t.token(r); err != nil {
		return err
	}
	if out, err = t.outgoing(r, &subrequest.Bearer{Header: t.Header, Value: t.bearerValue(tok)}, body, true); err != nil {
		return caddyhttp.Error(http.StatusBadGateway, fmt.Errorf("replaying the request body: %w", err))
	}
	return next.ServeHTTP(w, out)
}

// tokenAttempt is the first call of next for one request: the bearer it
// carries and the writer that holds back the answer if the partner
// refuses the token (and the request can be sent again) or if no osdm
// transport sent the token. One allocation per request for all three.
type tokenAttempt struct {
	subrequest.Bearer
	hw         subrequest.HeldWriter
	replayable bool
}

// Hold implements subrequest.HoldDecider.
func (a *tokenAttempt) Hold(code int) bool {
	return !a.Sent.Load() || a.replayable && code == http.StatusUnauthorized
}

// bearerValue is "Bearer <token>", made once per access token.
func (t *Token) bearerValue(tok *tokenauth.Token) string {
	if v := t.lastBearer.Load(); v != nil && v.tok == tok {
		return v.value
	}
	v := &tokenBearer{tok: tok, value: "Bearer " + tok.AccessToken}
	t.lastBearer.Store(v)
	return v.value
}

// tokenBearer is the header value of one access token.
type tokenBearer struct {
	tok   *tokenauth.Token
	value string
}

// token returns an access token, or the login failure as a 502 error.
func (t *Token) token(r *http.Request) (*tokenauth.Token, error) {
	tok, err := t.cache.Token(r.Context())
	if err != nil {
		var le *tokenauth.LoginError
		if errors.As(err, &le) {
			t.logger.Error("login at partner failed", zap.String("partner", t.Partner), zap.Error(err))
			return nil, caddyhttp.Error(http.StatusBadGateway, err)
		}
		return nil, caddyhttp.Error(http.StatusBadGateway, fmt.Errorf("partner %q: %w: %w", t.Partner, subrequest.ErrLoginWait, err))
	}
	return tok, nil
}

// readBody buffers up to MaxReplayBody bytes of the request body. If the
// body is larger, it is not replayable and body returns it whole, streamed.
// A request that can make its body again (GetBody, as osdm_convert's
// sub-requests and net/http's requests with in-memory bodies do) is
// replayable without a copy: body is nil then, and outgoing calls GetBody
// for the replay.
func (t *Token) readBody(r *http.Request) (body []byte, replayable bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true, nil
	}
	if r.GetBody != nil && r.ContentLength >= 0 {
		return nil, true, nil
	}
	buf, err := subrequest.ReadAllSized(io.LimitReader(r.Body, t.MaxReplayBody+1), r.ContentLength)
	if err != nil {
		return nil, false, err
	}
	if int64(len(buf)) <= t.MaxReplayBody {
		return buf, true, nil
	}
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
	return nil, false, nil
}

// outgoing is the request handed to next: a copy whose context carries b,
// for the osdm transport to add (the header map is r's: the incoming
// request, which the access log prints, never holds the token). Its body
// is the buffered body when readBody kept one; else, for a replay, the
// one r.GetBody makes again; else r's own.
func (t *Token) outgoing(r *http.Request, b *subrequest.Bearer, body []byte, replay bool) (*http.Request, error) {
	out := r.WithContext(subrequest.WithBearer(r.Context(), b))
	switch {
	case body != nil:
		// reverse_proxy trusts ContentLength: it must match the body exactly.
		out.ContentLength = int64(len(body))
		out.Body = http.NoBody
		if len(body) > 0 {
			out.Body = io.NopCloser(bytes.NewReader(body))
		}
		out.GetBody = nil
	case replay && r.GetBody != nil:
		rc, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		out.Body = rc
	case replay && (r.Body == nil || r.Body == http.NoBody):
		out.ContentLength = 0
		out.Body = http.NoBody
		out.GetBody = nil
	}
	return out, nil
}

// Interface guards (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner  = (*Token)(nil)
	_ caddy.Validator    = (*Token)(nil)
	_ caddy.CleanerUpper = (*Token)(nil)
)
