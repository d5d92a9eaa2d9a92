package caddymodule

import (
	"maps"
	"net/http"
)

// attemptWriter is the response writer of a first attempt that may be
// replayed: a 401 answer is swallowed (the client must not see it, the
// request is sent again), anything else goes straight through to w. It has
// its own header map, so that the headers of a swallowed answer do not leak
// into the replay's.
type attemptWriter struct {
	w         http.ResponseWriter
	header    http.Header
	decided   bool
	swallowed bool
}

// Header implements http.ResponseWriter.
func (aw *attemptWriter) Header() http.Header {
	if aw.decided && !aw.swallowed {
		return aw.w.Header()
	}
	return aw.header
}

// WriteHeader implements http.ResponseWriter.
func (aw *attemptWriter) WriteHeader(code int) {
	if aw.decided {
		if !aw.swallowed {
			aw.w.WriteHeader(code)
		}
		return
	}
	if code < http.StatusOK {
		// Informational answers go through; their headers must not stay
		// in the map of the final answer.
		dst := aw.w.Header()
		saved := dst.Clone()
		maps.Copy(dst, aw.header)
		aw.w.WriteHeader(code)
		clear(dst)
		maps.Copy(dst, saved)
		return
	}
	aw.decided = true
	if code == http.StatusUnauthorized {
		aw.swallowed = true
		return
	}
	maps.Copy(aw.w.Header(), aw.header)
	aw.w.WriteHeader(code)
}

// Write implements http.ResponseWriter.
func (aw *attemptWriter) Write(p []byte) (int, error) {
	if !aw.decided {
		aw.WriteHeader(http.StatusOK)
	}
	if aw.swallowed {
		return len(p), nil
	}
	return aw.w.Write(p)
}

// FlushError lets reverse_proxy stream answers that go through.
func (aw *attemptWriter) FlushError() error {
	if !aw.decided || aw.swallowed {
		return nil
	}
	return http.NewResponseController(aw.w).Flush()
}

// Unwrap gives http.ResponseController the client's writer for what
// attemptWriter does not do itself (hijacking, deadlines).
func (aw *attemptWriter) Unwrap() http.ResponseWriter { return aw.w }

// Interface guard
var _ http.ResponseWriter = (*attemptWriter)(nil)
