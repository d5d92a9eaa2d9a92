package osdmsandbox

import (
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
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
	// documents are rendered into body when it is written (documents.go).
	documents []ticketpdf.Placeholder
}

// request is what a handler needs of the HTTP request.
type request struct {
	// client is the client the request is made by (AnonymousClient when
	// none).
	client        string
	query         url.Values
	body          []byte
	idempotency   string // Idempotency-Key, "" when none
	bookingID     string
	refundOfferID string
	passengerID   string
	// exchangeOperationID names an exchange operation.
	exchangeOperationID string
	// fulfillmentID names a fulfilment.
	fulfillmentID string
}

// handlerFunc serves one operation; it runs with s.mu held.
type handlerFunc func(s *Sandbox, now time.Time, rq *request) *response

// on is the handlerFunc of desk method h, on the desk of the Sandbox
// that deskOf returns.
func on[D any](deskOf func(*Sandbox) D, h func(D, time.Time, *request) *response) handlerFunc {
	return func(s *Sandbox, now time.Time, rq *request) *response { return h(deskOf(s), now, rq) }
}

// The desks of a Sandbox, for the routes.
func offersOf(s *Sandbox) *offerDesk         { return s.offers }
func bookingsOf(s *Sandbox) *bookingDesk     { return s.bookings }
func refundsOf(s *Sandbox) *refundDesk       { return s.refunds }
func passengersOf(s *Sandbox) *passengerDesk { return s.passengers }
func exchangesOf(s *Sandbox) *exchangeDesk   { return s.exchanges }

// The sandbox's own operations, outside the spec.
var (
	// opTripOffers is GET /trip-offers of older partners.
	opTripOffers = osdm.Operation{Method: http.MethodGet, Path: osdm.PathTripOffers, Success: []int{http.StatusOK}}
	// opListBookings is the debug listing of every booking held.
	opListBookings = osdm.Operation{Method: http.MethodGet, Path: "/_sandbox/bookings", Success: []int{http.StatusOK}}
)

// routes are the operations the sandbox serves, one row each; whether an
// operation reads a JSON body and honours Idempotency-Key is the spec's
// (osdm.Operation). Every other operation of the spec is answered 501 by
// the router.
var routes = []osdm.Route[handlerFunc]{
	{Op: osdm.OpCreateOffers, Handle: on(offersOf, (*offerDesk).searchOffers)},
	{Op: opTripOffers, Handle: on(offersOf, (*offerDesk).searchTripOffers)},
	{Op: opListBookings, Handle: on(bookingsOf, (*bookingDesk).listBookings)},
	{Op: osdm.OpCreateBooking, Handle: on(bookingsOf, (*bookingDesk).createBooking)},
	{Op: osdm.OpGetBooking, Handle: on(bookingsOf, (*bookingDesk).getBooking)},
	{Op: osdm.OpDeleteBooking, Handle: on(bookingsOf, (*bookingDesk).deleteBooking)},
	{Op: osdm.OpCreateFulfillments, Handle: on(bookingsOf, (*bookingDesk).fulfil)},
	{Op: osdm.OpGetFulfillment, Handle: on(bookingsOf, (*bookingDesk).getFulfillment)},
	{Op: osdm.OpCreateRefundOffers, Handle: on(refundsOf, (*refundDesk).createRefundOffer)},
	{Op: osdm.OpGetRefundOffer, Handle: on(refundsOf, (*refundDesk).getRefundOffer)},
	{Op: osdm.OpPatchRefundOffer, Handle: on(refundsOf, (*refundDesk).confirmRefundOffer)},
	{Op: osdm.OpDeleteRefundOffer, Handle: on(refundsOf, (*refundDesk).deleteRefundOffer)},
	{Op: osdm.OpGetPassenger, Handle: on(passengersOf, (*passengerDesk).getPassenger)},
	{Op: osdm.OpPatchPassenger, Handle: on(passengersOf, (*passengerDesk).patchPassenger)},
	{Op: osdm.OpCreateExchangeOffers, Handle: on(exchangesOf, (*exchangeDesk).createExchangeOffers)},
	{Op: osdm.OpCreateExchangeOperation, Handle: on(exchangesOf, (*exchangeDesk).createExchangeOperation)},
	{Op: osdm.OpGetExchangeOperation, Handle: on(exchangesOf, (*exchangeDesk).getExchangeOperation)},
	{Op: osdm.OpPatchExchangeOperation, Handle: on(exchangesOf, (*exchangeDesk).patchExchangeOperation)},
	{Op: osdm.OpDeleteExchangeOperation, Handle: on(exchangesOf, (*exchangeDesk).deleteExchangeOperation)},
}

// router routes the sandbox's requests. Anything before the first segment
// that starts an OSDM path (a path of the spec, trip-offers or _sandbox)
// is a route prefix and skipped; refundOffers is the spelling of older
// partners.
var router = osdm.MustRouter(routes, osdm.RouterOptions{
	AnyPrefix: true,
	Aliases:   map[string]string{"refundOffers": "refund-offers"},
	Subject:   "the sandbox (it serves offers, bookings, fulfilment and its documents, passengers, refunds and exchanges; see its documentation)",
})

// ServeClient answers one OSDM call made by client (the access token's
// subject; AnonymousClient when none): method and path (escaped, with its
// query if any) as the request line has them, its header and its whole
// body, read by the caller up to MaxBodyBytes+1 bytes. The offers client
// searches and the bookings it makes are client's; another client's
// offer, booking, or anything hanging off a booking (passengers,
// fulfilment, refund and exchange offers, exchange operations) is
// answered as an unknown id, nothing changed; its Idempotency-Keys are
// client's own. The sandbox answers from memory, so ctx is not waited on;
// it is there for the shape osdm_legacy's ServeClient has.
func (s *Sandbox) ServeClient(_ context.Context, client, method, path string, header http.Header, body []byte) *osdm.Answer {
	resp := s.serve(client, method, path, header, body)
	out := resp.body
	if len(resp.documents) > 0 {
		var err error
		if out, err = s.docs.cache.Fill(out, resp.documents); err != nil {
			resp = documentProblem(err)
			out = resp.body
		}
	}
	h := http.Header{"Cache-Control": {"no-store"}}
	if resp.status == http.StatusMethodNotAllowed {
		// Required in a 405.
		h["Allow"] = []string{resp.allow}
	}
	if resp.replayed {
		h.Set(HeaderReplayed, "true")
	}
	if out != nil {
		if resp.problem {
			h.Set("Content-Type", osdm.ContentTypeProblem)
		} else {
			h.Set("Content-Type", osdm.ContentTypeJSON)
		}
	}
	return &osdm.Answer{Status: resp.status, Header: h, Body: out}
}

// UnreadBody is the answer to a call whose body could not be read.
func UnreadBody(err error) *osdm.Answer {
	p := osdm.Invalid(osdm.CodeValidationError, "", "reading the body: "+err.Error())
	resp := problemResponse(p)
	return &osdm.Answer{Status: resp.status, Body: resp.body,
		Header: http.Header{"Cache-Control": {"no-store"}, "Content-Type": {osdm.ContentTypeProblem}}}
}

func (s *Sandbox) serve(client, method, target string, header http.Header, body []byte) *response {
	path, rawQuery, _ := strings.Cut(target, "?")
	m := router.Match(method, path)
	if m.Route == nil {
		return problemResponse(m.Problem)
	}
	op := m.Route.Op
	query, _ := url.ParseQuery(rawQuery)
	rq := &request{
		client:        client,
		query:         query,
		bookingID:     m.Params[osdm.ParamBookingID],
		refundOfferID: m.Params[osdm.ParamRefundOfferID],
		passengerID:   m.Params[osdm.ParamPassengerID],

		exchangeOperationID: m.Params[osdm.ParamExchangeOperationID],
		fulfillmentID:       m.Params[osdm.ParamFulfillmentID],
	}
	if op.Body {
		if p := checkBody(header, body); p != nil {
			return problemResponse(p)
		}
		if len(body) > 0 {
			rq.body = body
		}
	}
	if op.Idempotent {
		if n := len(header.Values(osdm.HeaderIdempotencyKey)); n > 1 {
			return problemResponse(osdm.Invalid(osdm.CodeValidationError, "", "Idempotency-Key is given "+strconv.Itoa(n)+" times; send one key"))
		}
		rq.idempotency = header.Get(osdm.HeaderIdempotencyKey)
		if rq.idempotency != "" && !osdm.ValidUUID(rq.idempotency) {
			return problemResponse(osdm.Invalid(osdm.CodeValidationError, "", "Idempotency-Key "+quoteShort(rq.idempotency)+" must be a UUID such as 123e4567-e89b-12d3-a456-426614174000"))
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.led.sweep(now, false)
	scope := idempotencyScope(client, method+" "+unescapedPath(path))
	if rq.idempotency != "" {
		if resp := s.led.replay(now, scope, rq.idempotency, rq.body); resp != nil {
			return resp
		}
	}
	resp := m.Route.Handle(s, now, rq)
	if rq.idempotency != "" {
		s.led.remember(now, scope, rq.idempotency, rq.body, resp)
	}
	return resp
}

// unescapedPath is path with its escapes undone (as net/url's URL.Path
// has it), path itself when they are malformed.
func unescapedPath(path string) string {
	if p, err := url.PathUnescape(path); err == nil {
		return p
	}
	return path
}

// checkBody checks a JSON request body: at most MaxBodyBytes, and a JSON
// content type unless it is empty.
func checkBody(header http.Header, body []byte) *osdm.ProblemError {
	if len(body) > MaxBodyBytes {
		return osdm.NewProblem(http.StatusRequestEntityTooLarge, osdm.CodeMalformedRequest, "the body exceeds "+strconv.Itoa(MaxBodyBytes)+" bytes")
	}
	if len(body) == 0 {
		return nil
	}
	ct := header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return osdm.NewProblem(http.StatusUnsupportedMediaType, osdm.CodeMalformedRequest,
			"Content-Type "+quoteShort(ct)+" is not application/json")
	}
	// JSON is UTF-8 (RFC 8259); a charset's name is case-insensitive.
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return osdm.NewProblem(http.StatusUnsupportedMediaType, osdm.CodeMalformedRequest, "the body must be UTF-8, not charset "+quoteShort(cs))
	}
	return nil
}

// jsonResponse is a successful answer with body v.
func jsonResponse(status int, v any) *response {
	body, err := json.Marshal(v)
	if err != nil {
		// Only our own types are marshalled; this would be a bug.
		return problemResponse(osdm.NewProblem(http.StatusInternalServerError, osdm.CodeUnknownError, "encoding the answer: "+err.Error()))
	}
	return &response{status: status, body: body}
}

// quoteShort quotes a value a request gave (an id of its path, a
// header) for a problem's detail: at most its first 64 bytes, then "...",
// so that a long one does not make a long answer.
func quoteShort(s string) string {
	const max = 64
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// problemResponse is an error answer.
func problemResponse(p *osdm.ProblemError) *response {
	body, _ := json.Marshal(p.Body())
	return &response{status: p.Status, body: body, problem: true, allow: p.Allow}
}
