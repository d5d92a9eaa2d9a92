package subrequest

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// MaxAnswerBytes bounds an OSDM answer read into memory: an offer search
// with many trips is a few hundred KiB, a partner sending more is broken.
const MaxAnswerBytes = 8 << 20

// ErrAnswerAborted is a partner answer that broke off after its status
// line: reverse_proxy aborts the handler with http.ErrAbortHandler then.
var ErrAnswerAborted = errors.New("the partner's answer broke off before its end")

// ServeCall runs next for one OSDM call. reverse_proxy signals an answer
// that broke off mid-body by panicking with http.ErrAbortHandler, meant to
// drop the client's connection; here the client is our private writer, so
// the abort is that call's transport failure, not the legacy exchange's.
func ServeCall(next caddyhttp.Handler, w http.ResponseWriter, req *http.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			err = ErrAnswerAborted
		}
	}()
	return next.ServeHTTP(w, req)
}

// TraceParent returns the W3C traceparent for the OSDM calls of r: a child
// of the legacy client's trace when it sent a valid one, else a new trace.
// The ids come from math/rand/v2's generator (ChaCha8, seeded by the
// runtime): trace ids must be unique and unpredictable enough to not
// collide (W3C Trace Context, section 3.2.2.3), not secret, and
// crypto/rand would cost a system call each.
func TraceParent(r *http.Request) string {
	var tp [55]byte
	copy(tp[:], "00-")
	if parent := r.Header.Get("traceparent"); ValidTraceParent(parent) {
		copy(tp[3:35], parent[3:35])
	} else {
		var id [16]byte
		binary.LittleEndian.PutUint64(id[:8], rand.Uint64())
		binary.LittleEndian.PutUint64(id[8:], rand.Uint64()|1) // never all zero
		hex.Encode(tp[3:35], id[:])
	}
	tp[35] = '-'
	var span [8]byte
	binary.LittleEndian.PutUint64(span[:], rand.Uint64()|1)
	hex.Encode(tp[36:52], span[:])
	copy(tp[52:], "-01")
	return string(tp[:])
}

// ValidTraceParent checks the version-00 form 00-<32 hex>-<16 hex>-<2 hex>
// with non-zero ids (W3C Trace Context, section 3.2).
func ValidTraceParent(s string) bool {
	if len(s) != 55 || s[:3] != "00-" || s[35] != '-' || s[52] != '-' {
		return false
	}
	traceID, spanID := s[3:35], s[36:52]
	for _, part := range []string{traceID, spanID, s[53:]} {
		if _, err := hex.DecodeString(part); err != nil || strings.ToLower(part) != part {
			return false
		}
	}
	return strings.Trim(traceID, "0") != "" && strings.Trim(spanID, "0") != ""
}
