package testrig

import (
	"testing"
	"time"
)

// fatalRecorder is a testing.TB whose Fatal records its message and
// returns, so that a test can see ReturnsWithin fail.
type fatalRecorder struct {
	testing.TB
	fatal []any
}

func (r *fatalRecorder) Helper()           {}
func (r *fatalRecorder) Fatal(args ...any) { r.fatal = args }

// TestReturnsWithin: a call that returns passes, and its effects are seen
// after; a call that does not return fails with the message given.
func TestReturnsWithin(t *testing.T) {
	r := &fatalRecorder{TB: t}
	ran := false
	ReturnsWithin(r, 10*time.Second, "never", func() { ran = true })
	if r.fatal != nil || !ran {
		t.Fatalf("a call that returned: fatal %v, ran %v", r.fatal, ran)
	}
	release := make(chan struct{})
	defer close(release)
	ReturnsWithin(r, time.Millisecond, "still waiting", func() { <-release })
	if len(r.fatal) != 1 || r.fatal[0] != "still waiting" {
		t.Fatalf("a call that hangs: fatal %v", r.fatal)
	}
}
