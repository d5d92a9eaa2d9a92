package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// headerDirect marks a request whose legacy XML body the driver converts
// itself (directTransport); it is not sent.
const headerDirect = "X-Bench-Direct"

// directTransport lets one vegeta hit be the OSDM calls the converter
// makes for a legacy message, sent by the driver directly through the
// bare proxy: the floor of the after-sales scenarios (Edirect, Pdirect),
// as Ddirect is Dconv's. A request marked with headerDirect carries a
// legacy XML message; the driver converts it with a converter of its own
// (the front's configuration, no journal), whose every OSDM call goes to
// the request's host with the request's Authorization, and answers with
// the legacy reply. The calls are the exact ones the front's converter
// makes for the same message, so the front's work differs only by the
// converter's.
type directTransport struct {
	next http.RoundTripper
	c    *converter.Converter
}

// RoundTrip implements http.RoundTripper.
func (t *directTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(headerDirect) == "" {
		return t.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	m, err := legacy.Decode(legacy.XML, body)
	if err != nil {
		return nil, fmt.Errorf("the driver's message does not decode: %w", err)
	}
	x := &httpCaller{rt: t.next, base: req.URL.Scheme + "://" + req.URL.Host, auth: req.Header.Get("Authorization")}
	res := t.c.Convert(req.Context(), m, x)
	out, err := legacy.Encode(legacy.XML, res.Reply)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		Status: strconv.Itoa(res.Status) + " " + http.StatusText(res.Status), StatusCode: res.Status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {legacy.XML.ContentType()}},
		Body:          io.NopCloser(bytes.NewReader(out)),
		ContentLength: int64(len(out)), Request: req,
	}, nil
}

// httpCaller makes a converter's OSDM calls over HTTP at base, with the
// given Authorization header value, or else with the current token of
// tokens, taken for each call.
type httpCaller struct {
	rt         http.RoundTripper
	base, auth string
	tokens     tokenauth.TokenSource
}

// Call implements converter.Caller.
func (h *httpCaller) Call(ctx context.Context, c *converter.Call) (*converter.Answer, error) {
	var body io.Reader
	if c.Body != nil {
		body = bytes.NewReader(c.Body)
	}
	req, err := http.NewRequestWithContext(ctx, c.Method, h.base+c.Path, body)
	if err != nil {
		return nil, err
	}
	auth := h.auth
	if h.tokens != nil {
		token, err := accessToken(ctx, h.tokens)
		if err != nil {
			return nil, fmt.Errorf("bench-direct token: %w", err)
		}
		auth = "Bearer " + token
	}
	req.Header = c.Header
	req.Header.Set("Authorization", auth)
	resp, err := h.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &converter.Answer{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}
