package bench

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// staticSource is a login that always succeeds with a token valid for a
// day, so that every benchmarked call is a cache hit.
type staticSource struct{}

func (staticSource) Token(context.Context) (*tokenauth.Token, error) {
	return &tokenauth.Token{AccessToken: "access-token", Expiry: time.Now().Add(24 * time.Hour)}, nil
}

// oauth2Source is the same login for golang.org/x/oauth2.
type oauth2Source struct{}

func (oauth2Source) Token() (*oauth2.Token, error) {
	return &oauth2.Token{AccessToken: "access-token", TokenType: "Bearer", Expiry: time.Now().Add(24 * time.Hour)}, nil
}

// counter stands for osdm_token's cache-hit metric (a Prometheus counter
// is one atomic add), to show what the Caddy module's hit path adds.
type counter struct{ hits atomic.Int64 }

func (c *counter) CacheHit()                      { c.hits.Add(1) }
func (c *counter) LoginDone(time.Duration, error) {}

// BenchmarkTokenCacheHit compares the hit path of every proxied request:
// tokenauth.TokenCache (an atomic load, no lock) against x/oauth2's
// ReuseTokenSource (a mutex around the cached token), both already
// holding a valid token, under RunParallel.
func BenchmarkTokenCacheHit(b *testing.B) {
	b.Run("tokenauth", func(b *testing.B) {
		benchCacheHits(b, tokenauth.NewTokenCache(staticSource{}, tokenauth.CacheConfig{}))
	})
	b.Run("tokenauth_with_hit_counter", func(b *testing.B) {
		c := tokenauth.NewTokenCache(staticSource{}, tokenauth.CacheConfig{})
		c.SetObserver(&counter{})
		benchCacheHits(b, c)
	})
	b.Run("oauth2_ReuseTokenSource", func(b *testing.B) {
		ts := oauth2.ReuseTokenSource(nil, oauth2Source{})
		benchcpu.Parallel(b, func() error {
			tok, err := ts.Token()
			if err != nil {
				return err
			}
			return noToken(tok.AccessToken)
		})
	})
}

// benchCacheHits warms c with a token, then measures its hits under
// RunParallel, and closes it.
func benchCacheHits(b *testing.B, c *tokenauth.TokenCache) {
	defer c.Close()
	ctx := context.Background()
	benchcpu.Parallel(b, func() error {
		tok, err := c.Token(ctx)
		if err != nil {
			return err
		}
		return noToken(tok.AccessToken)
	})
}

// noToken is an error when a source answered no access token.
func noToken(accessToken string) error {
	if accessToken == "" {
		return errors.New("no token")
	}
	return nil
}
