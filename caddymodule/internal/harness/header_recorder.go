package harness

import (
	"io"
	"net/http"
	"slices"
	"sync"
	"testing"
)

// HeaderRecorder is an HTTP backend that answers every request with the
// same body and keeps the value of one request header of each.
type HeaderRecorder struct {
	// Addr is the backend's address, 127.0.0.1:<port>.
	Addr string

	mu  sync.Mutex
	got []string
}

// RecordHeader serves a HeaderRecorder of header, answering body, until
// the test ends.
func RecordHeader(t testing.TB, header, body string) *HeaderRecorder {
	t.Helper()
	r := new(HeaderRecorder)
	r.Addr = ServeLocal(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.got = append(r.got, req.Header.Get(header))
		r.mu.Unlock()
		_, _ = io.WriteString(w, body)
	}))
	return r
}

// Got is the header's value in each request so far, in order ("" where
// a request had none).
func (r *HeaderRecorder) Got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}
