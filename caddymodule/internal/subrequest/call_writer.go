package subrequest

import (
	"errors"
	"net/http"
	"strconv"
)

// ErrAnswerTooLarge is what Write returns once an answer is longer than
// the writer's limit: reverse_proxy then stops reading the upstream's body
// and aborts the call (ServeCall's ErrAnswerAborted), so a runaway partner
// costs neither memory nor the time to read the rest. Check Overflow
// first to tell the two apart.
var ErrAnswerTooLarge = errors.New("the answer is longer than the gateway reads")

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
	// Body holds the answer, up to Limit bytes.
	Body *[]byte
	// Limit is the longest answer kept; 0 means MaxAnswerBytes.
	Limit int
	// Wrote says whether an answer was written.
	Wrote bool
	// Overflow says whether the answer was longer than Limit and dropped
	// (announced so by its Content-Length, or found so as it came).
	Overflow bool
}

// NewCallWriter returns a writer with a pooled body buffer.
func NewCallWriter() *CallWriter {
	return &CallWriter{Status: http.StatusOK, Body: GetBuffer()}
}

// Header implements http.ResponseWriter.
func (cw *CallWriter) Header() http.Header {
	if cw.header == nil {
		cw.header = make(http.Header)
	}
	return cw.header
}

// adoptHeader makes h the answer's header map when the writer has no
// header yet, instead of a copy of it (HeldWriter passing an answer on);
// it reports whether it did.
func (cw *CallWriter) adoptHeader(h http.Header) bool {
	if len(cw.header) > 0 || cw.Wrote {
		return false
	}
	cw.header = h
	return true
}

// WriteHeader implements http.ResponseWriter; informational answers are
// ignored, the first final status counts.
func (cw *CallWriter) WriteHeader(code int) {
	if cw.Wrote || code < http.StatusOK {
		return
	}
	cw.Wrote = true
	cw.Status = code
	// Room for the body the partner announced, instead of growing the
	// buffer as reverse_proxy copies it in; an announced body above the
	// limit is refused before any of it is read.
	if n, err := strconv.Atoi(cw.Header().Get("Content-Length")); err == nil {
		switch {
		case n > cw.limit():
			cw.Overflow = true
		case n > cap(*cw.Body):
			*cw.Body = make([]byte, 0, n)
		}
	}
}

func (cw *CallWriter) limit() int {
	if cw.Limit > 0 {
		return cw.Limit
	}
	return MaxAnswerBytes
}

// Write implements http.ResponseWriter. Past the limit the answer is
// dropped, marked and refused with ErrAnswerTooLarge, so a runaway
// partner cannot exhaust memory.
func (cw *CallWriter) Write(p []byte) (int, error) {
	if !cw.Wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.Overflow || len(*cw.Body)+len(p) > cw.limit() {
		cw.Overflow = true
		*cw.Body = (*cw.Body)[:0]
		return 0, ErrAnswerTooLarge
	}
	*cw.Body = append(*cw.Body, p...)
	return len(p), nil
}

// Interface guard
var _ http.ResponseWriter = (*CallWriter)(nil)

// FlushError lets reverse_proxy flush: the body is buffered anyway.
func (cw *CallWriter) FlushError() error { return nil }
