package tokenauth

import (
	"crypto"
	"errors"
	"fmt"
	"slices"
	"time"
)

// DefaultClientScope is the scope a client may ask for when its
// registration names none: the one OSDM consumers ask for by default.
const DefaultClientScope = "uic_osdm"

// RegisteredConsumer is a consumer registered with our login service
// (osdm_login): the subject its identity tokens carry, the algorithms and
// keys it may sign them with, and the scopes it may be granted. Its
// counterpart on the other side is TokenClient, our own client of a
// partner's login service.
type RegisteredConsumer struct {
	// Subject is the sub claim of the client's identity tokens (its
	// username with this provider).
	Subject string
	// Algs are the JWS algorithms the client's tokens may use. Empty means
	// the default algorithm of each of its keys (DefaultAlg).
	Algs []string
	// Keys are the client's public keys, each with its kid.
	Keys []ConsumerKey
	// Scopes are the scopes the client may be granted. Empty means
	// DefaultClientScope.
	Scopes []string
	// Issuer, when set, is the only iss accepted in the client's identity
	// tokens, in both request forms (usually the consumer's website URL,
	// as OSDM's authentication flow has it). Empty accepts any non-empty
	// iss in the authorization grant form, and in the client assertion
	// form either iss = sub (RFC 7523) or any other issuer (OSDM's form).
	Issuer string
}

// ConsumerKey is one public key of a registered consumer, valid from
// NotBefore (if set) until NotAfter (if set).
type ConsumerKey struct {
	// ID is the kid header of tokens signed with the key.
	ID string
	// Public is the public key.
	Public crypto.PublicKey
	// NotBefore is when the key starts being accepted; zero means at once.
	NotBefore time.Time
	// NotAfter is when the key stops being accepted; zero means never.
	NotAfter time.Time
}

// check validates the registration and fills in the defaulted algorithms
// and scopes in a copy.
func (c RegisteredConsumer) check() (RegisteredConsumer, error) {
	if c.Subject == "" {
		return c, errors.New("client has an empty subject")
	}
	if len(c.Keys) == 0 {
		return c, fmt.Errorf("client %q has no key", c.Subject)
	}
	seen := make(map[string]bool, len(c.Keys))
	var defaults []string
	for _, k := range c.Keys {
		if k.ID == "" {
			return c, fmt.Errorf("client %q: a key has an empty kid", c.Subject)
		}
		if seen[k.ID] {
			return c, fmt.Errorf("client %q: kid %q is registered twice", c.Subject, k.ID)
		}
		seen[k.ID] = true
		if k.Public == nil {
			return c, fmt.Errorf("client %q: key %q has no public key", c.Subject, k.ID)
		}
		if !k.NotBefore.IsZero() && !k.NotAfter.IsZero() && !k.NotAfter.After(k.NotBefore) {
			return c, fmt.Errorf("client %q: key %q has not_after before not_before", c.Subject, k.ID)
		}
		alg, err := DefaultAlg(k.Public)
		if err != nil {
			return c, fmt.Errorf("client %q: key %q: %w", c.Subject, k.ID, err)
		}
		if !slices.Contains(defaults, alg) {
			defaults = append(defaults, alg)
		}
	}
	if len(c.Algs) == 0 {
		c.Algs = defaults
	}
	for _, alg := range c.Algs {
		if _, err := SigningMethod(alg); err != nil {
			return c, fmt.Errorf("client %q: %w", c.Subject, err)
		}
	}
	// A key that no pinned algorithm fits can never verify anything: that
	// is a configuration mistake, not something to find out at request time.
	for _, k := range c.Keys {
		fits := false
		for _, alg := range c.Algs {
			if CheckAlg(alg, k.Public) == nil {
				fits = true
				break
			}
		}
		if !fits {
			return c, fmt.Errorf("client %q: key %q (%s) fits none of the client's algs %v", c.Subject, k.ID, KeyDescription(k.Public), c.Algs)
		}
	}
	if len(c.Scopes) == 0 {
		c.Scopes = []string{DefaultClientScope}
	}
	return c, nil
}
