package caddymodule

import (
	"context"
	"net"
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
)

// Why the token travels in the request context and not in a header map:
// reverse_proxy's "upstream roundtrip" debug log prints the headers of the
// request it hands its transport, and redacts only Authorization, Cookie,
// Set-Cookie and Proxy-Authorization; Authenticate would be printed in
// clear. osdm_token (and osdm_access, which passes the token it checked on
// to the provider's backend) therefore give next a request whose context
// carries the header, and wrap the transport of the reverse_proxy handlers
// that follow them so that the header is added to a copy of the request
// inside RoundTrip, which no log sees.

// bearer is the header osdm_token wants on the upstream request.
type bearer struct {
	header, value string
}

type bearerCtxKey struct{}

func withBearer(ctx context.Context, b *bearer) context.Context {
	return context.WithValue(ctx, bearerCtxKey{}, b)
}

// bearerTransport is reverse_proxy's HTTP transport, adding the header of
// the request's bearer (if any) to a copy of the request. Embedding keeps
// every other method of the transport (TLS, proxy protocol, cleanup...)
// visible to reverse_proxy's interface checks.
type bearerTransport struct {
	*reverseproxy.HTTPTransport
}

// RoundTrip implements http.RoundTripper.
func (bt bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	b, _ := req.Context().Value(bearerCtxKey{}).(*bearer)
	if b == nil {
		return bt.HTTPTransport.RoundTrip(req)
	}
	out := new(http.Request)
	*out = *req
	out.Header = req.Header.Clone()
	out.Header.Set(b.header, b.value)
	return bt.HTTPTransport.RoundTrip(out)
}

// proxyAttachment makes the reverse_proxy handlers that may run after a
// handler (self) add its bearer header in their transports. The wrapping
// is done once, when a server of the configuration accepts its first
// connection: every handler is provisioned by then (the reverse_proxy
// handlers after self are provisioned after it, so Provision is too early)
// and no request has started yet, so no request reads a transport while it
// is replaced. HTTP/3 has no such hook: there the first request through
// self does it.
type proxyAttachment struct {
	once   sync.Once
	app    *caddyhttp.App
	self   caddyhttp.MiddlewareHandler
	report func(proxies int, ok bool)
	ok     bool
}

// newProxyAttachment prepares the attachment of self, provisioned in ctx.
// report is told the outcome once, e.g. to log it.
func newProxyAttachment(ctx caddy.Context, self caddyhttp.MiddlewareHandler, report func(proxies int, ok bool)) *proxyAttachment {
	a := &proxyAttachment{self: self, report: report}
	for _, m := range ctx.Modules() {
		if app, ok := m.(*caddyhttp.App); ok {
			a.app = app
		}
	}
	if a.app != nil {
		for _, srv := range a.app.Servers {
			srv.RegisterConnContext(func(c context.Context, _ net.Conn) context.Context {
				a.inTransport()
				return c
			})
		}
	}
	return a
}

// inTransport attaches if that was not done yet, and reports whether the
// header is added by the transports of all the reverse_proxy handlers
// after self. If not (there is none, or one with another transport), the
// handler must set the header on the request itself.
func (a *proxyAttachment) inTransport() bool {
	a.once.Do(func() {
		n, ok := attachBearerTransports(a.app, a.self)
		a.ok = ok
		if a.report != nil {
			a.report(n, ok)
		}
	})
	return a.ok
}

// attachMu serialises the transport wrapping of all handlers.
var attachMu sync.Mutex

// attachBearerTransports finds self in app's routes and wraps the
// transports of the reverse_proxy handlers that may run after it. It
// reports how many there are and whether all of them could be wrapped.
func attachBearerTransports(app *caddyhttp.App, self caddyhttp.MiddlewareHandler) (int, bool) {
	if app == nil {
		return 0, false
	}
	var proxies []*reverseproxy.Handler
	found := false
	for _, srv := range app.Servers {
		lists := []caddyhttp.RouteList{srv.Routes}
		if srv.Errors != nil {
			lists = append(lists, srv.Errors.Routes)
		}
		for _, r := range srv.NamedRoutes {
			lists = append(lists, caddyhttp.RouteList{*r})
		}
		for _, l := range lists {
			if f, p := proxiesAfter(l, self); f {
				found = true
				proxies = append(proxies, p...)
			}
		}
	}
	if !found || len(proxies) == 0 {
		return 0, false
	}
	attachMu.Lock()
	defer attachMu.Unlock()
	for _, p := range proxies {
		switch tr := p.Transport.(type) {
		case bearerTransport:
		case *reverseproxy.HTTPTransport:
			p.Transport = bearerTransport{tr}
		default:
			return len(proxies), false
		}
	}
	return len(proxies), true
}

// proxiesAfter reports whether self is in list (at any depth) and returns
// the reverse_proxy handlers that come after it.
func proxiesAfter(list caddyhttp.RouteList, self caddyhttp.MiddlewareHandler) (bool, []*reverseproxy.Handler) {
	for i, route := range list {
		for j, h := range route.Handlers {
			found, inner := h == self, []*reverseproxy.Handler(nil)
			if sr, ok := h.(*caddyhttp.Subroute); ok && !found {
				found, inner = proxiesAfter(sr.Routes, self)
			}
			if !found {
				continue
			}
			rest := collectProxies(route.Handlers[j+1:])
			for _, later := range list[i+1:] {
				rest = append(rest, collectProxies(later.Handlers)...)
			}
			return true, append(inner, rest...)
		}
	}
	return false, nil
}

// collectProxies returns the reverse_proxy handlers in hs and their subroutes.
func collectProxies(hs []caddyhttp.MiddlewareHandler) []*reverseproxy.Handler {
	var out []*reverseproxy.Handler
	for _, h := range hs {
		switch h := h.(type) {
		case *reverseproxy.Handler:
			out = append(out, h)
		case *caddyhttp.Subroute:
			for _, r := range h.Routes {
				out = append(out, collectProxies(r.Handlers)...)
			}
		}
	}
	return out
}

// Interface guard
var _ http.RoundTripper = bearerTransport{}
