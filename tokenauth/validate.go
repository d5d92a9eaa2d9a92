package tokenauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MaxAssertionBytes is the largest identity token a login service reads.
// An RS512 token with a 4096-bit key is under 1.5 KiB; anything near this
// limit is not an OSDM identity token.
const MaxAssertionBytes = 8 << 10

// AssertionPolicy is what a login service accepts as an identity token.
type AssertionPolicy struct {
	// Audience lists the accepted aud values (the token endpoint URL, the
	// issuer identifier). A token must name at least one of them.
	Audience []string
	// ClockSkew is the tolerance on exp, nbf and iat.
	ClockSkew time.Duration
	// MaxLifetime caps exp - iat (or exp - now when iat is absent).
	MaxLifetime time.Duration
	// Clients are the registered consumers.
	Clients []RegisteredConsumer
	// Now is the clock; nil means time.Now.
	Now Clock
}

// ValidatedAssertion is what a valid identity token says.
type ValidatedAssertion struct {
	// Subject is the client (sub).
	Subject string
	// Issuer is the iss claim.
	Issuer string
	// KeyID is the kid of the key that verified the signature.
	KeyID string
	// Alg is the JWS algorithm of the signature.
	Alg string
	// ID is the jti claim.
	ID string
	// Scopes are the scopes of the scope claim, all allowed for the client.
	Scopes []string
	// ExpiresAt is the exp claim.
	ExpiresAt time.Time
	// ReplayUntil is how long the jti must be remembered: exp plus the
	// clock skew, after which the token is refused as expired anyway.
	ReplayUntil time.Time
}

// AssertionValidator checks identity tokens (RFC 7523 JWT assertions)
// against the registered clients. It is safe for concurrent use.
type AssertionValidator struct {
	policy   AssertionPolicy
	clients  map[string]*validatorClient
	peek     *jwt.Parser
	audience string
}

// validatorClient is a registered client with its lookups and its own
// parser, whose valid methods are the client's pinned algorithms.
type validatorClient struct {
	RegisteredConsumer
	keys   map[string]*ConsumerKey
	parser *jwt.Parser
}

// assertionClaims are the claims of an identity token. scope is decoded
// by hand so that a wrong type gets a precise error.
type assertionClaims struct {
	jwt.RegisteredClaims
	Scope json.RawMessage `json:"scope,omitempty"`
}

// NewAssertionValidator checks the policy and prepares a validator.
func NewAssertionValidator(p AssertionPolicy) (*AssertionValidator, error) {
	if len(p.Audience) == 0 || slices.Contains(p.Audience, "") {
		return nil, errors.New("audience must name at least one non-empty value")
	}
	if p.ClockSkew < 0 {
		return nil, fmt.Errorf("clock skew %s is negative", p.ClockSkew)
	}
	if p.MaxLifetime <= 0 {
		return nil, fmt.Errorf("max assertion lifetime %s must be positive", p.MaxLifetime)
	}
	if len(p.Clients) == 0 {
		return nil, errors.New("no client is registered")
	}
	p.Now = p.Now.orNow()
	v := &AssertionValidator{
		policy:   p,
		clients:  make(map[string]*validatorClient, len(p.Clients)),
		peek:     jwt.NewParser(),
		audience: strings.Join(p.Audience, " or "),
	}
	for _, c := range p.Clients {
		c, err := c.check()
		if err != nil {
			return nil, err
		}
		if _, dup := v.clients[c.Subject]; dup {
			return nil, fmt.Errorf("client %q is registered twice", c.Subject)
		}
		vc := &validatorClient{RegisteredConsumer: c, keys: make(map[string]*ConsumerKey, len(c.Keys))}
		for i := range c.Keys {
			vc.keys[c.Keys[i].ID] = &c.Keys[i]
		}
		vc.parser = jwt.NewParser(
			jwt.WithValidMethods(c.Algs),
			jwt.WithAudience(p.Audience...),
			jwt.WithLeeway(p.ClockSkew),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithTimeFunc(p.Now),
		)
		v.clients[c.Subject] = vc
	}
	return v, nil
}

// Validate checks an identity token: size, typ, client, pinned alg, kid,
// key validity window, signature, exp/nbf/iat, aud, lifetime, iss, jti and
// scope. Every failure is a *Refusal with code invalid_grant (invalid_scope
// for a scope the client may not have, invalid_request for an oversized
// token); the caller turns invalid_grant into invalid_client when the token
// authenticates the client (RFC 7523 section 3.2). It does not check the
// jti for replay: that is the caller's last step, once everything passed.
func (v *AssertionValidator) Validate(assertion string) (*ValidatedAssertion, error) {
	if len(assertion) > MaxAssertionBytes {
		return nil, refuse(ReasonAssertionTooLarge, ErrCodeInvalidRequest,
			"the identity token is %d bytes; at most %d are accepted", len(assertion), MaxAssertionBytes)
	}
	if cc := checkTokenClaimNames(assertion, identityClaimNames); cc != nil {
		return nil, refuse(ReasonMalformedAssertion, ErrCodeInvalidGrant, "identity token %v; write it %q", cc, cc.Claim)
	}
	if fe := checkTokenForm(assertion); fe != nil {
		return nil, refuse(ReasonMalformedAssertion, ErrCodeInvalidGrant, "identity token refused: %v", fe)
	}
	// A first, unverified look finds the client, whose pinned algorithms
	// and keys the verifying parse then uses.
	var peeked assertionClaims
	tok, _, err := v.peek.ParseUnverified(assertion, &peeked)
	if err != nil {
		if tok != nil && errors.Is(err, jwt.ErrTokenUnverifiable) {
			alg, _ := tok.Header["alg"].(string)
			return nil, refuse(ReasonAlgNotAllowed, ErrCodeInvalidGrant,
				"identity token alg %s is not supported; sign with one of the algs registered for the client", quoteInput(alg))
		}
		return nil, refuse(ReasonMalformedAssertion, ErrCodeInvalidGrant,
			"the identity token is not a well-formed signed JWT (three base64url parts, JSON header and claims with numeric dates): %s", jwtErrorText(err))
	}
	if typ, _ := tok.Header["typ"].(string); !strings.EqualFold(typ, "JWT") {
		return nil, refuse(ReasonBadType, ErrCodeInvalidGrant,
			"identity token header typ is %s; it must be \"JWT\"", quoteInput(typ))
	}
	if peeked.Subject == "" {
		return nil, refuse(ReasonMissingClaim, ErrCodeInvalidGrant, "identity token has no sub claim; sub must be the client's username with this provider")
	}
	client := v.clients[peeked.Subject]
	if client == nil {
		return nil, refuse(ReasonUnknownClient, ErrCodeInvalidGrant,
			"sub %s is not a client of this login service; ask the provider to register it", quoteInput(peeked.Subject))
	}
	alg := tok.Method.Alg()
	if !slices.Contains(client.Algs, alg) {
		r := refuse(ReasonAlgNotAllowed, ErrCodeInvalidGrant,
			"alg %s is not accepted for client %q; registered: %s", quoteInput(alg), client.Subject, strings.Join(client.Algs, ", "))
		r.Client = client.Subject
		return nil, r
	}

	var claims assertionClaims
	var key *ConsumerKey
	_, err = client.parser.ParseWithClaims(assertion, &claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, refuse(ReasonUnknownKey, ErrCodeInvalidGrant, "identity token header has no kid; set the kid registered for this key")
		}
		k := client.keys[kid]
		if k == nil {
			return nil, refuse(ReasonUnknownKey, ErrCodeInvalidGrant,
				"kid %s is not registered for client %q; send the provider the public key and kid", quoteInput(kid), client.Subject)
		}
		key = k
		now := v.policy.Now()
		if !k.NotBefore.IsZero() && now.Before(k.NotBefore) {
			return nil, refuse(ReasonKeyNotYetValid, ErrCodeInvalidGrant,
				"key %q of client %q is valid only from %s", kid, client.Subject, k.NotBefore.UTC().Format(time.RFC3339))
		}
		if !k.NotAfter.IsZero() && !now.Before(k.NotAfter) {
			return nil, refuse(ReasonKeyRetired, ErrCodeInvalidGrant,
				"key %q of client %q was retired at %s; sign with the current key", kid, client.Subject, k.NotAfter.UTC().Format(time.RFC3339))
		}
		if err := CheckAlg(t.Method.Alg(), k.Public); err != nil {
			return nil, refuse(ReasonAlgNotAllowed, ErrCodeInvalidGrant, "key %q of client %q: %v", kid, client.Subject, err)
		}
		return k.Public, nil
	})
	if err != nil {
		r := v.classify(err, &claims, client)
		r.Client = client.Subject
		if key != nil {
			r.KeyID = key.ID
		}
		return nil, r
	}

	got, r := v.checkClaims(&claims, client)
	if r != nil {
		r.Client, r.KeyID = client.Subject, key.ID
		return nil, r
	}
	got.KeyID, got.Alg = key.ID, alg
	return got, nil
}

// classify turns a golang-jwt error into a refusal. When it is a claims
// error the signature has been verified, so the claims can be quoted.
func (v *AssertionValidator) classify(err error, claims *assertionClaims, client *validatorClient) *Refusal {
	var r *Refusal
	switch {
	case errors.As(err, &r):
		return r
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return refuse(ReasonBadSignature, ErrCodeInvalidGrant,
			"the identity token signature does not verify with the key registered for this kid; check that the private key matches the public key sent to the provider")
	case !errors.Is(err, jwt.ErrTokenInvalidClaims):
		return refuse(ReasonMalformedAssertion, ErrCodeInvalidGrant, "the identity token could not be verified: %s", jwtErrorText(err))
	}
	now := v.policy.Now().UTC().Truncate(time.Second)
	skew := v.policy.ClockSkew
	switch {
	case claims.ExpiresAt == nil:
		return refuse(ReasonMissingClaim, ErrCodeInvalidGrant, "identity token has no exp claim")
	case errors.Is(err, jwt.ErrTokenExpired):
		return refuse(ReasonExpired, ErrCodeInvalidGrant,
			"identity token expired at %s (server time %s, clock skew %s); create a new identity token for every token request and check the client's clock",
			claims.ExpiresAt.UTC().Format(time.RFC3339), now.Format(time.RFC3339), skew)
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return refuse(ReasonNotYetValid, ErrCodeInvalidGrant,
			"identity token nbf %s is in the future (server time %s, clock skew %s); check the client's clock",
			claims.NotBefore.UTC().Format(time.RFC3339), now.Format(time.RFC3339), skew)
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return refuse(ReasonIssuedInFuture, ErrCodeInvalidGrant,
			"identity token iat %s is in the future (server time %s, clock skew %s); check the client's clock",
			claims.IssuedAt.UTC().Format(time.RFC3339), now.Format(time.RFC3339), skew)
	case errors.Is(err, jwt.ErrTokenInvalidAudience), errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return refuse(ReasonBadAudience, ErrCodeInvalidGrant, "identity token aud must be %s", v.audience)
	}
	return refuse(ReasonMalformedAssertion, ErrCodeInvalidGrant, "identity token claims are invalid: %s", jwtErrorText(err))
}

// checkClaims does the checks golang-jwt has no option for: lifetime, iss,
// jti and scope.
func (v *AssertionValidator) checkClaims(c *assertionClaims, client *validatorClient) (*ValidatedAssertion, *Refusal) {
	exp := c.ExpiresAt.Time
	start, from := v.policy.Now(), "now"
	if c.IssuedAt != nil {
		start, from = c.IssuedAt.Time, "iat"
	}
	if life := exp.Sub(start); life > v.policy.MaxLifetime {
		return nil, refuse(ReasonLifetimeTooLong, ErrCodeInvalidGrant,
			"identity token lifetime (exp - %s) is %s; at most %s is accepted", from, life.Round(time.Second), v.policy.MaxLifetime)
	}
	if c.Issuer == "" {
		return nil, refuse(ReasonMissingClaim, ErrCodeInvalidGrant, "identity token has no iss claim")
	}
	if client.Issuer != "" && c.Issuer != client.Issuer {
		return nil, refuse(ReasonBadIssuer, ErrCodeInvalidGrant,
			"identity token iss is %s; client %q is registered with issuer %q", quoteInput(c.Issuer), client.Subject, client.Issuer)
	}
	if c.ID == "" {
		return nil, refuse(ReasonMissingClaim, ErrCodeInvalidGrant, "identity token has no jti claim; give every identity token a new unique jti (a UUID)")
	}
	if len(c.Scope) == 0 || string(c.Scope) == "null" {
		return nil, refuse(ReasonMissingClaim, ErrCodeInvalidGrant, "identity token has no scope claim; set it to the scopes asked for, e.g. %q", client.Scopes[0])
	}
	var scope string
	if err := json.Unmarshal(c.Scope, &scope); err != nil {
		return nil, refuse(ReasonMalformedAssertion, ErrCodeInvalidGrant, "identity token scope claim must be a string of space-separated scopes")
	}
	scopes := strings.Fields(scope)
	if len(scopes) == 0 {
		return nil, refuse(ReasonBadScope, ErrCodeInvalidScope, "identity token scope claim is empty; allowed: %s", strings.Join(client.Scopes, " "))
	}
	for _, s := range scopes {
		if !slices.Contains(client.Scopes, s) {
			return nil, refuse(ReasonBadScope, ErrCodeInvalidScope,
				"scope %s is not allowed for client %q; allowed: %s", quoteInput(s), client.Subject, strings.Join(client.Scopes, " "))
		}
	}
	return &ValidatedAssertion{
		Subject:     c.Subject,
		Issuer:      c.Issuer,
		ID:          c.ID,
		Scopes:      scopes,
		ExpiresAt:   exp,
		ReplayUntil: exp.Add(v.policy.ClockSkew),
	}, nil
}

// jwtErrorText is the text of a golang-jwt error, which names the problem
// ("token is malformed: could not JSON decode header") without quoting the
// token.
func jwtErrorText(err error) string {
	return err.Error()
}

// SignedID reads the client (sub) and jti of an identity token whose
// signature verifies with a key registered for that client, whatever its
// other claims say, and until when its jti must be remembered: its exp
// (capped at the longest lifetime a valid token can have) plus the clock
// skew. ok is false when the signature does not verify or there is no
// jti. The login service uses it to spend the jti of a token that was
// exposed (sent in a URL) without letting anyone burn the identifiers of
// a token they could not have signed.
func (v *AssertionValidator) SignedID(assertion string) (sub, jti string, until time.Time, ok bool) {
	if len(assertion) > MaxAssertionBytes {
		return "", "", time.Time{}, false
	}
	var peeked assertionClaims
	if _, _, err := v.peek.ParseUnverified(assertion, &peeked); err != nil {
		return "", "", time.Time{}, false
	}
	client := v.clients[peeked.Subject]
	if client == nil {
		return "", "", time.Time{}, false
	}
	var claims assertionClaims
	_, err := jwt.NewParser(jwt.WithValidMethods(client.Algs), jwt.WithoutClaimsValidation()).
		ParseWithClaims(assertion, &claims, func(t *jwt.Token) (any, error) {
			kid, _ := t.Header["kid"].(string)
			k := client.keys[kid]
			if k == nil {
				return nil, errors.New("unknown kid")
			}
			if err := CheckAlg(t.Method.Alg(), k.Public); err != nil {
				return nil, err
			}
			return k.Public, nil
		})
	if err != nil || claims.ID == "" || claims.Subject != client.Subject {
		return "", "", time.Time{}, false
	}
	latest := v.policy.Now().Add(v.policy.ClockSkew + v.policy.MaxLifetime)
	until = latest
	if claims.ExpiresAt != nil && claims.ExpiresAt.Before(latest) {
		until = claims.ExpiresAt.Time
	}
	return client.Subject, claims.ID, until.Add(v.policy.ClockSkew), true
}
