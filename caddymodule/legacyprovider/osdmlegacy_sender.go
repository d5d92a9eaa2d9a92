package legacyprovider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

// legacyPoster posts legacy messages through the rest of the route
// (reverse_proxy to the legacy system): one sub-request per message, each
// with its own response writer and header map, its own replacer and vars
// (an offer search sends several at once, and reverse_proxy writes both),
// Content-Length exact, and nothing of the OSDM client's request: its
// headers are an allow-list (Content-Type, Accept, User-Agent, a valid
// traceparent), and its context carries no bearer, so no Authenticate,
// Authorization, cookies or Accept-Encoding reach the legacy system.
type legacyPoster struct {
	// orig is the request the sub-requests are built from (its context
	// keeps Caddy's server values); vars is a snapshot of its vars.
	orig *http.Request
	vars map[string]any
	next caddyhttp.Handler
	path string
	// observe is told of every message's HTTP status (0: none) and time.
	observe func(status int, d time.Duration)
}

// newLegacyPoster returns the poster of one OSDM call.
func newLegacyPoster(r *http.Request, next caddyhttp.Handler, path string, observe func(int, time.Duration)) *legacyPoster {
	vars, _ := r.Context().Value(caddyhttp.VarsCtxKey).(map[string]any)
	return &legacyPoster{orig: r, vars: maps.Clone(vars), next: next, path: path, observe: observe}
}

// Post implements osdmlegacy.Poster.
func (p *legacyPoster) Post(ctx context.Context, contentType string, body []byte) (int, string, []byte, error) {
	req := p.subRequest(ctx, contentType, body)
	w := subrequest.NewCallWriter()
	start := time.Now()
	err := subrequest.ServeCall(p.next, w, req)
	d := time.Since(start)
	switch {
	case w.Overflow:
		err = &osdmlegacy.SendError{Kind: osdmlegacy.ErrLegacyGarbage, Status: w.Status,
			Err: fmt.Errorf("legacy answer longer than %d bytes", subrequest.MaxAnswerBytes)}
	case err == nil && !w.Wrote:
		err = &osdmlegacy.SendError{Kind: osdmlegacy.ErrLegacyDown,
			Err: errors.New("no handler after osdm_legacy answered the legacy message (is reverse_proxy in the route?)")}
	case err != nil:
		err = classifyLegacyError(ctx, err)
	}
	if p.observe != nil {
		status := 0
		if err == nil {
			status = w.Status
		}
		p.observe(status, d)
	}
	if err != nil {
		return 0, "", nil, err
	}
	return w.Status, w.Header().Get("Content-Type"), *w.Body, nil
}

// classifyLegacyError tells down (503) from slow (504) and garbage (502).
func classifyLegacyError(ctx context.Context, err error) error {
	var he caddyhttp.HandlerError
	switch {
	case ctx.Err() != nil, errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &he) && he.StatusCode == http.StatusGatewayTimeout:
		return &osdmlegacy.SendError{Kind: osdmlegacy.ErrLegacySlow, Err: err}
	case errors.Is(err, subrequest.ErrAnswerAborted):
		// The answer broke off: the legacy system may have acted.
		return &osdmlegacy.SendError{Kind: osdmlegacy.ErrLegacyGarbage, Err: err}
	}
	return &osdmlegacy.SendError{Kind: osdmlegacy.ErrLegacyDown, Err: err}
}

// subRequest builds the request next sees for one legacy message.
func (p *legacyPoster) subRequest(ctx context.Context, contentType string, body []byte) *http.Request {
	ctx = context.WithValue(withValuesOf(ctx, p.orig.Context()), caddyhttp.VarsCtxKey, maps.Clone(p.vars))
	// Not the consumer's token: osdm_access hands it to the transport
	// osdm of the reverse_proxy that follows in the request's context,
	// which this one is made from; the legacy system's connection needs
	// only what its reverse_proxy adds (TLS, header_up).
	ctx = subrequest.WithoutBearer(ctx)
	req := p.orig.WithContext(ctx)
	target := *p.orig.URL
	target.Path, target.RawPath, target.RawQuery, target.Fragment = p.path, "", "", ""
	req.URL = &target
	req.Form, req.PostForm, req.MultipartForm = nil, nil, nil
	req.Method = http.MethodPost
	req.RequestURI = req.URL.RequestURI()
	req.Header = http.Header{
		"Content-Type": {contentType},
		"Accept":       {contentType},
		"User-Agent":   {"caddy-osdm"},
	}
	if tp := p.orig.Header.Get("traceparent"); subrequest.ValidTraceParent(tp) {
		req.Header.Set("traceparent", tp)
	}
	req.Trailer = nil
	req.TransferEncoding = nil
	req.ContentLength = int64(len(body))
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	// A replacer of its own: reverse_proxy sets upstream placeholders on
	// it, and the messages of one search run at once.
	caddyhttp.NewTestReplacer(req)
	return req
}

// withValuesOf is ctx (its deadline and cancellation) that also finds the
// values of vals: background work (settlement, the hold sweeper) sends
// with a context of its own, and reverse_proxy needs the server values of
// the request the sub-requests are built from (without them it panics).
func withValuesOf(ctx, vals context.Context) context.Context {
	return valuesCtx{Context: ctx, vals: vals}
}

type valuesCtx struct {
	context.Context
	vals context.Context
}

func (c valuesCtx) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.vals.Value(key)
}
