package tokenauth

import (
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// AccessTokenError is an access token a functional API refuses. Its
// Description says why without quoting the token.
type AccessTokenError struct {
	// Reason is a stable label: missing, malformed, bad_typ, unknown_key,
	// bad_signature, expired, not_yet_valid, bad_issuer, bad_audience,
	// insufficient_scope.
	Reason string
	// Description is written for the consumer's operator.
	Description string
}

// Error implements error.
func (e *AccessTokenError) Error() string { return e.Reason + ": " + e.Description }

// HTTPStatus is 403 for a valid token without the needed scope (RFC 6750
// section 3.1), 401 otherwise.
func (e *AccessTokenError) HTTPStatus() int {
	if e.Reason == "insufficient_scope" {
		return http.StatusForbidden
	}
	return http.StatusUnauthorized
}

// BearerError is the RFC 6750 error code of the WWW-Authenticate
// challenge: none for a request without a token, insufficient_scope, or
// invalid_token.
func (e *AccessTokenError) BearerError() string {
	switch e.Reason {
	case "missing":
		return ""
	case "insufficient_scope":
		return "insufficient_scope"
	}
	return "invalid_token"
}

// AccessTokenVerifier checks the access tokens of functional calls. It is
// safe for concurrent use.
type AccessTokenVerifier struct {
	// Keys returns the public keys that may have signed a token whose
	// header has this kid (the kid may be empty).
	Keys func(kid string) []crypto.PublicKey
	// Issuer, when set, must be the token's iss.
	Issuer string
	// Audience, when set, must be among the token's aud.
	Audience string
	// Scopes must all be granted by the token.
	Scopes []string
	// Leeway tolerates clock differences on exp and iat.
	Leeway time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// StaticKeys is a key source for AccessTokenVerifier.Keys that offers the
// same keys whatever the kid.
func StaticKeys(keys ...crypto.PublicKey) func(string) []crypto.PublicKey {
	return func(string) []crypto.PublicKey { return keys }
}

// allAsymmetricAlgs are the algs an access token may have; each is then
// matched to the key type, so RSA keys verify only RS*/PS* and so on.
var allAsymmetricAlgs = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// Verify checks a token and returns its claims; the error is an
// *AccessTokenError.
func (v *AccessTokenVerifier) Verify(token string) (*AccessTokenClaims, error) {
	if token == "" {
		return nil, &AccessTokenError{"missing", "the request has no access token; get one from the login service and send it as Bearer token"}
	}
	if len(token) > MaxAssertionBytes {
		return nil, &AccessTokenError{"malformed", "the access token is too large"}
	}
	if cc := checkTokenClaimNames(token, accessClaimNames); cc != nil {
		return nil, &AccessTokenError{"malformed", "the access token's " + cc.Error()}
	}
	if fe := checkTokenForm(token); fe != nil {
		return nil, &AccessTokenError{"malformed", "access token refused: " + fe.Error()}
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(allAsymmetricAlgs),
		jwt.WithLeeway(v.Leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(now),
	}
	if v.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(v.Issuer))
	}
	if v.Audience != "" {
		opts = append(opts, jwt.WithAudience(v.Audience))
	}
	var claims AccessTokenClaims
	_, err := jwt.NewParser(opts...).ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		if typ, _ := t.Header["typ"].(string); !strings.EqualFold(typ, AccessTokenType) {
			return nil, &AccessTokenError{"bad_typ", fmt.Sprintf("the token's typ is %s, not %q: it is not an access token of this login service", quoteInput(typ), AccessTokenType)}
		}
		kid, _ := t.Header["kid"].(string)
		var set jwt.VerificationKeySet
		for _, k := range v.Keys(kid) {
			if CheckAlg(t.Method.Alg(), k) == nil {
				set.Keys = append(set.Keys, k)
			}
		}
		if len(set.Keys) == 0 {
			return nil, &AccessTokenError{"unknown_key", "no key of the login service verifies this token (unknown kid or alg); get a new token"}
		}
		return set, nil
	})
	if err == nil {
		for _, s := range v.Scopes {
			if !slices.Contains(strings.Fields(claims.Scope), s) {
				return nil, &AccessTokenError{"insufficient_scope", fmt.Sprintf("the access token does not grant scope %q", s)}
			}
		}
		if claims.Subject == "" {
			return nil, &AccessTokenError{"malformed", "the access token has no sub"}
		}
		return &claims, nil
	}
	var ae *AccessTokenError
	switch {
	case errors.As(err, &ae):
		return nil, ae
	case errors.Is(err, jwt.ErrTokenMalformed), errors.Is(err, jwt.ErrTokenUnverifiable) && !errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return nil, &AccessTokenError{"malformed", "the access token is not a well-formed signed JWT"}
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return nil, &AccessTokenError{"bad_signature", "the access token signature is invalid; get a new token from the login service"}
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, &AccessTokenError{"expired", "the access token has expired; get a new one from the login service"}
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued), errors.Is(err, jwt.ErrTokenNotValidYet):
		return nil, &AccessTokenError{"not_yet_valid", "the access token is not valid yet; check the clocks"}
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return nil, &AccessTokenError{"bad_issuer", fmt.Sprintf("the access token was not issued by %s", v.Issuer)}
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return nil, &AccessTokenError{"bad_audience", fmt.Sprintf("the access token is not for audience %s", v.Audience)}
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return nil, &AccessTokenError{"malformed", "the access token lacks a required claim (exp, iss or aud)"}
	}
	return nil, &AccessTokenError{"malformed", "the access token is invalid"}
}
