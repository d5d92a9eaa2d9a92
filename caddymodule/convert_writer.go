package caddymodule

import (
	"bytes"
	"net/http"
	"strconv"
)

// callWriter is the private response writer of one OSDM call: its own
// header map and body buffer, so that several calls in one legacy exchange
// never share headers or double a Content-Length, and nothing of an OSDM
// answer reaches the legacy client.
type callWriter struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	wrote    bool
	overflow bool
}

func newCallWriter() *callWriter {
	return &callWriter{header: make(http.Header), status: http.StatusOK}
}

// Header implements http.ResponseWriter.
func (cw *callWriter) Header() http.Header { return cw.header }

// WriteHeader implements http.ResponseWriter; informational answers are
// ignored, the first final status counts.
func (cw *callWriter) WriteHeader(code int) {
	if cw.wrote || code < http.StatusOK {
		return
	}
	cw.wrote = true
	cw.status = code
	// One allocation for the body the partner announced, instead of
	// growing the buffer as reverse_proxy copies it in.
	if n, err := strconv.Atoi(cw.header.Get("Content-Length")); err == nil && n > 0 && n <= maxAnswerBytes {
		cw.body.Grow(n)
	}
}

// Write implements http.ResponseWriter. Past maxAnswerBytes the answer is
// dropped and marked, so a runaway partner cannot exhaust memory.
func (cw *callWriter) Write(p []byte) (int, error) {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.overflow || cw.body.Len()+len(p) > maxAnswerBytes {
		cw.overflow = true
		return len(p), nil
	}
	return cw.body.Write(p)
}

// Interface guard
var _ http.ResponseWriter = (*callWriter)(nil)

// FlushError lets reverse_proxy flush: the body is buffered anyway.
func (cw *callWriter) FlushError() error { return nil }
