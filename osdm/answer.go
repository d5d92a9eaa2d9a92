package osdm

import (
	"net/http"
	"strconv"
)

// Answer is a provider's HTTP answer to one OSDM call: what osdm_legacy's
// and osdm_sandbox's domain entries return and their glue writes. A
// provider that reports more about a call (logs, metrics) embeds it.
type Answer struct {
	// Status is the HTTP status.
	Status int
	// Header holds at least Content-Type when there is a body.
	Header http.Header
	// Body is the answer's body, nil for a 204.
	Body []byte
}

// Write writes a to w: its header, a Content-Length (none on a 204
// without a body), the status and the body. net/http sends no body to a
// HEAD request.
func (a *Answer) Write(w http.ResponseWriter) error {
	h := w.Header()
	for k, v := range a.Header {
		h[k] = v
	}
	if len(a.Body) > 0 || a.Status != http.StatusNoContent {
		h.Set("Content-Length", strconv.Itoa(len(a.Body)))
	}
	w.WriteHeader(a.Status)
	if len(a.Body) == 0 {
		return nil
	}
	_, err := w.Write(a.Body)
	return err
}
