package tokenauth

import (
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
)

// BenchmarkVerifyAccessToken is osdm_access's check of one ES256 access
// token per request, in parallel: the signature check dominates, and the
// claim-name check has to stay small beside it.
func BenchmarkVerifyAccessToken(b *testing.B) {
	keys := loginTestKeys(b)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	issued, err := (&AccessTokenIssuer{Key: keys.login, Alg: "ES256", KeyID: "login-1", Issuer: loginTestIssuer,
		Audience: []string{loginTestIssuer}, Lifetime: 15 * time.Minute, Now: clock}).Issue("alpine", []string{"uic_osdm"})
	if err != nil {
		b.Fatal(err)
	}
	v := &AccessTokenVerifier{Keys: StaticKeys(keys.login.Public()), Issuer: loginTestIssuer, Audience: loginTestIssuer,
		Scopes: []string{"uic_osdm"}, Now: clock}
	benchcpu.Parallel(b, func() error {
		_, err := v.Verify(issued.Token)
		return err
	})
}
