package osdm

import (
	"fmt"
	"testing"
)

// failRecorder is a testing.TB that records a failure instead of failing.
type failRecorder struct {
	testing.TB // nil: anything not overridden panics on purpose
	failed     bool
	messages   []string
}

func (r *failRecorder) Helper() {}

func (r *failRecorder) Errorf(format string, args ...any) {
	r.failed = true
	r.messages = append(r.messages, fmt.Sprintf(format, args...))
}
