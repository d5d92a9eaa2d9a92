package bench

import (
	"context"
	"crypto"
	"errors"
	"net/url"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	"github.com/ory/fosite"
	fositeoauth2 "github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/handler/rfc7523"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// What both validators are given: one client, one RS256 key (2048 bits,
// as caddy osdm-keygen makes), one identity token as osdm_token signs it
// (iss, sub, aud, exp, nbf, iat, jti, scope; kid and typ JWT).
const (
	validateAudience = "https://login.alpine.example/oauth/token"
	validateClient   = "example-railway"
	validateKID      = "alpine-1"
	validateScope    = "uic_osdm"
	jwtBearerGrant   = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

type validateFixture struct {
	public crypto.PublicKey
	token  string
}

func newValidateFixture(b *testing.B) *validateFixture {
	key, err := tokenauth.GenerateRSAKey(2048)
	if err != nil {
		b.Fatal(err)
	}
	signer, err := tokenauth.NewIdentitySigner(tokenauth.IdentityConfig{
		Issuer: validateClient, Subject: validateClient, Audience: validateAudience,
		KeyID: validateKID, Alg: "RS256", Scope: validateScope,
	}, key, nil)
	if err != nil {
		b.Fatal(err)
	}
	token, err := signer.Sign()
	if err != nil {
		b.Fatal(err)
	}
	return &validateFixture{public: key.Public(), token: token}
}

// ourValidator is osdm_login's validator with its defaults (30 s clock
// skew, 10 minute assertion lifetime).
func (f *validateFixture) ourValidator(b *testing.B) *tokenauth.AssertionValidator {
	v, err := tokenauth.NewAssertionValidator(tokenauth.AssertionPolicy{
		Audience: []string{validateAudience}, ClockSkew: 30 * time.Second, MaxLifetime: 10 * time.Minute,
		Clients: []tokenauth.RegisteredConsumer{{
			Subject: validateClient, Algs: []string{"RS256"}, Scopes: []string{validateScope},
			Keys: []tokenauth.ConsumerKey{{ID: validateKID, Public: f.public}},
		}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// fositeKeys is fosite's RFC 7523 key storage holding the client's key.
// The replay methods do nothing: tokenauth's Validate leaves the jti
// replay check to the caller too, so neither side pays for one here.
type fositeKeys struct{ key *jose.JSONWebKey }

func (s *fositeKeys) GetPublicKey(_ context.Context, issuer, subject, kid string) (*jose.JSONWebKey, error) {
	if issuer != validateClient || subject != validateClient || kid != validateKID {
		return nil, errors.New("unknown key")
	}
	return s.key, nil
}

func (s *fositeKeys) GetPublicKeys(_ context.Context, issuer, subject string) (*jose.JSONWebKeySet, error) {
	return &jose.JSONWebKeySet{Keys: []jose.JSONWebKey{*s.key}}, nil
}

func (s *fositeKeys) GetPublicKeyScopes(context.Context, string, string, string) ([]string, error) {
	return []string{validateScope}, nil
}

func (s *fositeKeys) IsJWTUsed(context.Context, string) (bool, error)             { return false, nil }
func (s *fositeKeys) MarkJWTUsedForTime(context.Context, string, time.Time) error { return nil }

// fositeHandler is fosite's RFC 7523 jwt-bearer grant handler, configured
// as close to osdm_login as it goes: token URL as audience, iat and jti
// required, a 10 minute assertion lifetime.
func (f *validateFixture) fositeHandler() *rfc7523.Handler {
	cfg := &fosite.Config{
		TokenURL:                            validateAudience,
		GrantTypeJWTBearerMaxDuration:       10 * time.Minute,
		ScopeStrategy:                       fosite.ExactScopeStrategy,
		AudienceMatchingStrategy:            fosite.DefaultAudienceMatchingStrategy,
		GrantTypeJWTBearerIDOptional:        false,
		GrantTypeJWTBearerCanSkipClientAuth: true,
	}
	keys := &fositeKeys{key: &jose.JSONWebKey{Key: f.public, KeyID: validateKID, Algorithm: "RS256", Use: "sig"}}
	return &rfc7523.Handler{Storage: keys, Config: cfg, HandleHelper: &fositeoauth2.HandleHelper{Config: cfg}}
}

// fositeRequest is the token request fosite's token endpoint hands the
// handler: grant type, assertion, scope, after form parsing.
func (f *validateFixture) fositeRequest() *fosite.AccessRequest {
	r := fosite.NewAccessRequest(&fosite.DefaultSession{})
	r.GrantTypes = fosite.Arguments{jwtBearerGrant}
	r.Form = url.Values{"grant_type": {jwtBearerGrant}, "assertion": {f.token}, "scope": {validateScope}}
	r.RequestedScope = fosite.Arguments{validateScope}
	r.Client = &fosite.DefaultClient{ID: validateClient, GrantTypes: fosite.Arguments{jwtBearerGrant}}
	return r
}

// BenchmarkValidateRS256 validates the same RS256 identity token over and
// over, in parallel, with tokenauth's AssertionValidator (what osdm_login
// runs before its replay check) and with fosite's RFC 7523 handler
// (HandleTokenEndpointRequest: go-jose parse and verify, its claim and
// scope checks; replay storage stubbed out).
func BenchmarkValidateRS256(b *testing.B) {
	f := newValidateFixture(b)
	b.Run("tokenauth", func(b *testing.B) {
		v := f.ourValidator(b)
		benchcpu.Parallel(b, func() error {
			_, err := v.Validate(f.token)
			return err
		})
	})
	b.Run("fosite_rfc7523", func(b *testing.B) {
		h := f.fositeHandler()
		ctx := context.Background()
		benchcpu.Parallel(b, func() error {
			return h.HandleTokenEndpointRequest(ctx, f.fositeRequest())
		})
	})
}
