package converter

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// stepMethods is the HTTP method of each step.
var stepMethods = map[Step]string{
	StepOffers:        http.MethodPost,
	StepTripOffers:    http.MethodGet,
	StepBooking:       http.MethodPost,
	StepFulfillments:  http.MethodPost,
	StepReadBooking:   http.MethodGet,
	StepDeleteBooking: http.MethodDelete,
	StepRefundOffers:  http.MethodPost,
	StepRefundOffer:   http.MethodPatch,

	StepDeleteRefundOffer: http.MethodDelete,
	StepPassenger:         http.MethodPatch,

	StepExchangeOffers:          http.MethodPost,
	StepExchangeOperation:       http.MethodPost,
	StepReadExchangeOperation:   http.MethodGet,
	StepDeleteExchangeOperation: http.MethodDelete,

	StepReadFulfillment: http.MethodGet,
	StepDocument:        http.MethodGet,
}

// idempotentSteps are the state-changing calls whose operation declares the
// Idempotency-Key header in OSDM 3.9. POST /offers changes nothing, and
// DELETE /bookings/{bookingId} declares no such header (DELETE is
// idempotent by HTTP semantics), so neither gets one.
var idempotentSteps = map[Step]bool{
	StepBooking:      true,
	StepFulfillments: true,
	StepRefundOffers: true,
	StepRefundOffer:  true,

	StepExchangeOffers:    true,
	StepExchangeOperation: true,
}

// emptyObject is the body of a POST without content: OSDM wants a JSON
// body on every POST.
var emptyObject = []byte("{}")

// failure is an OSDM call that did not give what the sequence needs,
// already classified for the NegativeReply.
type failure struct {
	step Step
	code legacy.Code
	// what says what happened, for the reply text: "POST /bookings
	// answered 503", "GET /bookings/b-1 failed: connection refused".
	what string
	// problem is the partner's problem, when it sent one.
	problem *osdm.Problem
	// status is the HTTP status; 0 when no answer came.
	status int
	// uncertain: the partner may or may not have acted (5xx, transport
	// failure, timeout, unreadable 2xx), so the same call may be retried.
	uncertain bool
}

// partnerProblem is the problem code for the reply's PartnerProblem.
func (f *failure) partnerProblem() string {
	if f.problem == nil {
		return ""
	}
	return partnerText(f.problem.Code, 200)
}

// alternative reports whether the partner answered with
// ALTERNATIVE_SYSTEM_PROPOSAL.
func (f *failure) alternative() bool {
	return f.problem != nil && f.problem.IsAlternativeSystemProposal()
}

// refusal reports a business refusal: the partner understood the call and
// said no, so repeating it unchanged will not help.
func (f *failure) refusal() bool {
	return !f.uncertain && f.code != legacy.CodeAuthenticationFailed
}

// call is one OSDM call about to be made.
type call struct {
	step   Step
	params map[string]string // path parameters
	query  string            // encoded query string, GET /trip-offers only
	body   any               // marshalled to JSON; nil sends {} on POST and PATCH
	out    any               // the 2xx body is decoded into it; nil ignores the body

	// The ticket calls' own settings.
	path      string  // a ready path (a downloadLink's), instead of the step's template
	accept    string  // the Accept header, if not JSON
	maxAnswer int64   // the call's MaxAnswer: past it, DOCUMENT_TOO_LARGE
	answer    *[]byte // set to the 2xx body as the Caller gave it (valid while the exchange runs)
}

// linkTemplate stands for a downloadLink's path in logs and metrics: the
// link itself may carry a signature in its query.
const linkTemplate = "{downloadLink}"

// do makes the call through x and decodes a 2xx answer into cl.out. Any
// other outcome is a *failure.
func (r *run) do(ctx context.Context, cl call) *failure {
	c := r.c
	method := stepMethods[cl.step]
	tmpl := c.paths[cl.step]
	if cl.path != "" {
		tmpl = linkTemplate
	}
	for name, v := range cl.params {
		if why := unsafeSegment(v); why != "" {
			// Only a partner's own id gets here (legacy ones are checked
			// first): the call is not made.
			return &failure{step: cl.step, code: legacy.CodePartnerRejected,
				what: method + " " + tmpl + " was not made: the partner's " + name + " " + strconv.Quote(plain(v, 64)) + " " + why}
		}
	}
	path, err := cl.path, error(nil)
	if path == "" {
		path, err = expandPath(tmpl, cl.params)
	}
	if err != nil {
		// Only reachable with an id the partner left empty.
		return &failure{step: cl.step, code: legacy.CodePartnerUnavailable, uncertain: true,
			what: method + " " + tmpl + " could not be made: " + err.Error()}
	}
	if cl.query != "" {
		path += "?" + cl.query
	}
	// One backing array for the header values: Callers replace values
	// (Set, Del) rather than append to them, and this saves allocations
	// on every call.
	values := make([]string, 0, 3)
	value := func(v string) []string {
		values = append(values, v)
		return values[len(values)-1 : len(values) : len(values)]
	}
	h := make(http.Header, 3)
	if cl.accept != "" {
		h["Accept"] = value(cl.accept)
	} else {
		h["Accept"] = value(osdm.ContentTypeJSON)
	}
	var body []byte
	if method == http.MethodPost || method == http.MethodPatch {
		body = emptyObject
		if cl.body != nil {
			if body, err = marshal(cl.body); err != nil {
				return &failure{step: cl.step, code: legacy.CodePartnerUnavailable,
					what: method + " " + tmpl + " could not be made: " + err.Error()}
			}
		}
		h["Content-Type"] = value(osdm.ContentTypeJSON)
	}
	if idempotentSteps[cl.step] {
		h[osdm.HeaderIdempotencyKey] = value(IdempotencyKey(c.partner, r.messageID, cl.step))
	}
	req := &Call{Step: cl.step, Method: method, PathTemplate: tmpl, Path: path, Header: h, Body: body, MaxAnswer: cl.maxAnswer}
	// what names the call in a reply text; made only on failure.
	what := func() string {
		if len(path) > 200 || cl.path != "" {
			return method + " " + tmpl
		}
		return method + " " + path
	}

	var a *Answer
	if err = r.j.before(req, cl.body); err == nil {
		a, err = r.x.Call(ctx, req)
		r.j.after(cl.step, a, err)
	}
	if cl.maxAnswer > 0 && (errors.Is(err, ErrAnswerTooLarge) || err == nil && a != nil && int64(len(a.Body)) > cl.maxAnswer) {
		return &failure{step: cl.step, code: legacy.CodeDocumentTooLarge,
			what: what() + " answered more than " + strconv.FormatInt(cl.maxAnswer, 10) + " bytes"}
	}
	if err != nil || a == nil {
		return transportFailure(ctx, cl.step, what(), err)
	}
	if a.Status >= 200 && a.Status < 300 {
		if cl.answer != nil {
			*cl.answer = a.Body
		}
		if cl.out == nil {
			return nil
		}
		err := decodeAnswer(a.Body, cl.out)
		r.j.read(cl.step, cl.out, a.Body, err)
		if err != nil {
			return &failure{step: cl.step, code: legacy.CodePartnerUnavailable, status: a.Status, uncertain: true,
				what: what() + " answered " + strconv.Itoa(a.Status) + " with a body that is not the JSON OSDM defines (" + plain(err.Error(), 120) + ")"}
		}
		return nil
	}
	f := &failure{step: cl.step, status: a.Status, problem: readProblem(a.Body)}
	f.code = classify(cl.step, a.Status, f.problem)
	f.uncertain = unclear(a, nil)
	f.what = what() + " answered " + strconv.Itoa(a.Status) + describeProblem(f.problem)
	return f
}

// unclear reports an answer (or none) that does not say whether the
// partner acted: no answer, or any status but a clear 4xx refusal
// (5xx, 1xx-3xx, 408, 429).
func unclear(a *Answer, err error) bool {
	return err != nil || a == nil || a.Status >= 500 || a.Status < 400 ||
		a.Status == http.StatusRequestTimeout || a.Status == http.StatusTooManyRequests
}

// marshal is json.Marshal without HTML escaping: names such as
// "O'Brien & Söhne" reach the partner as written, not as \u0026.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// transportFailure classifies a Caller error. The reply text says
// what failed in words a person at a reservation desk can act on; the
// error itself (Go types, addresses, file:line) is the Caller's to log,
// never the reply's.
func transportFailure(ctx context.Context, step Step, what string, err error) *failure {
	f := &failure{step: step, uncertain: true}
	login := errors.Is(err, ErrLoginFailed)
	switch {
	case err == nil:
		f.code, f.what = legacy.CodePartnerUnavailable, what+" got no answer"
	case errors.Is(err, ErrAuthentication):
		f.code, f.uncertain = legacy.CodeAuthenticationFailed, false
		f.what = what + " was not made: the login at the partner's login service failed in a way that retrying will not fix (credentials refused, or a key or TLS setting); the detail is in the gateway's log"
	case errors.Is(err, ErrAnswerTooLarge):
		f.code = legacy.CodePartnerUnavailable
		f.what = what + " answered more than the gateway reads of an OSDM answer; the answer was dropped"
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(ctx.Err(), context.DeadlineExceeded):
		f.code = legacy.CodePartnerTimeout
		f.what = what + " got no answer in time"
		if login {
			f.what = what + " was not made: the partner's login service did not answer in time"
		}
	default:
		f.code = legacy.CodePartnerUnavailable
		f.what = what + " failed: the partner could not be reached or broke off its answer"
		if login {
			f.what = what + " was not made: the partner's login service failed or could not be reached"
		}
	}
	return f
}

// readProblem reads an RFC 9457 problem from an error body; nil when the
// body is not one.
func readProblem(body []byte) *osdm.Problem {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil
	}
	var p osdm.Problem
	if json.Unmarshal(body, &p) != nil {
		return nil
	}
	if p.Code == "" && p.Type == "" && p.Title == "" && p.Detail == "" {
		return nil
	}
	return &p
}

// describeProblem is " (code: title: detail)" for a reply text, or "".
func describeProblem(p *osdm.Problem) string {
	if p == nil {
		return ""
	}
	s := ""
	for _, part := range []string{p.Code, p.Title, p.Detail} {
		if part = partnerText(part, 200); part != "" {
			if s != "" {
				s += ": "
			}
			s += part
		}
	}
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// firstProblem returns the first problem of a successful answer that the
// problem table maps (an ALTERNATIVE_SYSTEM_PROPOSAL first of all), or nil
// when none is: other problems of a 2xx are warnings.
func firstProblem(step Step, problems []osdm.Problem) (*osdm.Problem, legacy.Code) {
	for i := range problems {
		if problems[i].IsAlternativeSystemProposal() {
			return &problems[i], ""
		}
	}
	for i := range problems {
		if code, ok := codeOfProblem(step, problems[i].Code); ok {
			return &problems[i], code
		}
	}
	return nil, ""
}

// idempotencyNamespace is the UUID v5 namespace of our Idempotency-Keys,
// itself a name-based UUID so that it is documented by its name rather than
// a magic constant.
var idempotencyNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/caddy-osdm/caddy-osdm/idempotency-key"))

// IdempotencyKey is the Idempotency-Key of the OSDM call step made for the
// legacy message messageID on partner's route: a name-based UUID (version 5,
// SHA-1, RFC 9562) of the three, as the spec wants a UUID. The same message
// resent, retried or served by another Caddy instance yields the same key,
// so the partner recognises the call; another message, step or partner
// yields another. The NUL separators keep ("a", "b:c") and ("a:b", "c")
// apart.
//
// It computes what uuid.NewSHA1(idempotencyNamespace, name) does, without
// its allocations: it runs on every state-changing call.
func IdempotencyKey(partner, messageID string, step Step) string {
	var buf [256]byte
	name := append(buf[:0], idempotencyNamespace[:]...)
	name = append(name, partner...)
	name = append(name, 0)
	name = append(name, messageID...)
	name = append(name, 0)
	name = append(name, step...)
	sum := sha1.Sum(name)
	var u uuid.UUID
	copy(u[:], sum[:])
	u[6] = (u[6] & 0x0f) | 0x50 // version 5
	u[8] = (u[8] & 0x3f) | 0x80 // RFC 9562 variant
	return u.String()
}

// Every value the converter puts into an OSDM path is one path segment:
// the legacy BookingRef of a CancelRequest, and the booking and refund
// offer ids the partner answered. url.PathEscape (expandPath) keeps
// "." and ".." as they are, and a partner, or a proxy in front of it, that
// normalises paths (RFC 3986 section 5.2.4) or decodes %2F or %2E before
// routing would turn GET /bookings/.. into GET / and POST
// /bookings/../refund-offers into POST /refund-offers. Such a value is
// refused before any OSDM call: a legacy one as INVALID_MESSAGE, a
// partner's one as a failed call that is never made.

// expandPath fills the {name} placeholders of a path template (osdm's or a
// `path` override of osdm_convert) with the path-escaped values of params.
// A placeholder without a value, or an unclosed brace, is an error, so a
// misconfigured template never reaches a partner half-filled.
func expandPath(template string, params map[string]string) (string, error) {
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("path template %q: unclosed {", template)
		}
		name := rest[open+1 : open+end]
		value, ok := params[name]
		if !ok || value == "" {
			return "", fmt.Errorf("path template %q: no value for {%s}", template, name)
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(value))
		rest = rest[open+end+1:]
	}
}

// maxUnescapes is how many rounds of percent-decoding unsafeSegment
// undoes: a chain of proxies may decode more than once.
const maxUnescapes = 3

// unsafeSegment says why s cannot be one segment of an OSDM path, or ""
// when it can: a dot segment ("." or ".."), or a "/" or "\" that would
// split it, as written or percent-encoded (%2e%2E, %2F, %252F, ...).
func unsafeSegment(s string) string {
	d := s
	for i := 0; i < maxUnescapes && strings.IndexByte(d, '%') >= 0; i++ {
		u, err := url.PathUnescape(d)
		if err != nil || u == d {
			break
		}
		d = u
		if isDotSegment(d) || strings.ContainsAny(d, `/\`) {
			break
		}
	}
	switch {
	case isDotSegment(s) || isDotSegment(d):
		return "is a dot segment (. or ..), which a partner or proxy that normalises paths resolves to another resource"
	case strings.ContainsAny(s, `/\`) || strings.ContainsAny(d, `/\`):
		return `holds a / or \ (as written or percent-encoded), which would make it more than one path segment`
	}
	return ""
}

// unsafeRef refuses the legacy booking reference id, the message's field
// name, when it cannot be one OSDM path segment; nil when it can.
func (r *run) unsafeRef(name, id string) *Result {
	if why := unsafeSegment(id); why != "" {
		return r.invalid(name + " " + strconv.Quote(plain(id, 128)) + " " + why + "; it cannot name a booking at partner " + r.c.partner)
	}
	return nil
}

func isDotSegment(s string) bool { return s == "." || s == ".." }

// decodeAnswer reads a partner's 2xx answer into out, an osdm type or the
// converter's view of one (offerAnswer), with the implementation behind
// encoding/json/v2. Against encoding/json it is strict where a partner's
// answer could be read two ways: member names match exactly as the OSDM
// spec writes them ("OfferId" is not "offerId"), an object may not repeat
// a name, strings must be valid UTF-8, times must be RFC 3339 as written
// (no comma before a fraction, no zone offset of 24 hours); nesting is
// bounded (10 000 levels). Members the types do not have are skipped, as
// OSDM lets a partner add its own: a skipped member is held to the JSON
// rules above (syntax, UTF-8, no repeated name), not to any type.
//
// Each string read is a copy of its own: what the converter puts in a
// legacy reply (an offerId, a currency) lives on in the reply cache and
// keeps no more of the partner's answer alive than that.
//
// An offerAnswer's offers start with room for as many as the answer has
// "offerId" names (at most 32; each offer has one, so the library does not
// grow the slice 1, 2, 4 on the way). An offer search answer that
// offerAnswer cannot read is read again into
// osdm.OfferCollectionResponse, whose error is returned: it names the
// first member in error by its osdm type, as for every other answer.
func decodeAnswer(body []byte, out any) error {
	view, _ := out.(*offerAnswer)
	if view != nil && view.Offers == nil {
		if n := bytes.Count(body, []byte(`"offerId"`)); n > 0 {
			view.Offers = make([]answerOffer, 0, min(n, 32))
		}
	}
	err := jsonv2.Unmarshal(body, out)
	if view != nil && err != nil {
		if fullErr := jsonv2.Unmarshal(body, new(osdm.OfferCollectionResponse)); fullErr != nil {
			return fullErr
		}
	}
	return err
}
