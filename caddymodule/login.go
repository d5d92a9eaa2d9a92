package caddymodule

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	caddy.RegisterModule(Login{})
}

// Defaults of osdm_login.
const (
	defaultLoginTokenLifetime        = 15 * time.Minute
	defaultLoginClockSkew            = 30 * time.Second
	defaultLoginMaxAssertionLifetime = 10 * time.Minute
)

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
	// ReplayStore remembers used jti values. Default: memory.
	ReplayStore *LoginReplayStore `json:"replay_store,omitempty"`
	// Clients are the registered consumers. At least one.
	Clients []LoginClient `json:"clients,omitempty"`

	now       func() time.Time
	logger    *zap.Logger
	service   *tokenauth.LoginService
	storeKey  string
	signedKey *loginSigningKey
}

// LoginReplayStore chooses where used jti values are kept.
type LoginReplayStore struct {
	// Type is memory (this instance only) or redis (shared by all
	// instances using the same Redis).
	Type string `json:"type,omitempty"`
	// Address is the Redis address, host:port or a redis:// or rediss://
	// URL (which can carry a password and database). Type redis only.
	Address string `json:"address,omitempty"`
	// MaxEntries bounds the memory store; at the limit new tokens are
	// refused (temporarily_unavailable). Default: 1000000. Type memory only.
	MaxEntries int `json:"max_entries,omitempty"`
}

// LoginClient is a registered consumer.
type LoginClient struct {
	// Subject is the sub of the client's identity tokens.
	Subject string `json:"sub,omitempty"`
	// Algs are the JWS algorithms pinned for the client. Default: each
	// key's default algorithm.
	Algs []string `json:"alg,omitempty"`
	// Keys are the client's public keys.
	Keys []LoginClientKey `json:"keys,omitempty"`
	// Scopes are the scopes the client may be granted. Default: uic_osdm.
	Scopes []string `json:"scope,omitempty"`
	// Issuer, when set, is the only iss accepted in the client's identity
	// tokens (both request forms). Default: any iss, and in the
	// client_assertion form either iss = sub or the consumer's issuer URL.
	Issuer string `json:"issuer,omitempty"`
}

// LoginClientKey is one public key of a client.
type LoginClientKey struct {
	// ID is the kid of tokens signed with the key.
	ID string `json:"kid,omitempty"`
	// File is the PEM public key (or certificate).
	File string `json:"file,omitempty"`
	// NotBefore (RFC 3339) is when the key starts being accepted.
	NotBefore string `json:"not_before,omitempty"`
	// NotAfter (RFC 3339) is when the key stops being accepted.
	NotAfter string `json:"not_after,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Login) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.osdm_login",
		New: func() caddy.Module { return new(Login) },
	}
}

// Provision loads the keys and sets up the replay store.
func (l *Login) Provision(ctx caddy.Context) error {
	l.logger = ctx.Logger()
	if l.now == nil {
		l.now = time.Now
	}
	if l.Issuer == "" {
		return errors.New("issuer is required")
	}
	if l.SigningKeyFile == "" {
		return errors.New("signing_key_file is required")
	}
	if len(l.Clients) == 0 {
		return errors.New("at least one client is required")
	}
	lifetime := durationOr(l.TokenLifetime, defaultLoginTokenLifetime)
	skew := durationOr(l.ClockSkew, defaultLoginClockSkew)
	maxAssertion := durationOr(l.MaxAssertionLifetime, defaultLoginMaxAssertionLifetime)
	for name, d := range map[string]time.Duration{"token_lifetime": lifetime, "clock_skew": skew, "max_assertion_lifetime": maxAssertion} {
		if d < 0 {
			return fmt.Errorf("%s %s must be positive", name, d)
		}
	}
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

	clients := make([]tokenauth.LoginClient, 0, len(l.Clients))
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

	if err := registerLoginMetrics(ctx.GetMetricsRegistry()); err != nil {
		return err
	}
	// Last, as nothing after them can fail: Cleanup releases both.
	store, err := l.acquireReplayStore()
	if err != nil {
		return err
	}
	l.service = &tokenauth.LoginService{Validator: validator, Issuer: issuer, Replay: store}
	l.signedKey = registerLoginSigningKey(l.Issuer, kid, key.Public())
	return nil
}

// load reads a client's keys and key validity windows.
func (c LoginClient) load() (tokenauth.LoginClient, error) {
	tc := tokenauth.LoginClient{Subject: c.Subject, Algs: c.Algs, Scopes: c.Scopes, Issuer: c.Issuer}
	for _, k := range c.Keys {
		pub, err := tokenauth.LoadPublicKeyFile(k.File)
		if err != nil {
			return tc, fmt.Errorf("client %q key %q: %w", c.Subject, k.ID, err)
		}
		ck := tokenauth.ClientKey{ID: k.ID, Public: pub}
		if ck.NotBefore, err = parseKeyTime(k.NotBefore); err != nil {
			return tc, fmt.Errorf("client %q key %q not_before: %w", c.Subject, k.ID, err)
		}
		if ck.NotAfter, err = parseKeyTime(k.NotAfter); err != nil {
			return tc, fmt.Errorf("client %q key %q not_after: %w", c.Subject, k.ID, err)
		}
		tc.Keys = append(tc.Keys, ck)
	}
	return tc, nil
}

// parseKeyTime parses an RFC 3339 time; "" is the zero time.
func parseKeyTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339, s)
}

func durationOr(d caddy.Duration, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return time.Duration(d)
}

// loginReplayStores holds the replay stores across configuration reloads:
// a reload must not forget the jti values of identity tokens that are
// still valid, or they could be replayed. A memory store is shared by the
// login handlers with the same issuer, a Redis client by those with the
// same address.
var loginReplayStores = caddy.NewUsagePool()

// pooledReplayStore is a replay store in loginReplayStores.
type pooledReplayStore struct {
	tokenauth.ReplayStore
	issuer string
	memory *tokenauth.MemoryReplayStore
	redis  *redis.Client
}

// Destruct stops the sweeper or closes the Redis connections once no
// configuration uses the store any more.
func (p *pooledReplayStore) Destruct() error {
	if p.memory != nil {
		p.memory.Stop()
	}
	if p.redis != nil {
		return p.redis.Close()
	}
	return nil
}

func (l *Login) acquireReplayStore() (tokenauth.ReplayStore, error) {
	cfg := LoginReplayStore{Type: "memory"}
	if l.ReplayStore != nil {
		cfg = *l.ReplayStore
	}
	switch cfg.Type {
	case "memory", "":
		if cfg.Address != "" {
			return nil, errors.New("replay_store memory takes no address")
		}
		if cfg.MaxEntries < 0 {
			return nil, fmt.Errorf("replay_store max_entries %d must be positive", cfg.MaxEntries)
		}
		l.storeKey = "memory\x00" + l.Issuer
		v, _, err := loginReplayStores.LoadOrNew(l.storeKey, func() (caddy.Destructor, error) {
			m := tokenauth.NewMemoryReplayStore(tokenauth.MemoryReplayOptions{MaxEntries: cfg.MaxEntries, Now: l.now})
			return &pooledReplayStore{ReplayStore: m, issuer: l.Issuer, memory: m}, nil
		})
		if err != nil {
			return nil, err
		}
		p := v.(*pooledReplayStore)
		p.memory.SetMaxEntries(cfg.MaxEntries)
		return p, nil
	case "redis":
		if cfg.Address == "" {
			return nil, errors.New("replay_store redis needs an address")
		}
		if cfg.MaxEntries != 0 {
			return nil, errors.New("replay_store redis takes no max_entries: Redis's own maxmemory applies")
		}
		opts, err := redisOptions(caddy.NewReplacer().ReplaceAll(cfg.Address, ""))
		if err != nil {
			return nil, fmt.Errorf("replay_store redis address: %w", err)
		}
		l.storeKey = "redis\x00" + cfg.Address
		v, _, err := loginReplayStores.LoadOrNew(l.storeKey, func() (caddy.Destructor, error) {
			c := redis.NewClient(opts)
			return &pooledReplayStore{ReplayStore: tokenauth.NewRedisReplayStore(c, "", l.now), redis: c}, nil
		})
		if err != nil {
			return nil, err
		}
		p := v.(*pooledReplayStore)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := p.redis.Ping(ctx).Err(); err != nil {
			// Not fatal: Redis may come up after Caddy. Until it does,
			// token requests are refused with server_error.
			l.logger.Warn("replay_store redis is not reachable; token requests fail until it is",
				zap.String("address", opts.Addr), zap.Error(err))
		}
		return p, nil
	}
	return nil, fmt.Errorf("replay_store %q is unknown (want memory or redis)", cfg.Type)
}

// redisOptions reads host:port or a redis:// / rediss:// URL. Timeouts are
// short: a token request waiting on a dead Redis should fail in seconds.
func redisOptions(addr string) (*redis.Options, error) {
	var opts *redis.Options
	if strings.Contains(addr, "://") {
		var err error
		if opts, err = redis.ParseURL(addr); err != nil {
			return nil, err
		}
	} else {
		opts = &redis.Options{Addr: addr}
	}
	opts.DialTimeout = 2 * time.Second
	opts.ReadTimeout = time.Second
	opts.WriteTimeout = time.Second
	opts.MaxRetries = 1
	return opts, nil
}

// Cleanup releases the replay store and the signing key registration.
func (l *Login) Cleanup() error {
	if l.signedKey != nil {
		unregisterLoginSigningKey(l.signedKey)
		l.signedKey = nil
	}
	if l.storeKey != "" {
		key := l.storeKey
		l.storeKey = ""
		_, err := loginReplayStores.Delete(key)
		return err
	}
	return nil
}

// ServeHTTP answers a token request.
func (l *Login) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	grant, err := l.service.Token(r.Context(), r)
	if err != nil {
		var ref *tokenauth.Refusal
		if !errors.As(err, &ref) {
			return caddyhttp.Error(http.StatusInternalServerError, err)
		}
		loginRequests.WithLabelValues(loginClientLabel(ref.Client), string(ref.Reason)).Inc()
		fields := []zap.Field{
			zap.String("client", ref.Client), zap.String("kid", ref.KeyID),
			zap.String("reason", string(ref.Reason)), zap.String("error", ref.OAuth.Code),
			zap.String("description", ref.OAuth.Description),
		}
		if ref.Reason == tokenauth.ReasonReplayStoreError || ref.Reason == tokenauth.ReasonReplayStoreFull {
			l.logger.Error("token request refused: replay store cannot answer", fields...)
		} else {
			l.logger.Info("token request refused", fields...)
		}
		tokenauth.WriteRefusal(w, ref, l.Issuer)
		return nil
	}
	loginRequests.WithLabelValues(grant.Assertion.Subject, loginOutcomeGranted).Inc()
	l.logger.Info("access token issued",
		zap.String("client", grant.Assertion.Subject), zap.String("kid", grant.Assertion.KeyID),
		zap.String("scope", grant.Response.Scope), zap.String("access_token_id", grant.AccessTokenID))
	tokenauth.WriteTokenResponse(w, &grant.Response)
	return nil
}

// loginClientLabel is the client metric label: configured clients only,
// so that made-up subjects cannot grow the label set.
func loginClientLabel(client string) string {
	if client == "" {
		return "unknown"
	}
	return client
}

// loginOutcomeGranted is the outcome label of a granted token request;
// refusals carry their tokenauth.RefusalReason.
const loginOutcomeGranted = "granted"

var (
	loginRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "osdm_login", Name: "token_requests_total",
		Help: "Token requests by configured client (or unknown) and outcome (granted or the refusal reason).",
	}, []string{"client", "outcome"})
	loginReplayEntriesDesc = prometheus.NewDesc("caddy_osdm_login_replay_store_entries",
		"Entries in the memory replay store of each login service issuer.", []string{"issuer"}, nil)
)

// loginReplayCollector reports the size of every memory replay store in
// use, whichever configuration loaded it.
type loginReplayCollector struct{}

func (loginReplayCollector) Describe(ch chan<- *prometheus.Desc) { ch <- loginReplayEntriesDesc }

func (loginReplayCollector) Collect(ch chan<- prometheus.Metric) {
	loginReplayStores.Range(func(_, v any) bool {
		if p := v.(*pooledReplayStore); p.memory != nil {
			ch <- prometheus.MustNewConstMetric(loginReplayEntriesDesc, prometheus.GaugeValue, float64(p.memory.Len()), p.issuer)
		}
		return true
	})
}

// registerLoginMetrics adds the login metrics to a configuration's
// registry; a second osdm_login in the same configuration finds them there.
func registerLoginMetrics(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{loginRequests, loginReplayCollector{}} {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return fmt.Errorf("registering metrics: %w", err)
			}
		}
	}
	return nil
}

// loginSigningKey is the public half of an osdm_login signing key, which
// an osdm_access without key_file uses to check access tokens.
type loginSigningKey struct {
	issuer, kid string
	public      crypto.PublicKey
}

// loginSigningKeys are the signing keys of the provisioned osdm_login
// handlers by issuer. During a reload the old and the new configuration's
// keys are both there, so tokens of either verify.
var loginSigningKeys = struct {
	sync.RWMutex
	byIssuer map[string][]*loginSigningKey
}{byIssuer: make(map[string][]*loginSigningKey)}

func registerLoginSigningKey(issuer, kid string, pub crypto.PublicKey) *loginSigningKey {
	k := &loginSigningKey{issuer: issuer, kid: kid, public: pub}
	loginSigningKeys.Lock()
	loginSigningKeys.byIssuer[issuer] = append(loginSigningKeys.byIssuer[issuer], k)
	loginSigningKeys.Unlock()
	return k
}

func unregisterLoginSigningKey(k *loginSigningKey) {
	loginSigningKeys.Lock()
	defer loginSigningKeys.Unlock()
	keys := loginSigningKeys.byIssuer[k.issuer]
	for i, have := range keys {
		if have == k {
			keys = append(keys[:i:i], keys[i+1:]...)
			break
		}
	}
	if len(keys) == 0 {
		delete(loginSigningKeys.byIssuer, k.issuer)
	} else {
		loginSigningKeys.byIssuer[k.issuer] = keys
	}
}

// loginPublicKeys returns the signing keys of the osdm_login handlers with
// this issuer whose kid matches (any kid when kid is empty).
func loginPublicKeys(issuer, kid string) []crypto.PublicKey {
	loginSigningKeys.RLock()
	defer loginSigningKeys.RUnlock()
	var out []crypto.PublicKey
	for _, k := range loginSigningKeys.byIssuer[issuer] {
		if kid == "" || k.kid == kid {
			out = append(out, k.public)
		}
	}
	return out
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Login)(nil)
	_ caddy.CleanerUpper          = (*Login)(nil)
	_ caddyhttp.MiddlewareHandler = (*Login)(nil)
)
