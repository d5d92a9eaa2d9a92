package tokenauth

import (
	"crypto"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// AccessTokenType is the typ header of access tokens (RFC 9068). It keeps
// an access token from being taken for an identity token and back.
const AccessTokenType = "at+jwt"

// AccessTokenIssuer signs the access tokens a login service hands out.
type AccessTokenIssuer struct {
	// Key signs the tokens.
	Key crypto.Signer
	// Alg is the JWS algorithm; it must fit Key (CheckAlg).
	Alg string
	// KeyID is the kid header, which lets verifiers pick the key.
	KeyID string
	// Issuer is the iss claim.
	Issuer string
	// Audience is the aud claim: the functional API the token is for.
	Audience []string
	// Lifetime is how long a token is valid: any positive duration.
	Lifetime time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// AccessTokenClaims are the claims of an access token.
type AccessTokenClaims struct {
	jwt.RegisteredClaims
	// Scope is the space-separated granted scopes.
	Scope string `json:"scope"`
	// ClientID is the client the token was issued to (RFC 9068), equal to sub.
	ClientID string `json:"client_id"`
}

// IssuedAccessToken is a signed access token and what the token response
// says about it.
type IssuedAccessToken struct {
	// Token is the signed JWT.
	Token string
	// ExpiresIn is the whole seconds the token is valid for (expires_in).
	ExpiresIn int64
	// ExpiresAt is the exp claim.
	ExpiresAt time.Time
	// ID is the jti claim, for logs.
	ID string
}

// Check reports a configuration the issuer cannot sign with.
func (i *AccessTokenIssuer) Check() error {
	if i.Key == nil {
		return errors.New("no signing key")
	}
	if err := CheckAlg(i.Alg, i.Key.Public()); err != nil {
		return err
	}
	if i.KeyID == "" {
		return errors.New("empty kid")
	}
	if i.Issuer == "" {
		return errors.New("empty issuer")
	}
	if len(i.Audience) == 0 {
		return errors.New("empty access token audience")
	}
	if i.Lifetime <= 0 {
		return fmt.Errorf("token lifetime %s must be positive", i.Lifetime)
	}
	return nil
}

// Issue signs an access token for subject with the given scopes.
func (i *AccessTokenIssuer) Issue(subject string, scopes []string) (*IssuedAccessToken, error) {
	method, err := SigningMethod(i.Alg)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if i.Now != nil {
		now = i.Now
	}
	t := now()
	// exp is a whole second: round it up so that the token lives at least
	// as long as expires_in says.
	exp := t.Add(i.Lifetime).Truncate(time.Second)
	if exp.Before(t.Add(i.Lifetime)) {
		exp = exp.Add(time.Second)
	}
	id := uuid.NewString()
	claims := AccessTokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    i.Issuer,
			Subject:   subject,
			Audience:  i.Audience,
			ExpiresAt: jwt.NewNumericDate(exp),
			IssuedAt:  jwt.NewNumericDate(t),
			ID:        id,
		},
		Scope:    strings.Join(scopes, " "),
		ClientID: subject,
	}
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = i.KeyID
	tok.Header["typ"] = AccessTokenType
	signed, err := tok.SignedString(i.Key)
	if err != nil {
		return nil, fmt.Errorf("signing access token: %w", err)
	}
	expiresIn := int64(i.Lifetime / time.Second)
	if expiresIn < 1 {
		expiresIn = 1
	}
	return &IssuedAccessToken{Token: signed, ExpiresIn: expiresIn, ExpiresAt: exp, ID: id}, nil
}
