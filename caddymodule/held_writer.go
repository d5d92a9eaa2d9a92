package caddymodule

import (
	"maps"
	"net/http"
)

// heldWriter is the response writer of a call to next whose answer may
// have to be held back: hold decides at the answer's first final status
// (an answer refused with 401 is sent again with a new token; an answer
// to a request whose token was not sent must not reach the client). An
// answer held back is swallowed; anything else goes straight through to
// w. It has its own header map, so that the headers of a held answer do
// not leak into w's.
type heldWriter struct {
	w       http.ResponseWriter
	header  http.Header
	hold    holdDecider
	decided bool
	held    bool
}

// holdDecider decides, at an answer's first final status, whether the
// answer is held back.
type holdDecider interface {
	hold(code int) bool
}

// holdFunc is a holdDecider made of a function.
type holdFunc func(code int) bool

func (f holdFunc) hold(code int) bool { return f(code) }

func newHeldWriter(w http.ResponseWriter, hold func(code int) bool) *heldWriter {
	return &heldWriter{w: w, header: make(http.Header), hold: holdFunc(hold)}
}

// Header implements http.ResponseWriter.
func (hw *heldWriter) Header() http.Header {
	if hw.decided && !hw.held {
		return hw.w.Header()
	}
	return hw.header
}

// WriteHeader implements http.ResponseWriter.
func (hw *heldWriter) WriteHeader(code int) {
	if hw.decided {
		if !hw.held {
			hw.w.WriteHeader(code)
		}
		return
	}
	if code < http.StatusOK {
		// Informational answers go through; their headers must not stay
		// in the map of the final answer.
		dst := hw.w.Header()
		saved := dst.Clone()
		maps.Copy(dst, hw.header)
		hw.w.WriteHeader(code)
		clear(dst)
		maps.Copy(dst, saved)
		return
	}
	hw.decided = true
	if hw.hold.hold(code) {
		hw.held = true
		return
	}
	maps.Copy(hw.w.Header(), hw.header)
	hw.w.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (hw *heldWriter) Write(p []byte) (int, error) {
	if !hw.decided {
		hw.WriteHeader(http.StatusOK)
	}
	if hw.held {
		return len(p), nil
	}
	return hw.w.Write(p)
}

// FlushError lets reverse_proxy stream answers that go through.
func (hw *heldWriter) FlushError() error {
	if !hw.decided || hw.held {
		return nil
	}
	return http.NewResponseController(hw.w).Flush()
}

// Unwrap gives http.ResponseController the client's writer for what
// heldWriter does not do itself (hijacking, deadlines).
func (hw *heldWriter) Unwrap() http.ResponseWriter { return hw.w }

// Interface guard
var _ http.ResponseWriter = (*heldWriter)(nil)
