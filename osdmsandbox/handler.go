package osdmsandbox

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// MaxBodyBytes bounds a request body; a larger one is answered 413.
const MaxBodyBytes = 1 << 20

// HeaderReplayed marks a response that repeats the stored answer to an
// earlier request with the same Idempotency-Key.
const HeaderReplayed = "Idempotent-Replayed"

// response is an answer on its way out: handlers return one rather than
// write it, so that an idempotent request's answer can be stored and replayed.
type response struct {
	status  int
	body    []byte // nil for 204
	problem bool   // application/problem+json rather than application/json
	allow   string // the Allow header of a 405
	// replayed: the stored answer to an earlier request with the same
	// Idempotency-Key.
	replayed bool
}

// request is what a handler needs of the HTTP request.
type request struct {
	query         url.Values
	body          []byte
	idempotency   string // Idempotency-Key, "" when none
	bookingID     string
	refundOfferID string
	passengerID   string
	// exchangeOperationID names an exchange operation.
	exchangeOperationID string
}

// handlerFunc serves one operation; it runs with s.mu held.
type handlerFunc func(s *Sandbox, now time.Time, rq *request) *response

// route is one method on one path.
type route struct {
	handle handlerFunc
	// withBody: the operation takes a JSON body.
	withBody bool
	// idempotent: the operation honours Idempotency-Key.
	idempotent bool
}

// The operations of each path, by method.
var (
	offersRoutes      = map[string]route{http.MethodPost: {handle: (*Sandbox).searchOffers, withBody: true}}
	tripOffersRoutes  = map[string]route{http.MethodGet: {handle: (*Sandbox).searchTripOffers}}
	debugRoutes       = map[string]route{http.MethodGet: {handle: (*Sandbox).listBookings}}
	bookingsRoutes    = map[string]route{http.MethodPost: {handle: (*Sandbox).createBooking, withBody: true, idempotent: true}}
	bookingRoutes     = map[string]route{http.MethodGet: {handle: (*Sandbox).getBooking}, http.MethodDelete: {handle: (*Sandbox).deleteBooking}}
	fulfilRoutes      = map[string]route{http.MethodPost: {handle: (*Sandbox).fulfil, withBody: true, idempotent: true}}
	refundOffersRoute = map[string]route{http.MethodPost: {handle: (*Sandbox).createRefundOffer, withBody: true, idempotent: true}}
	refundOfferRoutes = map[string]route{
		http.MethodGet:    {handle: (*Sandbox).getRefundOffer},
		http.MethodPatch:  {handle: (*Sandbox).confirmRefundOffer, withBody: true, idempotent: true},
		http.MethodDelete: {handle: (*Sandbox).deleteRefundOffer},
	}
	exchangeOffersRoutes     = map[string]route{http.MethodPost: {handle: (*Sandbox).createExchangeOffers, withBody: true, idempotent: true}}
	exchangeOperationsRoutes = map[string]route{http.MethodPost: {handle: (*Sandbox).createExchangeOperation, withBody: true, idempotent: true}}
	exchangeOperationRoutes  = map[string]route{
		http.MethodGet:    {handle: (*Sandbox).getExchangeOperation},
		http.MethodPatch:  {handle: (*Sandbox).patchExchangeOperation, withBody: true, idempotent: true},
		http.MethodDelete: {handle: (*Sandbox).deleteExchangeOperation},
	}
	passengerRoutes = map[string]route{
		http.MethodGet:   {handle: (*Sandbox).getPassenger},
		http.MethodPatch: {handle: (*Sandbox).patchPassenger, withBody: true},
	}
)

// match finds the operations of a URL path and the ids in it. Anything
// before the first segment that starts an OSDM path (a path of the spec,
// trip-offers or _sandbox) is a prefix and ignored. It returns nil routes
// for a path the sandbox does not serve, with the OSDM path's segments
// (nil when the path has none).
//
// escaped is the path as sent (URL.EscapedPath): it is split at its
// slashes first and each segment percent-decoded after, as a real server
// routes, so that b-X%2F is the booking id "b-X/", not the booking b-X
// followed by an empty segment.
func match(escaped string) (map[string]route, *request, []string) {
	segs := strings.Split(strings.Trim(escaped, "/"), "/")
	for i, seg := range segs {
		d, err := url.PathUnescape(seg)
		if err != nil {
			return nil, nil, nil
		}
		segs[i] = d
	}
	start := -1
	for i, seg := range segs {
		if specFirstSegments[seg] || seg == "trip-offers" || seg == "_sandbox" {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, nil, nil
	}
	segs = segs[start:]
	rq := &request{}
	switch {
	case len(segs) == 1 && segs[0] == "offers":
		return offersRoutes, rq, segs
	case len(segs) == 1 && segs[0] == "trip-offers":
		return tripOffersRoutes, rq, segs
	case len(segs) == 2 && segs[0] == "_sandbox" && segs[1] == "bookings":
		return debugRoutes, rq, segs
	case segs[0] != "bookings" || len(segs) > 1 && segs[1] == "":
		return nil, nil, segs
	case len(segs) == 1:
		return bookingsRoutes, rq, segs
	}
	rq.bookingID = segs[1]
	// refundOffers is the spelling of older partners.
	isRefunds := len(segs) > 2 && (segs[2] == "refund-offers" || segs[2] == "refundOffers")
	switch {
	case len(segs) == 2:
		return bookingRoutes, rq, segs
	case len(segs) == 3 && segs[2] == "fulfillments":
		return fulfilRoutes, rq, segs
	case len(segs) == 3 && isRefunds:
		return refundOffersRoute, rq, segs
	case len(segs) == 4 && isRefunds && segs[3] != "":
		rq.refundOfferID = segs[3]
		return refundOfferRoutes, rq, segs
	case len(segs) == 4 && segs[2] == "passengers" && segs[3] != "":
		rq.passengerID = segs[3]
		return passengerRoutes, rq, segs
	case len(segs) == 3 && segs[2] == "exchange-offers":
		return exchangeOffersRoutes, rq, segs
	case len(segs) == 3 && segs[2] == "exchange-operations":
		return exchangeOperationsRoutes, rq, segs
	case len(segs) == 4 && segs[2] == "exchange-operations" && segs[3] != "":
		rq.exchangeOperationID = segs[3]
		return exchangeOperationRoutes, rq, segs
	}
	return nil, nil, segs
}

// unserved answers a request the sandbox has no operation for: 501 for an
// operation of the spec, 405 for a method the path has neither in the
// spec nor here, 404 for a path that is not OSDM's.
func unserved(r *http.Request, routes map[string]route, segs []string) *response {
	specified, known := specMethods(segs)
	if slices.Contains(specified, r.Method) {
		return problemResponse(newProblem(http.StatusNotImplemented, CodeOperationNotPermitted,
			"the sandbox does not serve "+r.Method+" "+r.URL.Path+", an OSDM operation; it serves offers, bookings, fulfilment, passengers, refunds and exchanges (see its documentation)"))
	}
	if routes == nil && !known {
		return problemResponse(newProblem(http.StatusNotFound, CodeResourceNotFound, "no OSDM operation at "+r.URL.Path))
	}
	// Allow lists what the sandbox serves; the spec's other methods of the
	// path answer 501.
	allowed := make([]string, 0, len(routes))
	for m := range routes {
		allowed = append(allowed, m)
	}
	sort.Strings(allowed)
	detail := r.Method + " is not an operation on " + r.URL.Path
	switch {
	case len(allowed) > 0:
		detail += "; the sandbox serves " + strings.Join(allowed, ", ")
	case len(specified) > 0:
		detail += "; the spec's are " + strings.Join(specified, ", ") + ", which the sandbox does not serve"
	}
	resp := problemResponse(newProblem(http.StatusMethodNotAllowed, CodeOperationNotPermitted, detail))
	resp.allow = strings.Join(allowed, ", ")
	return resp
}

// ServeHTTP answers one OSDM request.
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	resp := s.serve(r)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if resp.status == http.StatusMethodNotAllowed {
		// Required in a 405, even when empty (no method is served).
		h["Allow"] = []string{resp.allow}
	}
	if resp.replayed {
		h.Set(HeaderReplayed, "true")
	}
	if resp.body != nil {
		if resp.problem {
			h.Set("Content-Type", osdm.ContentTypeProblem)
		} else {
			h.Set("Content-Type", osdm.ContentTypeJSON)
		}
		h.Set("Content-Length", strconv.Itoa(len(resp.body)))
	}
	w.WriteHeader(resp.status)
	if resp.body != nil && r.Method != http.MethodHead {
		_, _ = w.Write(resp.body)
	}
}

func (s *Sandbox) serve(r *http.Request) *response {
	routes, rq, segs := match(r.URL.EscapedPath())
	rt, ok := routes[r.Method]
	if !ok {
		return unserved(r, routes, segs)
	}
	rq.query = r.URL.Query()
	if rt.withBody {
		body, p := readBody(r)
		if p != nil {
			return problemResponse(p)
		}
		rq.body = body
	}
	if rt.idempotent {
		rq.idempotency = r.Header.Get(osdm.HeaderIdempotencyKey)
		if rq.idempotency != "" && !osdm.ValidUUID(rq.idempotency) {
			return problemResponse(invalid("", "Idempotency-Key "+strconv.Quote(rq.idempotency)+" must be a UUID such as 123e4567-e89b-12d3-a456-426614174000"))
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.sweep(now, false)
	scope := r.Method + " " + r.URL.Path
	if rq.idempotency != "" {
		if resp := s.replay(now, scope, rq.idempotency, rq.body); resp != nil {
			return resp
		}
	}
	resp := rt.handle(s, now, rq)
	if rq.idempotency != "" {
		s.remember(now, scope, rq.idempotency, rq.body, resp)
	}
	return resp
}

// readBody reads a JSON request body of at most MaxBodyBytes. An empty
// body is returned as nil without a content type check.
func readBody(r *http.Request) ([]byte, *problem) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, invalid("", "reading the body: "+err.Error())
	}
	if len(body) > MaxBodyBytes {
		return nil, newProblem(http.StatusRequestEntityTooLarge, CodeMalformedRequest, "the body exceeds "+strconv.Itoa(MaxBodyBytes)+" bytes")
	}
	if len(body) == 0 {
		return nil, nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil, newProblem(http.StatusUnsupportedMediaType, CodeMalformedRequest,
			"Content-Type "+strconv.Quote(ct)+" is not application/json")
	}
	return body, nil
}

// decode parses a JSON body into v; an empty body is an error unless
// emptyOK. Unknown fields are ignored, as OSDM readers should.
func decode(body []byte, v any, emptyOK bool) *problem {
	if len(body) == 0 {
		if emptyOK {
			return nil
		}
		return invalid("", "a JSON body is required")
	}
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return malformed("#/"+strings.ReplaceAll(typeErr.Field, ".", "/"), "malformed JSON body: "+err.Error())
		}
		return malformed("", "malformed JSON body: "+err.Error())
	}
	return nil
}

// jsonResponse is a successful answer with body v.
func jsonResponse(status int, v any) *response {
	body, err := json.Marshal(v)
	if err != nil {
		// Only our own types are marshalled; this would be a bug.
		return problemResponse(newProblem(http.StatusInternalServerError, CodeUnknownError, "encoding the answer: "+err.Error()))
	}
	return &response{status: status, body: body}
}

// problemResponse is an error answer.
func problemResponse(p *problem) *response {
	body, _ := json.Marshal(p.body())
	return &response{status: p.status, body: body, problem: true}
}
