package testrig

import (
	"testing"
	"time"
)

// ReturnsWithin runs f in a goroutine and fails t with failure unless f
// returns within d: the bound on a call that must not hang (a Stop, the
// writers a Close must release), so that a hang fails its test rather
// than stalling the test binary until its own timeout. f keeps running
// after a failure.
func ReturnsWithin(t testing.TB, d time.Duration, failure string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatal(failure)
	}
}
