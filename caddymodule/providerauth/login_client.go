package providerauth

import (
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// RegisteredConsumer is a consumer registered at this login service (its
// tokenauth.RegisteredConsumer).
type RegisteredConsumer struct {
	// Subject is the sub of the client's identity tokens.
	Subject string `json:"sub,omitempty"`
	// Algs are the JWS algorithms pinned for the client. Default: each
	// key's default algorithm.
	Algs []string `json:"alg,omitempty"`
	// Keys are the client's public keys.
	Keys []ConsumerKey `json:"keys,omitempty"`
	// Scopes are the scopes the client may be granted. Default: uic_osdm.
	Scopes []string `json:"scope,omitempty"`
	// Issuer, when set, is the only iss accepted in the client's identity
	// tokens (both request forms). Default: any iss, and in the
	// client_assertion form either iss = sub or the consumer's issuer URL.
	Issuer string `json:"issuer,omitempty"`
}

// ConsumerKey is one public key of a registered consumer.
type ConsumerKey struct {
	// ID is the kid of tokens signed with the key.
	ID string `json:"kid,omitempty"`
	// File is the PEM public key (or certificate).
	File string `json:"file,omitempty"`
	// NotBefore (RFC 3339) is when the key starts being accepted.
	NotBefore string `json:"not_before,omitempty"`
	// NotAfter (RFC 3339) is when the key stops being accepted.
	NotAfter string `json:"not_after,omitempty"`
}

// load reads a client's keys and key validity windows.
func (c RegisteredConsumer) load() (tokenauth.RegisteredConsumer, error) {
	tc := tokenauth.RegisteredConsumer{Subject: c.Subject, Algs: c.Algs, Scopes: c.Scopes, Issuer: c.Issuer}
	for _, k := range c.Keys {
		pub, err := tokenauth.LoadPublicKeyFile(k.File)
		if err != nil {
			return tc, fmt.Errorf("client %q key %q: %w", c.Subject, k.ID, err)
		}
		ck := tokenauth.ConsumerKey{ID: k.ID, Public: pub}
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
