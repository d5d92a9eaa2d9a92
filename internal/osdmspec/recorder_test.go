package osdmspec

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing, so
// tests can assert that the validator rejects bad JSON and what it says.
type recorder struct {
	testing.TB // nil: calling anything not overridden here panics on purpose
	errors     []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func (r *recorder) Failed() bool { return len(r.errors) > 0 }

func (r *recorder) text() string { return strings.Join(r.errors, "\n") }

// mustFail runs check against a recorder and requires a failure mentioning
// every one of wants (typically JSON pointers).
func mustFail(t *testing.T, check func(tb testing.TB), wants ...string) {
	t.Helper()
	r := &recorder{}
	check(r)
	if !r.Failed() {
		t.Fatalf("validator accepted a document that violates the spec (wanted %q)", wants)
	}
	for _, w := range wants {
		if !strings.Contains(r.text(), w) {
			t.Errorf("failure message lacks %q:\n%s", w, r.text())
		}
	}
}
