package caddymodule

import (
	"net/http"
	"strconv"
)

// callWriter is the private response writer of one OSDM call: its own
// header map and body buffer, so that several calls in one legacy exchange
// never share headers or double a Content-Length, and nothing of an OSDM
// answer reaches the legacy client. The body buffer comes from the pool
// (buffers); the nextCaller that made the writer gives it back when the
// exchange is over.
type callWriter struct {
	header   http.Header
	status   int
	body     *[]byte
	wrote    bool
	overflow bool
}

func newCallWriter() *callWriter {
	return &callWriter{header: make(http.Header), status: http.StatusOK, body: getBuffer()}
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
	// Room for the body the partner announced, instead of growing the
	// buffer as reverse_proxy copies it in.
	if n, err := strconv.Atoi(cw.header.Get("Content-Length")); err == nil && n > cap(*cw.body) && n <= maxAnswerBytes {
		*cw.body = make([]byte, 0, n)
	}
}

// Write implements http.ResponseWriter. Past maxAnswerBytes the answer is
// dropped and marked, so a runaway partner cannot exhaust memory.
func (cw *callWriter) Write(p []byte) (int, error) {
	if !cw.wrote {
		cw.WriteHeader(http.StatusOK)
	}
	if cw.overflow || len(*cw.body)+len(p) > maxAnswerBytes {
		cw.overflow = true
		return len(p), nil
	}
	*cw.body = append(*cw.body, p...)
	return len(p), nil
}

// Interface guard
var _ http.ResponseWriter = (*callWriter)(nil)

// FlushError lets reverse_proxy flush: the body is buffered anyway.
func (cw *callWriter) FlushError() error { return nil }
