package benchcpu

import "testing"

// Parallel measures op under b.RunParallel with allocations reported,
// after one call that warms what op uses (a token cache, a pool); an error
// of op fails the benchmark.
func Parallel(b *testing.B, op func() error) {
	b.Helper()
	if err := op(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := op(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
