package calls

import (
	"net/http"
	"strconv"
)

// CallWriter is the private response writer of one OSDM call: its own
// header map and body buffer, so that several calls in one legacy exchange
// never share headers or double a Content-Length, and nothing of an OSDM
// answer reaches the legacy client. The body buffer comes from the pool
// (buffers); whoever made the writer gives it back when the
// exchange is over.
type CallWriter struct {
	header http.Header
	// Status is the answer's status, 200 until one was written.
	Status int
	// Body holds the answer, up to MaxAnswerBytes.
	Body *[]byte
	// Wrote says whether an answer was written.
	Wrote bool
	// Overflow says whether the answer was longer than MaxAnswerBytes
	// and dropped.
	Overflow bool
}

// NewCallWriter returns a writer with a pooled body buffer.
func NewCallWriter() *CallWriter {
	return &CallWriter{header: make(http.Header), Status: http.StatusOK, Body: GetBuffer()}
}

// Header implements http.ResponseWriter.
func (cw *CallWriter) Header() http.Header { return cw.header }

// WriteHeader implements http.ResponseWriter; informational answers are
// ignored, the first final status counts.
func (cw *CallWriter) WriteHeader(code int) {
	if cw.Wrote || code < http.StatusOK {
		return
	}
	cw.Wrote = true
	cw.Status = code
	// Room for the body the partner announced, instead of growing the
	// buffer as reverse_proxy copies it in.
	if n, err := strconv.Atoi(cw.header.Get("Content-Length")); err == nil && n > cap(*cw.Body) && n <= MaxAnswerBytes {
		*cw.Body = make([]byte, 0, n)
	}
}

// Write implements http.ResponseWriter. Past maxAnswerBytes the answer is
// dropped and marked, so a runaway partner cannot exhaust memory.
func (cw *CallWriter) Write(p []byte) (int, error) {
	if !cw.Wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.Overflow || len(*cw.Body)+len(p) > MaxAnswerBytes {
		cw.Overflow = true
		return len(p), nil
	}
	*cw.Body = append(*cw.Body, p...)
	return len(p), nil
}

// Interface guard
var _ http.ResponseWriter = (*CallWriter)(nil)

// FlushError lets reverse_proxy flush: the body is buffered anyway.
func (cw *CallWriter) FlushError() error { return nil }
