package app

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/osdmapp"
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
// the server's end of chain. A request through it is prepared as the
// server prepares a client's (caddyhttp.PrepareRequest with the server).

// routeAfter finds h in the routes of app's servers and returns the
// route after it.
func routeAfter(app *caddyhttp.App, h caddyhttp.MiddlewareHandler) (*osdmapp.Route, error) {
	for _, name := range slices.Sorted(maps.Keys(app.Servers)) {
		srv := app.Servers[name]
		next, host, ok := findAfter(srv.Routes, h, endOfChain, "")
		if !ok {
			continue
		}
		r := &osdmapp.Route{Next: next, Server: srv, Scheme: "http", Host: host}
		if len(srv.TLSConnPolicies) > 0 {
			r.Scheme = "https"
		}
		if r.Host == "" {
			r.Host = listenHost(srv)
		}
		return r, nil
	}
	return nil, fmt.Errorf("handler %T is in no route of the http app's servers (a named route is only reached through invoke, with a request)", h)
}

// endOfChain is the end of a server's chain: Caddy's empty handler.
var endOfChain caddyhttp.Handler = caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { return nil })

// findAfter looks for h in routes, whose chain ends in next, and returns
// the chain after h and the host of the innermost host matcher on the
// way to it.
func findAfter(routes caddyhttp.RouteList, h caddyhttp.MiddlewareHandler, next caddyhttp.Handler, host string) (caddyhttp.Handler, string, bool) {
	for i, rt := range routes {
		routeHost := hostOf(rt, host)
		for j, mh := range rt.Handlers {
			sub, isSub := mh.(*caddyhttp.Subroute)
			if mh != h && !isSub {
				continue
			}
			after := afterHandler(routes, i, j, next)
			if mh == h {
				return after, routeHost, true
			}
			if n, found, ok := findAfter(sub.Routes, h, after, routeHost); ok {
				return n, found, true
			}
		}
	}
	return nil, "", false
}

// afterHandler is the chain after handler j of route i of routes, whose
// chain ends in next.
func afterHandler(routes caddyhttp.RouteList, i, j int, next caddyhttp.Handler) caddyhttp.Handler {
	rest := next
	if !routes[i].Terminal {
		rest = routes[i+1:].Compile(next)
	} else {
		rest = endOfChain
	}
	for _, mh := range slices.Backward(routes[i].Handlers[j+1:]) {
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

// listenHost is a host:port the server listens on, for the Host of a
// request no host matcher names.
func listenHost(srv *caddyhttp.Server) string {
	for _, l := range srv.Listen {
		na, err := caddy.ParseNetworkAddress(l)
		if err != nil || na.IsUnixNetwork() || na.IsFdNetwork() {
			continue
		}
		host := na.Host
		if host == "" {
			host = "localhost"
		}
		return net.JoinHostPort(host, fmt.Sprint(na.StartPort))
	}
	return "localhost"
}
