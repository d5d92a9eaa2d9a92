package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"sync/atomic"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// directTokens logs in at the partner as subject (bench-direct, the client
// whose token the driver sends itself through the bare proxy; or a
// converter front's own client, whose offers and bookings the driver
// makes ahead for it: the partner lets a client book and change only its
// own), and returns the tokens as a cache that logs in again ahead of
// each token's expiry: a run may last longer than the partner's token
// lifetime. The first login is made here, so a refused client fails the
// run before it starts. logins counts the tokens the partner granted the
// cache.
func directTokens(ctx context.Context, partner, keys, subject string) (cache *tokenauth.TokenCache, logins *countedLogins, err error) {
	key, err := tokenauth.LoadPrivateKeyFile(filepath.Join(keys, "alpine.pem"))
	if err != nil {
		return nil, nil, err
	}
	tokenURL := partner + "/oauth/token"
	signer, err := tokenauth.NewIdentitySigner(tokenauth.IdentityConfig{
		Issuer: subject, Subject: subject, Audience: tokenURL, KeyID: "alpine-demo-1",
	}, key, nil)
	if err != nil {
		return nil, nil, err
	}
	client, err := tokenauth.NewTokenClient(tokenauth.TokenClientConfig{Partner: partnerName, TokenURL: tokenURL, Signer: signer})
	if err != nil {
		return nil, nil, err
	}
	logins = &countedLogins{src: client}
	cache = tokenauth.NewTokenCache(logins, tokenauth.CacheConfig{})
	if _, err := cache.Token(ctx); err != nil {
		cache.Close()
		return nil, nil, err
	}
	return cache, logins, nil
}

// countedLogins is a login (a token source) that counts the tokens it
// was granted. The driver makes a converter front's offers and bookings
// as that front's own client, so the partner's count of that client's
// logins holds the driver's too; the judge takes these off.
type countedLogins struct {
	src     tokenauth.TokenSource
	granted atomic.Int64
}

// Token logs in through src and counts a granted token.
func (c *countedLogins) Token(ctx context.Context) (*tokenauth.Token, error) {
	tok, err := c.src.Token(ctx)
	if err == nil {
		c.granted.Add(1)
	}
	return tok, err
}

// count is how many tokens were granted so far; 0 for a nil c.
func (c *countedLogins) count() float64 {
	if c == nil {
		return 0
	}
	return float64(c.granted.Load())
}

// accessToken returns the current access token of src.
func accessToken(ctx context.Context, src tokenauth.TokenSource) (string, error) {
	tok, err := src.Token(ctx)
	if err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}

// authorized sends tg's requests with the current token of src in their
// Authorization header, taken for each request. The header is copied
// first: a targeter may hand the same header map to every request.
func authorized(ctx context.Context, tg vegeta.Targeter, src tokenauth.TokenSource) vegeta.Targeter {
	return func(t *vegeta.Target) error {
		if err := tg(t); err != nil {
			return err
		}
		token, err := accessToken(ctx, src)
		if err != nil {
			return fmt.Errorf("bench-direct token: %w", err)
		}
		h := make(http.Header, len(t.Header)+1)
		for k, v := range t.Header {
			h[k] = v
		}
		h.Set("Authorization", "Bearer "+token)
		t.Header = h
		return nil
	}
}
