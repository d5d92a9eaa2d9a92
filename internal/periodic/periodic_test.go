package periodic

import (
	"testing"
	"time"
)

// TestRunUntilStop: f is called tick after tick until stop is closed,
// and Run then returns.
func TestRunUntilStop(t *testing.T) {
	stop := make(chan struct{})
	returned := make(chan struct{})
	n := 0
	go func() {
		defer close(returned)
		Run(stop, time.Millisecond, func() {
			n++
			if n == 3 {
				close(stop)
			}
		})
	}()
	<-returned
	// A tick already due when stop closes may still be served.
	if n < 3 {
		t.Fatalf("f called %d times, want 3 or more", n)
	}
}

// TestRunStoppedBeforeATick: a stop closed before the first interval
// ends Run without a call.
func TestRunStoppedBeforeATick(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	Run(stop, time.Hour, func() { t.Error("f called after stop") })
}
