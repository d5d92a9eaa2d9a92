package caddymodule

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// maxAnswerBytes bounds an OSDM answer read into memory: an offer search
// with many trips is a few hundred KiB, a partner sending more is broken.
const maxAnswerBytes = 8 << 20

// callRecord is one OSDM call of a legacy exchange, for the log line.
type callRecord struct {
	step     converter.Step
	method   string
	template string
	status   int
	duration time.Duration
	err      error
}

// nextCaller makes the converter's OSDM calls through the rest of the
// route (osdm_token, reverse_proxy), one sub-request per call, built from
// the legacy request so that Caddy's context values (replacer, server)
// stay, with a fresh header map and the call's own body.
type nextCaller struct {
	orig        *http.Request
	next        caddyhttp.Handler
	traceParent string
	metrics     *convertMetrics // each call's duration goes there
	partner     string          // the metrics' partner label
	calls       []callRecord
	// answers are the pooled buffers the partners' answers were read
	// into, given back by release.
	answers []*[]byte
}

// release gives the answers' buffers back to the pool. It is called once
// the exchange is over: the converter's result holds copies of what it
// read from them.
func (x *nextCaller) release() {
	for i, b := range x.answers {
		putBuffer(b)
		x.answers[i] = nil
	}
	x.answers = x.answers[:0]
}

// Call implements converter.Caller.
func (x *nextCaller) Call(ctx context.Context, call *converter.Call) (*converter.Answer, error) {
	req, err := x.subRequest(ctx, call)
	if err != nil {
		return nil, err
	}
	w := newCallWriter()
	x.answers = append(x.answers, w.body)
	start := time.Now()
	err = serveCall(x.next, w, req)
	d := time.Since(start)
	rec := callRecord{step: call.Step, method: call.Method, template: call.PathTemplate, duration: d}
	if err == nil && w.overflow {
		err = fmt.Errorf("partner answer longer than %d bytes", maxAnswerBytes)
	}
	if err == nil && !w.wrote {
		// A handler chain that returns without writing has answered
		// nothing, e.g. a route without reverse_proxy.
		err = errors.New("no handler after osdm_convert answered the OSDM call")
	}
	if err != nil {
		rec.err = err
		x.calls = append(x.calls, rec)
		x.metrics.observeCall(x.partner, call.Step, 0, d)
		return nil, classifyCallError(ctx, err)
	}
	rec.status = w.status
	x.calls = append(x.calls, rec)
	x.metrics.observeCall(x.partner, call.Step, w.status, d)
	return &converter.Answer{Status: w.status, Header: w.header, Body: *w.body, Duration: d}, nil
}

// errAnswerAborted is a partner answer that broke off after its status
// line: reverse_proxy aborts the handler with http.ErrAbortHandler then.
var errAnswerAborted = errors.New("the partner's answer broke off before its end")

// serveCall runs next for one OSDM call. reverse_proxy signals an answer
// that broke off mid-body by panicking with http.ErrAbortHandler, meant to
// drop the client's connection; here the client is our private writer, so
// the abort is that call's transport failure, not the legacy exchange's.
func serveCall(next caddyhttp.Handler, w http.ResponseWriter, req *http.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			err = errAnswerAborted
		}
	}()
	return next.ServeHTTP(w, req)
}

// subRequest builds the request next sees for call.
func (x *nextCaller) subRequest(ctx context.Context, call *converter.Call) (*http.Request, error) {
	u, err := url.Parse(call.Path)
	if err != nil {
		return nil, fmt.Errorf("OSDM path %q: %w", call.Path, err)
	}
	// A shallow copy: what Clone would copy deeply (URL, header, form) is
	// replaced here, and reverse_proxy works on a copy of its own.
	req := x.orig.WithContext(ctx)
	target := *x.orig.URL
	target.Path, target.RawPath, target.RawQuery = u.Path, u.RawPath, u.RawQuery
	req.URL = &target
	req.Form, req.PostForm, req.MultipartForm = nil, nil, nil
	req.Method = call.Method
	req.RequestURI = req.URL.RequestURI()
	// The call's own header map (the converter makes a new one for each
	// call and hands it over), never the legacy client's: nothing of its
	// request (credentials, cookies, Accept-Encoding) reaches the partner.
	req.Header = call.Header
	if req.Header == nil {
		req.Header = make(http.Header)
	}
	req.Header.Set("User-Agent", "caddy-osdm")
	if x.traceParent != "" {
		req.Header.Set("traceparent", x.traceParent)
	}
	req.Header.Del("Accept-Encoding")
	req.Trailer = nil
	req.TransferEncoding = nil
	// reverse_proxy trusts ContentLength: it must be exact.
	req.ContentLength = int64(len(call.Body))
	req.Body = http.NoBody
	req.GetBody = nil
	if len(call.Body) > 0 {
		body := call.Body
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return req, nil
}

// classifyCallError tells the converter what kind of failure err is. A
// login refused (our configuration is wrong) is AUTHENTICATION_FAILED, as
// is a route whose reverse_proxy lacks `transport osdm`; a
// login service that failed or could not be reached is the partner's
// failure, PARTNER_UNAVAILABLE or PARTNER_TIMEOUT, retryable like any
// other: the token cache's backoff keeps retries off the login service.
func classifyCallError(ctx context.Context, err error) error {
	var le *tokenauth.LoginError
	if errors.As(err, &le) {
		switch {
		case !le.Retryable():
			return fmt.Errorf("%w: %s", converter.ErrAuthentication, handlerErrorText(err))
		case le.Timeout() || ctx.Err() != nil:
			return fmt.Errorf("%w: %w: %s", converter.ErrTimeout, converter.ErrLoginFailed, handlerErrorText(err))
		}
		return fmt.Errorf("%w: %s", converter.ErrLoginFailed, handlerErrorText(err))
	}
	if errors.Is(err, errNoOSDMTransport) {
		// Our configuration: the call went out without the token.
		return fmt.Errorf("%w: %s", converter.ErrAuthentication, handlerErrorText(err))
	}
	if errors.Is(err, errLoginWait) {
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%w: %w: %s", converter.ErrTimeout, converter.ErrLoginFailed, handlerErrorText(err))
		}
		return fmt.Errorf("%w: %s", converter.ErrLoginFailed, handlerErrorText(err))
	}
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.StatusCode == http.StatusGatewayTimeout ||
		errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return fmt.Errorf("%w: %v", converter.ErrTimeout, err)
	}
	return err
}

// handlerErrorText is the text of the error a handler returned, without
// the error id, handler and status that caddyhttp.Error adds around it.
func handlerErrorText(err error) string {
	var he caddyhttp.HandlerError
	if errors.As(err, &he) && he.Err != nil {
		return he.Err.Error()
	}
	return err.Error()
}

// traceParent returns the W3C traceparent for the OSDM calls of r: a child
// of the legacy client's trace when it sent a valid one, else a new trace.
// The ids come from math/rand/v2's generator (ChaCha8, seeded by the
// runtime): trace ids must be unique and unpredictable enough to not
// collide (W3C Trace Context, section 3.2.2.3), not secret, and
// crypto/rand would cost a system call each.
func traceParent(r *http.Request) string {
	var tp [55]byte
	copy(tp[:], "00-")
	if parent := r.Header.Get("traceparent"); validTraceParent(parent) {
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

// validTraceParent checks the version-00 form 00-<32 hex>-<16 hex>-<2 hex>
// with non-zero ids (W3C Trace Context, section 3.2).
func validTraceParent(s string) bool {
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
