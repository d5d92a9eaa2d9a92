package consumer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

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
	// callsBuf and answersBuf back calls and answers for an exchange of
	// one call (a search, the most frequent), so that they cost no
	// allocation of their own; longer exchanges grow them as before.
	callsBuf   [1]callRecord
	answersBuf [1]*[]byte
	// sent are the tokens osdm_token's transport sent with the calls,
	// kept out of the answers the converter reads.
	sent subrequest.SentSecrets
}

// newNextCaller returns the caller of one legacy exchange's OSDM calls.
func newNextCaller(orig *http.Request, next caddyhttp.Handler, traceParent string, metrics *convertMetrics, partner string) *nextCaller {
	x := &nextCaller{orig: orig, next: next, traceParent: traceParent, metrics: metrics, partner: partner}
	x.calls, x.answers = x.callsBuf[:0], x.answersBuf[:0]
	return x
}

// release gives the answers' buffers back to the pool. It is called once
// the exchange is over: the converter's result holds copies of what it
// read from them.
func (x *nextCaller) release() {
	for i, b := range x.answers {
		subrequest.PutBuffer(b)
		x.answers[i] = nil
	}
	x.answers = x.answers[:0]
}

// Call implements converter.Caller.
func (x *nextCaller) Call(ctx context.Context, call *converter.Call) (*converter.Answer, error) {
	req, err := x.subRequest(subrequest.WithSentSecrets(ctx, &x.sent), call)
	if err != nil {
		return nil, err
	}
	w := subrequest.NewCallWriter()
	limit := subrequest.MaxAnswerBytes
	if call.MaxAnswer > 0 {
		limit = int(min(call.MaxAnswer, math.MaxInt32))
	}
	w.Limit = limit
	x.answers = append(x.answers, w.Body)
	start := time.Now()
	err = subrequest.ServeCall(x.next, w, req)
	d := time.Since(start)
	rec := callRecord{step: call.Step, method: call.Method, template: call.PathTemplate, duration: d}
	if w.Overflow {
		// Whatever else went wrong: the answer was cut off at the limit.
		err = fmt.Errorf("%w: partner answer longer than %d bytes", converter.ErrAnswerTooLarge, limit)
	}
	if err == nil && !w.Wrote {
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
	rec.status = w.Status
	x.calls = append(x.calls, rec)
	x.metrics.observeCall(x.partner, call.Step, w.Status, d)
	// The token the call carried, wherever the partner quotes it (a
	// problem's detail, an echo of the request's headers), never reaches
	// the converter, so neither its reply texts nor the logs.
	return &converter.Answer{Status: w.Status, Header: w.Header(), Body: x.sent.Redact(*w.Body), Duration: d}, nil
}

// subRequest builds the request next sees for call.
func (x *nextCaller) subRequest(ctx context.Context, call *converter.Call) (*http.Request, error) {
	u, err := url.Parse(call.Path)
	if err != nil {
		return nil, fmt.Errorf("OSDM path %q: %w", call.Path, err)
	}
	// A shallow copy: what Clone would copy deeply (URL, header, form) is
	// replaced here, and reverse_proxy works on a copy of its own. The
	// URL is the legacy request's with the call's path and query, made in
	// the one url.Parse allocated.
	req := x.orig.WithContext(ctx)
	path, rawPath, rawQuery := u.Path, u.RawPath, u.RawQuery
	*u = *x.orig.URL
	u.Path, u.RawPath, u.RawQuery = path, rawPath, rawQuery
	req.URL = u
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
	// One array for both values (the keys are canonical, as Set makes them).
	values := []string{"caddy-osdm", x.traceParent}
	req.Header["User-Agent"] = values[0:1:1]
	if x.traceParent != "" {
		req.Header["Traceparent"] = values[1:2:2]
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
	if errors.Is(err, subrequest.ErrNoOSDMTransport) {
		// Our configuration: the call went out without the token.
		return fmt.Errorf("%w: %s", converter.ErrAuthentication, handlerErrorText(err))
	}
	if errors.Is(err, subrequest.ErrLoginWait) {
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
