package osdm

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
)

// Route is one row of a provider's route table: an operation it serves
// and the handler that serves it (H is the provider's handler type).
// Adding an endpoint to a provider is one Route and one handler.
type Route[H any] struct {
	// Op is the operation: one of SpecOperations, or one of the
	// provider's own (whose ID is then "").
	Op Operation
	// Handle serves it.
	Handle H
}

// Router finds a provider's Route for a request, and answers every
// request it has none for the same way in both providers: a 501 for an
// operation of the spec, a 405 for a method the spec has not on a path of
// it, a 404 for a path that is no OSDM operation.
type Router[H any] struct {
	routes []routeEntry[H]
	spec   []routeEntry[struct{}]
	// starts are the first segments of the routes' and the spec's paths.
	starts  map[string]bool
	opts    RouterOptions
	subject string
}

// RouterOptions tune a Router.
type RouterOptions struct {
	// AnyPrefix: whatever comes before the first segment that starts an
	// OSDM path (or one of the routes') is a route prefix, and skipped.
	AnyPrefix bool
	// Aliases maps other spellings of a path segment to the spec's
	// (e.g. "refundOffers" of older partners to "refund-offers").
	Aliases map[string]string
	// Subject names the provider in the details of its 501s ("this OSDM
	// provider" when empty).
	Subject string
}

type routeEntry[H any] struct {
	route Route[H]
	segs  []string
}

// NewRouter returns the router of routes. Two routes of one method and
// path, or a template that is not "/segment/{param}/...", are an error.
func NewRouter[H any](routes []Route[H], opts RouterOptions) (*Router[H], error) {
	r := &Router[H]{starts: map[string]bool{}, opts: opts, subject: opts.Subject}
	if r.subject == "" {
		r.subject = "this OSDM provider"
	}
	seen := map[string]bool{}
	for _, rt := range routes {
		segs, err := splitTemplate(rt.Op.Path)
		if err != nil {
			return nil, err
		}
		key := rt.Op.Method + " " + canonicalTemplate(segs)
		if seen[key] {
			return nil, fmt.Errorf("osdm router: %s routed twice", rt.Op)
		}
		seen[key] = true
		r.routes = append(r.routes, routeEntry[H]{rt, segs})
		r.starts[segs[0]] = true
	}
	for _, op := range specOperations {
		segs, err := splitTemplate(op.Path)
		if err != nil {
			return nil, err
		}
		r.spec = append(r.spec, routeEntry[struct{}]{Route[struct{}]{Op: op}, segs})
		r.starts[segs[0]] = true
	}
	return r, nil
}

// MustRouter is NewRouter for a static table: it panics on an error.
func MustRouter[H any](routes []Route[H], opts RouterOptions) *Router[H] {
	r, err := NewRouter(routes, opts)
	if err != nil {
		panic(err)
	}
	return r
}

// Match is where a request goes.
type Match[H any] struct {
	// Route is the provider's route, nil when none serves the request.
	Route *Route[H]
	// Params are the path parameters, percent-decoded, by the spec's names.
	Params map[string]string
	// Problem answers a request no route serves (nil when Route is set).
	Problem *ProblemError
	// Unserved is the operation of the spec the request asked for, when no
	// route serves it (Problem is then its 501).
	Unserved *Operation
}

// Match routes method and the request's path as sent (URL.EscapedPath):
// the path is split at its slashes first and each segment percent-decoded
// after, as a real server routes, so that b-X%2F is the id "b-X/", not
// b-X followed by an empty segment.
func (r *Router[H]) Match(method, escapedPath string) Match[H] {
	notFound := Fail(CodeResourceNotFound, "no OSDM operation is served at "+shortPath(escapedPath))
	segs, ok := r.segments(escapedPath)
	if !ok {
		return Match[H]{Problem: notFound}
	}
	var served []string
	for i := range r.routes {
		e := &r.routes[i]
		params, ok := matchSegments(e.segs, segs)
		if !ok {
			continue
		}
		if e.route.Op.Method == method {
			return Match[H]{Route: &e.route, Params: params}
		}
		served = append(served, e.route.Op.Method)
	}
	var specified []string
	var specOp *Operation
	for i := range r.spec {
		e := &r.spec[i]
		if _, ok := matchSegments(e.segs, segs); !ok {
			continue
		}
		specified = append(specified, e.route.Op.Method)
		if e.route.Op.Method == method {
			specOp = &e.route.Op
		}
	}
	switch {
	case specOp != nil:
		return Match[H]{Problem: NotOffered(*specOp, r.subject), Unserved: specOp}
	case served == nil && specified == nil:
		return Match[H]{Problem: notFound}
	}
	allow := mergeMethods(served, specified)
	p := NewProblem(http.StatusMethodNotAllowed, CodeOperationNotPermitted, method+" is not allowed on "+shortPath(escapedPath)+"; allowed: "+strings.Join(allow, ", "))
	p.Allow = strings.Join(allow, ", ")
	return Match[H]{Problem: p}
}

// NotOffered is the 501 of an operation of the spec that subject does not serve.
func NotOffered(op Operation, subject string) *ProblemError {
	return NewProblem(http.StatusNotImplemented, CodeOperationNotPermitted, "the OSDM operation "+op.ID+" ("+op.String()+") is not offered by "+subject)
}

// segments splits and decodes an escaped path, drops a route prefix when
// AnyPrefix is set and applies the aliases.
func (r *Router[H]) segments(escaped string) ([]string, bool) {
	if !strings.HasPrefix(escaped, "/") {
		return nil, false
	}
	segs := strings.Split(escaped[1:], "/")
	for i, seg := range segs {
		d, err := url.PathUnescape(seg)
		if err != nil {
			return nil, false
		}
		if a, ok := r.opts.Aliases[d]; ok && i > 0 {
			d = a
		}
		segs[i] = d
	}
	if r.opts.AnyPrefix {
		start := -1
		for i, seg := range segs {
			if r.starts[seg] {
				start = i
				break
			}
		}
		if start < 0 {
			return nil, false
		}
		segs = segs[start:]
	}
	return segs, true
}

// matchSegments matches path segments against a template's; a parameter
// matches one non-empty segment.
func matchSegments(tmpl, segs []string) (map[string]string, bool) {
	if len(tmpl) != len(segs) {
		return nil, false
	}
	var params map[string]string
	for i, t := range tmpl {
		if name, ok := paramName(t); ok {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = make(map[string]string, 2)
			}
			params[name] = segs[i]
		} else if t != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// splitTemplate splits "/a/{b}" into its segments, checking its form.
func splitTemplate(path string) ([]string, error) {
	if !strings.HasPrefix(path, "/") || len(path) < 2 {
		return nil, fmt.Errorf("osdm router: path template %q must start with / and name a segment", path)
	}
	segs := strings.Split(path[1:], "/")
	for _, s := range segs {
		if s == "" || strings.ContainsAny(s, "{}") {
			if _, ok := paramName(s); !ok {
				return nil, fmt.Errorf("osdm router: path template %q: bad segment %q", path, s)
			}
		}
	}
	return segs, nil
}

// paramName is the name of a "{name}" segment.
func paramName(seg string) (string, bool) {
	if len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' && !strings.ContainsAny(seg[1:len(seg)-1], "{}/") {
		return seg[1 : len(seg)-1], true
	}
	return "", false
}

// canonicalTemplate writes segs with every parameter as {}, so that two
// templates naming their parameters differently still collide.
func canonicalTemplate(segs []string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		if _, ok := paramName(s); ok {
			s = "{}"
		}
		out[i] = s
	}
	return "/" + strings.Join(out, "/")
}

// mergeMethods is the sorted union of two method lists.
func mergeMethods(a, b []string) []string {
	set := map[string]bool{}
	for _, m := range append(append([]string(nil), a...), b...) {
		set[m] = true
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// shortPath is a request path as a problem's detail quotes it: at most
// 128 bytes.
func shortPath(p string) string {
	if len(p) > 128 {
		return p[:128] + "..."
	}
	return p
}
