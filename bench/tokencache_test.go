package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/oauth2"

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
		if _, err := ts.Token(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if tok, err := ts.Token(); err != nil || tok.AccessToken == "" {
					b.Error("no token", err)
					return
				}
			}
		})
	})
}

// benchCacheHits warms c with a token, then measures its hits under
// RunParallel, and closes it.
func benchCacheHits(b *testing.B, c *tokenauth.TokenCache) {
	defer c.Close()
	ctx := context.Background()
	if _, err := c.Token(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if tok, err := c.Token(ctx); err != nil || tok.AccessToken == "" {
				b.Error("no token", err)
				return
			}
		}
	})
}
