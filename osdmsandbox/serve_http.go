package osdmsandbox

import (
	"io"
	"net/http"
)

// ServeHTTP answers one OSDM request as AnonymousClient's: it reads the
// body (at most MaxBodyBytes+1 bytes), calls ServeClient and writes its
// answer. It is the sandbox as a plain http.Handler, for tests and
// benchmarks; osdm_sandbox's glue calls ServeClient itself.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		_ = UnreadBody(err).Write(w)
		return
	}
	target := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	_ = s.ServeClient(r.Context(), AnonymousClient, r.Method, target, r.Header, body).Write(w)
}
