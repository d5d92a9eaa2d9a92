package tokenauth

import (
	"crypto"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Defaults and limits of identity tokens.
const (
	// DefaultScope is the scope asked for when none is configured.
	DefaultScope = "uic_osdm"
	// MinIdentityLifetime is the shortest identity token lifetime
	// (exp - now) accepted: OSDM login services require at least 120 s.
	MinIdentityLifetime = 120 * time.Second
	// DefaultIdentityLifetime is exp - now when no lifetime is configured.
	DefaultIdentityLifetime = 300 * time.Second
	// IdentityNotBeforeSkew is how far nbf lies before now, so that a login
	// service whose clock is behind still accepts the token.
	IdentityNotBeforeSkew = 120 * time.Second
)

// IdentityConfig describes the identity tokens (RFC 7523 JWT assertions) a
// consumer signs to log in at a partner's login service.
type IdentityConfig struct {
	// Issuer is the iss claim. Required.
	Issuer string
	// Subject is the sub claim: the user name the provider gave us. Required.
	Subject string
	// Audience is the aud claim, normally the token endpoint URL. Required.
	Audience string
	// KeyID is the kid header naming the key at the provider. Required.
	KeyID string
	// Alg is the JWS algorithm; empty means DefaultAlg of the key.
	Alg string
	// Scope is the scope claim; empty means DefaultScope.
	Scope string
	// Lifetime is exp - now; zero means DefaultIdentityLifetime, and less
	// than MinIdentityLifetime is an error.
	Lifetime time.Duration
}

// IdentitySigner signs identity tokens with a private key. It is safe for
// concurrent use.
type IdentitySigner struct {
	cfg    IdentityConfig
	key    crypto.Signer
	method jwt.SigningMethod
	now    Clock
}

// NewIdentitySigner checks cfg against key (alg must fit the key type) and
// fills in the defaults. now may be nil.
func NewIdentitySigner(cfg IdentityConfig, key crypto.Signer, now Clock) (*IdentitySigner, error) {
	if key == nil {
		return nil, errors.New("no private key")
	}
	for _, f := range []struct{ name, val string }{
		{"issuer", cfg.Issuer}, {"subject", cfg.Subject}, {"audience", cfg.Audience}, {"kid", cfg.KeyID},
	} {
		if f.val == "" {
			return nil, fmt.Errorf("identity token: %s is required", f.name)
		}
	}
	if cfg.Alg == "" {
		alg, err := DefaultAlg(key.Public())
		if err != nil {
			return nil, err
		}
		cfg.Alg = alg
	}
	if err := CheckAlg(cfg.Alg, key.Public()); err != nil {
		return nil, err
	}
	method, err := SigningMethod(cfg.Alg)
	if err != nil {
		return nil, err
	}
	if cfg.Scope == "" {
		cfg.Scope = DefaultScope
	}
	switch {
	case cfg.Lifetime == 0:
		cfg.Lifetime = DefaultIdentityLifetime
	case cfg.Lifetime < MinIdentityLifetime:
		return nil, fmt.Errorf("identity token lifetime %s is below the minimum of %s", cfg.Lifetime, MinIdentityLifetime)
	}
	return &IdentitySigner{cfg: cfg, key: key, method: method, now: now.orNow()}, nil
}

// Config returns the configuration with its defaults filled in.
func (s *IdentitySigner) Config() IdentityConfig { return s.cfg }

// Sign returns a new identity token: header alg, kid, typ=JWT; claims iss,
// sub, aud, exp, scope, nbf, iat and a fresh UUID as jti. The result is a
// credential: never log it.
func (s *IdentitySigner) Sign() (string, error) {
	now := s.now()
	claims := jwt.MapClaims{
		"iss":   s.cfg.Issuer,
		"sub":   s.cfg.Subject,
		"aud":   s.cfg.Audience,
		"exp":   now.Add(s.cfg.Lifetime).Unix(),
		"scope": s.cfg.Scope,
		"nbf":   now.Add(-IdentityNotBeforeSkew).Unix(),
		"iat":   now.Unix(),
		"jti":   uuid.NewString(),
	}
	tok := jwt.NewWithClaims(s.method, claims)
	tok.Header["kid"] = s.cfg.KeyID
	signed, err := tok.SignedString(s.key)
	if err != nil {
		return "", fmt.Errorf("signing identity token with %s: %w", s.cfg.Alg, err)
	}
	return signed, nil
}
