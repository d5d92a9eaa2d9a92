package app

import (
	"cmp"
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
)

// Background work that sends through a handler's route (osdm_convert's
// settlement: osdm_token, then reverse_proxy to the partner) needs the
// next handler Caddy passes that handler, without a client's request.
// Caddy compiles a server's routes once, from provisioned Route values
// whose Handlers are the very module instances serving requests; each
// route's matchers and handler stack run per request (caddyhttp's
// wrapRoute). So the chain after a handler is rebuilt the way Caddy
// builds it: the handlers after it in its route, then (unless the route
// is terminal) the routes after its route, compiled with
// RouteList.Compile, then the same at every enclosing subroute, down to
// the server's end of chain. Caddy skips a route of a group (the
// Caddyfile's handle siblings) once a route of that group matched: the
// routes on the way to the handler did, so the routes of their groups
// are left out. A request through it is prepared as the server prepares
// a client's (caddyhttp.PrepareRequest with the server), coming from the
// server's own listener.

// routeAfter finds h in the routes of app's servers and returns the
// route after it.
func routeAfter(app *caddyhttp.App, h caddyhttp.MiddlewareHandler) (*appview.Route, error) {
	for _, name := range slices.Sorted(maps.Keys(app.Servers)) {
		srv := app.Servers[name]
		path, ok := pathTo(srv.Routes, h)
		if !ok {
			continue
		}
		r := &appview.Route{Next: chainAfter(path), Server: srv, Scheme: "http"}
		if len(srv.TLSConnPolicies) > 0 {
			r.Scheme = "https"
		}
		for _, st := range path {
			r.Host = hostOf(st.routes[st.route], r.Host)
		}
		if r.Host == "" {
			r.Host = cmp.Or(listenAddr(srv, "localhost"), "localhost")
		}
		r.RemoteAddr = cmp.Or(listenAddr(srv, "127.0.0.1"), "127.0.0.1:0")
		return r, nil
	}
	return nil, fmt.Errorf("handler %T is in no route of the http app's servers (a named route is only reached through invoke, with a request)", h)
}

// endOfChain is the end of a server's chain: Caddy's empty handler.
var endOfChain caddyhttp.Handler = caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })

// routeStep is one level on the way to a handler: handler handler of route
// route of routes (a subroute's, or the server's).
type routeStep struct {
	routes         caddyhttp.RouteList
	route, handler int
}

// pathTo is the way from routes to h, outermost level first.
func pathTo(routes caddyhttp.RouteList, h caddyhttp.MiddlewareHandler) ([]routeStep, bool) {
	for i, rt := range routes {
		for j, mh := range rt.Handlers {
			if mh == h {
				return []routeStep{{routes, i, j}}, true
			}
			if sub, ok := mh.(*caddyhttp.Subroute); ok {
				if inner, ok := pathTo(sub.Routes, h); ok {
					return append([]routeStep{{routes, i, j}}, inner...), true
				}
			}
		}
	}
	return nil, false
}

// chainAfter is the chain after the handler path leads to: at each
// level, outermost first, the rest of that level in front of the rest of
// the level around it. The groups of the routes on the path have
// matched: routes of those groups are skipped, as Caddy skips them.
func chainAfter(path []routeStep) caddyhttp.Handler {
	matched := map[string]bool{}
	for _, st := range path {
		if g := st.routes[st.route].Group; g != "" {
			matched[g] = true
		}
	}
	next := endOfChain
	for _, st := range path {
		next = afterHandler(st, matched, next)
	}
	return next
}

// afterHandler is the chain after st's handler, at a level whose chain
// ends in next, without the routes of the matched groups.
func afterHandler(st routeStep, matched map[string]bool, next caddyhttp.Handler) caddyhttp.Handler {
	rt := st.routes[st.route]
	rest := endOfChain
	if !rt.Terminal {
		later := slices.DeleteFunc(slices.Clone(st.routes[st.route+1:]), func(r caddyhttp.Route) bool {
			return r.Group != "" && matched[r.Group]
		})
		rest = later.Compile(next)
	}
	for _, mh := range slices.Backward(rt.Handlers[st.handler+1:]) {
		rest = middleware(mh, rest)
	}
	return rest
}

// middleware is mh with next bound.
func middleware(mh caddyhttp.MiddlewareHandler, next caddyhttp.Handler) caddyhttp.Handler {
	return caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return mh.ServeHTTP(w, r, next)
	})
}

// hostOf is the first host of rt's host matchers that is a name (not a
// pattern), or outer.
func hostOf(rt caddyhttp.Route, outer string) string {
	for _, set := range rt.MatcherSets {
		for _, m := range set {
			var hosts caddyhttp.MatchHost
			switch mh := m.(type) {
			case caddyhttp.MatchHost:
				hosts = mh
			case *caddyhttp.MatchHost:
				hosts = *mh
			}
			for _, h := range hosts {
				if h != "" && !strings.ContainsAny(h, "*{") {
					return h
				}
			}
		}
	}
	return outer
}

// listenAddr is a host:port the server listens on (wildcard for the
// host of a listener on every interface; "" for a server on Unix sockets
// alone): the Host of a request no host matcher names, and the address
// background requests come from (Caddy itself, at its own listener).
func listenAddr(srv *caddyhttp.Server, wildcard string) string {
	for _, l := range srv.Listen {
		na, err := caddy.ParseNetworkAddress(l)
		if err != nil || na.IsUnixNetwork() || na.IsFdNetwork() {
			continue
		}
		host := na.Host
		if host == "" {
			host = wildcard
		}
		return net.JoinHostPort(host, fmt.Sprint(na.StartPort))
	}
	return ""
}
