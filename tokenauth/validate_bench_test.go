package tokenauth

import (
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
)

// benchmarkValidate validates one token over and over, in parallel: the
// signature check dominates, as it does for real traffic (the replay check
// is benchmarked on its own).
func benchmarkValidate(b *testing.B, sign func(f *loginFixture) string) {
	f := newLoginFixture(b)
	token := sign(f)
	benchcpu.Parallel(b, func() error {
		_, err := f.service.Validator.Validate(token)
		return err
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "validations/s")
}

func BenchmarkValidateRS256(b *testing.B) {
	benchmarkValidate(b, func(f *loginFixture) string { return f.valid() })
}

func BenchmarkValidateES256(b *testing.B) {
	benchmarkValidate(b, func(f *loginFixture) string {
		return f.sign(jwt.SigningMethodES256, f.keys.eastern, "east-1", f.claims("eastern"), nil)
	})
}
