package subrequest

import (
	"context"
	"maps"
	"net/http"
	"sync/atomic"
)

// Why a credential travels in the request context and not in a header
// map: reverse_proxy's "upstream roundtrip" debug log prints the headers
// of the request it hands its transport, and redacts only Authorization,
// Cookie, Set-Cookie and Proxy-Authorization; Authenticate would be
// printed in clear. osdm_token (and osdm_access, which passes the token it
// checked on to the backend) therefore give next a request whose context
// carries the header, and the osdm transport (Transport), which the
// Caddyfile names in the reverse_proxy that follows them, adds it to a
// copy of the request inside RoundTrip, which no log sees.

// Bearer is a header an osdm handler wants on the upstream request.
type Bearer struct {
	// Header and Value are the header's name and value.
	Header, Value string
	// outer is the bearer of an earlier osdm handler of the same request,
	// added before this one.
	outer *Bearer
	// Sent says whether a transport added the header to a request.
	Sent atomic.Bool
}

type bearerCtxKey struct{}

// WithBearer returns ctx carrying b, after any bearer ctx already carries.
func WithBearer(ctx context.Context, b *Bearer) context.Context {
	b.outer, _ = ctx.Value(bearerCtxKey{}).(*Bearer)
	return context.WithValue(ctx, bearerCtxKey{}, b)
}

// WithoutBearer returns ctx carrying no bearer: a request made with it
// gets no credential an osdm handler took from an earlier request (the
// legacy messages osdm_legacy sends on behalf of an OSDM consumer carry
// none of the consumer's).
func WithoutBearer(ctx context.Context) context.Context {
	return context.WithValue(ctx, bearerCtxKey{}, (*Bearer)(nil))
}

// WithBearerHeaders returns req as the upstream must get it: a copy with
// the headers of the bearers req's context carries, which are marked as
// sent and added to the context's SentSecrets if it has one; req itself
// when it carries none.
func WithBearerHeaders(req *http.Request) *http.Request {
	b, _ := req.Context().Value(bearerCtxKey{}).(*Bearer)
	if b == nil {
		return req
	}
	out := new(http.Request)
	*out = *req
	// A map of its own sharing the value slices: addTo only replaces
	// whole entries (Set), never writes into a slice req's map holds.
	out.Header = make(http.Header, len(req.Header)+1)
	maps.Copy(out.Header, req.Header)
	b.addTo(out.Header, sentSecretsOf(req.Context()))
	return out
}

// addTo sets the headers of b and its outer bearers in h, the innermost
// last, so that it wins when two name the same header, and records their
// values in sent (when not nil).
func (b *Bearer) addTo(h http.Header, sent *SentSecrets) {
	if b.outer != nil {
		b.outer.addTo(h, sent)
	}
	h.Set(b.Header, b.Value)
	b.Sent.Store(true)
	if sent != nil {
		sent.add(b.Value)
	}
}
