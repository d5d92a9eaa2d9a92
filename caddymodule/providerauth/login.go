package providerauth

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	caddy.RegisterModule(Login{})
}

// Login is the osdm_login handler: the token endpoint of an OSDM login
// service. It answers every request itself (it never calls the next
// handler): a form POST carrying an identity token, either as an RFC 7523
// authorization grant (grant_type
// urn:ietf:params:oauth:grant-type:jwt-bearer, assertion) or as client
// authentication (grant_type client_credentials, client_assertion_type
// urn:ietf:params:oauth:client-assertion-type:jwt-bearer,
// client_assertion), gets an access token signed with signing_key_file, or
// an RFC 6749 section 5.2 error.
type Login struct {
	// SigningKeyFile is the PEM private key that signs access tokens.
	// Required.
	SigningKeyFile string `json:"signing_key_file,omitempty"`
	// SigningAlg is the JWS algorithm of access tokens. Default: from the
	// key type (RS256, ES256/384/512, EdDSA).
	SigningAlg string `json:"signing_alg,omitempty"`
	// SigningKeyID is the kid header of access tokens. Default: derived
	// from the public key (tokenauth.PublicKeyID).
	SigningKeyID string `json:"signing_kid,omitempty"`
	// Issuer identifies this login service: the iss of access tokens.
	// Required.
	Issuer string `json:"issuer,omitempty"`
	// Audience lists the aud values identity tokens may carry (usually
	// the token endpoint URL). Default: the issuer.
	Audience []string `json:"audience,omitempty"`
	// AccessAudience is the aud of the access tokens. Default: the issuer.
	AccessAudience []string `json:"access_audience,omitempty"`
	// TokenLifetime is how long access tokens are valid; any positive
	// duration. Default: 15m.
	TokenLifetime caddy.Duration `json:"token_lifetime,omitempty"`
	// ClockSkew is the tolerance on exp, nbf and iat of identity tokens.
	// Default: 30s.
	ClockSkew caddy.Duration `json:"clock_skew,omitempty"`
	// MaxAssertionLifetime caps exp - iat (or exp - now) of identity
	// tokens, and so how long their jti must be remembered. Default: 10m.
	MaxAssertionLifetime caddy.Duration `json:"max_assertion_lifetime,omitempty"`
	// ReplayStore remembers used jti values: memory, bolt or redis.
	// Default: memory.
	ReplayStore *LoginReplayStore `json:"replay_store,omitempty"`
	// Clients are the registered consumers. At least one.
	Clients []RegisteredConsumer `json:"clients,omitempty"`

	now       tokenauth.Clock // nil: time.Now
	metrics   *loginMetrics
	logger    *zap.Logger
	service   *tokenauth.LoginService
	memoryKey string // key in loginMemoryReplayStores this module holds
	signedKey *loginSigningKey
}

// CaddyModule returns the Caddy module information.
func (Login) CaddyModule() caddy.ModuleInfo {
	return modulekit.ModuleInfo[Login]("http.handlers.osdm_login")
}

// Defaults of osdm_login.
const (
	defaultLoginTokenLifetime        = 15 * time.Minute
	defaultLoginClockSkew            = 30 * time.Second
	defaultLoginMaxAssertionLifetime = 10 * time.Minute
)

// Provision loads the keys and sets up the replay store.
func (l *Login) Provision(ctx caddy.Context) error {
	l.logger = ctx.Logger()
	if err := l.Validate(); err != nil {
		return err
	}
	lifetime := durationOr(l.TokenLifetime, defaultLoginTokenLifetime)
	skew := durationOr(l.ClockSkew, defaultLoginClockSkew)
	maxAssertion := durationOr(l.MaxAssertionLifetime, defaultLoginMaxAssertionLifetime)
	audience := l.Audience
	if len(audience) == 0 {
		audience = []string{l.Issuer}
	}
	accessAudience := l.AccessAudience
	if len(accessAudience) == 0 {
		accessAudience = []string{l.Issuer}
	}

	key, err := tokenauth.LoadPrivateKeyFile(l.SigningKeyFile)
	if err != nil {
		return fmt.Errorf("loading signing_key_file: %w", err)
	}
	alg := l.SigningAlg
	if alg == "" {
		if alg, err = tokenauth.DefaultAlg(key.Public()); err != nil {
			return fmt.Errorf("signing_key_file %q: %w", l.SigningKeyFile, err)
		}
	}
	kid := l.SigningKeyID
	if kid == "" {
		if kid, err = tokenauth.PublicKeyID(key.Public()); err != nil {
			return fmt.Errorf("signing_key_file %q: %w", l.SigningKeyFile, err)
		}
	}
	issuer := &tokenauth.AccessTokenIssuer{
		Key: key, Alg: alg, KeyID: kid, Issuer: l.Issuer, Audience: accessAudience,
		Lifetime: lifetime, Now: l.now,
	}
	if err := issuer.Check(); err != nil {
		return fmt.Errorf("access token signing: %w", err)
	}

	clients := make([]tokenauth.RegisteredConsumer, 0, len(l.Clients))
	for _, c := range l.Clients {
		tc, err := c.load()
		if err != nil {
			return err
		}
		clients = append(clients, tc)
	}
	validator, err := tokenauth.NewAssertionValidator(tokenauth.AssertionPolicy{
		Audience: audience, ClockSkew: skew, MaxLifetime: maxAssertion, Clients: clients, Now: l.now,
	})
	if err != nil {
		return err
	}

	if l.metrics, err = registerLoginMetrics(ctx.GetMetricsRegistry()); err != nil {
		return fmt.Errorf("registering metrics: %w", err)
	}
	// Last, as nothing after them can fail: Cleanup releases both.
	store, err := l.acquireReplayStore(ctx)
	if err != nil {
		return err
	}
	l.service = &tokenauth.LoginService{Validator: validator, Issuer: issuer, Replay: store}
	l.signedKey = registerLoginSigningKey(l.Issuer, kid, key.Public())
	return nil
}

// Validate checks the configuration before any file is read: the
// required fields (signing_key_file, issuer, at least one client) and
// the durations.
func (l *Login) Validate() error {
	switch {
	case l.SigningKeyFile == "":
		return errors.New("signing_key_file is required")
	case l.Issuer == "":
		return errors.New("issuer is required")
	case len(l.Clients) == 0:
		return errors.New("at least one client is required")
	}
	for name, d := range map[string]caddy.Duration{"token_lifetime": l.TokenLifetime, "clock_skew": l.ClockSkew, "max_assertion_lifetime": l.MaxAssertionLifetime} {
		if d < 0 {
			return fmt.Errorf("%s %s must be positive", name, time.Duration(d))
		}
	}
	return nil
}

func durationOr(d caddy.Duration, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return time.Duration(d)
}

// Cleanup releases the replay store and the signing key registration.
func (l *Login) Cleanup() error {
	if l.signedKey != nil {
		unregisterLoginSigningKey(l.signedKey)
		l.signedKey = nil
	}
	return l.releaseReplayStore()
}

// ServeHTTP answers a token request.
func (l *Login) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	grant, err := l.service.Token(r.Context(), r)
	if err != nil {
		var ref *tokenauth.Refusal
		if !errors.As(err, &ref) {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		l.metrics.requests.WithLabelValues(l.Issuer, loginClientLabel(ref.Client), string(ref.Reason)).Inc()
		// client and kid only once known (a registered client, a
		// registered key): never an empty field.
		fields := make([]zap.Field, 0, 6)
		fields = append(fields, zap.String("issuer", l.Issuer))
		if ref.Client != "" {
			fields = append(fields, zap.String("client", ref.Client))
		}
		if ref.KeyID != "" {
			fields = append(fields, zap.String("kid", ref.KeyID))
		}
		fields = append(fields, zap.String("reason", string(ref.Reason)), zap.String("error", ref.OAuth.Code),
			zap.String("description", ref.OAuth.Description))
		if ref.Reason == tokenauth.ReasonReplayStoreError || ref.Reason == tokenauth.ReasonReplayStoreFull {
			l.logger.Error("token request refused: replay store cannot answer", fields...)
		} else {
			l.logger.Info("token request refused", fields...)
		}
		tokenauth.WriteRefusal(w, ref, l.Issuer)
		return nil
	}
	l.metrics.requests.WithLabelValues(l.Issuer, grant.Assertion.Subject, loginOutcomeGranted).Inc()
	l.logger.Info("access token issued", zap.String("issuer", l.Issuer),
		zap.String("client", grant.Assertion.Subject), zap.String("kid", grant.Assertion.KeyID),
		zap.String("scope", grant.Response.Scope), zap.String("access_token_id", grant.AccessTokenID))
	tokenauth.WriteTokenResponse(w, &grant.Response)
	return nil
}

// Interface guards (modulekit.RegisterHandler checks caddyhttp.MiddlewareHandler
// and caddyfile.Unmarshaler)
var (
	_ caddy.Provisioner  = (*Login)(nil)
	_ caddy.CleanerUpper = (*Login)(nil)
)
