package subrequest

import (
	"maps"
	"net/http"
)

// HeldWriter is the response writer of a call to next whose answer may
// have to be held back: hold decides at the answer's first final status
// (an answer refused with 401 is sent again with a new token; an answer
// to a request whose token was not sent must not reach the client). An
// answer held back is swallowed; anything else goes straight through to
// w. It has its own header map, so that the headers of a held answer do
// not leak into w's.
type HeldWriter struct {
	w       http.ResponseWriter
	header  http.Header
	hold    HoldDecider
	decided bool
	held    bool
}

// HoldDecider decides, at an answer's first final status, whether the
// answer is held back.
type HoldDecider interface {
	Hold(code int) bool
}

// holdFunc is a holdDecider made of a function.
type holdFunc func(code int) bool

func (f holdFunc) Hold(code int) bool { return f(code) }

// NewHeldWriter returns a writer to w that holds back the answers hold
// picks.
func NewHeldWriter(w http.ResponseWriter, hold func(code int) bool) *HeldWriter {
	return &HeldWriter{w: w, header: make(http.Header), hold: holdFunc(hold)}
}

// Init makes hw a writer to w that holds back the answers hold picks,
// for a HeldWriter embedded in a struct of its caller.
func (hw *HeldWriter) Init(w http.ResponseWriter, hold HoldDecider) {
	*hw = HeldWriter{w: w, header: make(http.Header), hold: hold}
}

// Held says whether the answer was held back.
func (hw *HeldWriter) Held() bool { return hw.held }

// Header implements http.ResponseWriter.
func (hw *HeldWriter) Header() http.Header {
	if hw.decided && !hw.held {
		return hw.w.Header()
	}
	return hw.header
}

// WriteHeader implements http.ResponseWriter.
func (hw *HeldWriter) WriteHeader(code int) {
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
	if hw.hold.Hold(code) {
		hw.held = true
		return
	}
	// A writer that can take the answer's header map as its own (a
	// CallWriter with no header yet) gets it; any other gets a copy.
	if a, ok := hw.w.(headerAdopter); !ok || !a.adoptHeader(hw.header) {
		maps.Copy(hw.w.Header(), hw.header)
	}
	hw.w.WriteHeader(code)
}

// headerAdopter is a writer that can make a header map its own, when it
// has none of its own yet, instead of having it copied in.
type headerAdopter interface {
	adoptHeader(h http.Header) bool
}

// Write implements http.ResponseWriter.
func (hw *HeldWriter) Write(p []byte) (int, error) {
	if !hw.decided {
		hw.WriteHeader(http.StatusOK)
	}
	if hw.held {
		return len(p), nil
	}
	return hw.w.Write(p)
}

// FlushError lets reverse_proxy stream answers that go through.
func (hw *HeldWriter) FlushError() error {
	if !hw.decided || hw.held {
		return nil
	}
	return http.NewResponseController(hw.w).Flush()
}

// Unwrap gives http.ResponseController the client's writer for what
// HeldWriter does not do itself (hijacking, deadlines).
func (hw *HeldWriter) Unwrap() http.ResponseWriter { return hw.w }

// Interface guard
var _ http.ResponseWriter = (*HeldWriter)(nil)
