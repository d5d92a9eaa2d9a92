package converter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// Convert runs the OSDM calls req stands for through x, one after another,
// and returns the legacy reply. It never returns a nil Result: every
// failure is a NegativeReply. ctx bounds the whole sequence; the caller
// detaches it from the legacy client so a sequence always runs to a
// consistent end. Only the rollback of a booking that could not be
// fulfilled runs past ctx, for at most RollbackGrace.
//
// What each message kind calls is in the package documentation.
func (c *Converter) Convert(ctx context.Context, req legacy.Request, x Caller) *Result {
	return c.convert(ctx, req, x, noLedger{})
}

// convert is Convert telling j what the exchange does.
func (c *Converter) convert(ctx context.Context, req legacy.Request, x Caller, j ledger) *Result {
	switch m := req.(type) {
	case *legacy.AvailabilityRequest:
		if m != nil && m.ExchangeOf != "" {
			return c.newRun(m, x, j).exchangeAvailability(ctx, m)
		}
		if m != nil {
			return c.newRun(m, x, j).availability(ctx, m.Journey, m.Places)
		}
	case *legacy.BookingRequest:
		if m != nil {
			r := c.newRun(m, x, j)
			switch {
			case m.InformationOnly && m.ExchangeOf == "":
				return r.availability(ctx, m.Journey, m.Places)
			case m.InformationOnly:
				return r.exchangeAvailability(ctx, &legacy.AvailabilityRequest{Header: m.Header, Journey: m.Journey, Places: m.Places, ExchangeOf: m.ExchangeOf})
			case m.ExchangeOf != "":
				return r.exchange(ctx, m)
			}
			return r.book(ctx, m)
		}
	case *legacy.CancelRequest:
		if m != nil {
			return c.newRun(m, x, j).cancel(ctx, m)
		}
	case *legacy.SynchroRequest:
		if m != nil {
			return j.rollback(ctx, c.newRun(m, x, j), m)
		}
	case *legacy.PassengerDataRequest:
		if m != nil {
			return c.newRun(m, x, j).passengerData(ctx, m)
		}
	case *legacy.TicketRequest:
		if m != nil {
			// Read-only and possibly large: neither journaled nor kept
			// for resends (Journal, ReplyCache).
			return transient(c.newRun(m, x, j).ticket(ctx, m))
		}
	}
	return negative(legacy.NewNegativeReply(legacy.ReplyHeader{SentAt: c.now()}, legacy.CodeUnsupportedMessage,
		"The converter takes AvailabilityRequest, BookingRequest, CancelRequest, SynchroRequest, PassengerDataRequest and TicketRequest only."))
}

// run is one legacy exchange in progress.
type run struct {
	c         *Converter
	x         Caller
	j         ledger
	messageID string
	h         legacy.ReplyHeader
}

func (c *Converter) newRun(req legacy.Request, x Caller, j ledger) *run {
	return &run{c: c, x: x, j: j, messageID: req.MessageID(), h: legacy.ReplyTo(req, c.now())}
}

// availability answers an AvailabilityRequest or an informationOnly
// BookingRequest. No matching offer in a valid answer is an
// AvailabilityReply without offers, not a NegativeReply: the question
// "what is there?" has the answer "nothing", for both kinds alike.
func (r *run) availability(ctx context.Context, j legacy.Journey, p legacy.PlaceRequest) *Result {
	if why := r.c.pastDeparture(j); why != "" {
		return r.invalid(why)
	}
	ts, err := r.c.travellers(p)
	if err != nil {
		return r.invalid(err.Error())
	}
	resp, end := r.search(ctx, j, p, ts)
	if end != nil {
		return end
	}
	cs := candidates(resp, p)
	offers := make([]legacy.Offer, 0, len(cs))
	for _, c := range cs {
		if len(offers) == legacy.MaxItems {
			break
		}
		offers = append(offers, c.legacy)
	}
	dep, arr := r.c.journeyTimes(resp, cs, j)
	return ok(&legacy.AvailabilityReply{Header: r.h, Journey: legacy.EchoJourney(j, dep, arr), Offers: offers})
}

// invalid refuses the request before any OSDM call.
func (r *run) invalid(text string) *Result {
	text = plain(text, 900)
	if !strings.HasSuffix(text, ".") {
		text += "."
	}
	return r.negative(&legacy.NegativeReply{Code: legacy.CodeInvalidMessage, Text: text})
}

// invalidAbout is invalid for a message about booking id, which the
// partner holds: the NegativeReply names it.
func (r *run) invalidAbout(id, text string) *Result {
	res := r.invalid(text)
	res.Reply.(*legacy.NegativeReply).BookingRef = id
	return res
}

// negative completes n with the reply header, keeps its text within what
// a legacy reply carries, and wraps it. The caller sets Retryable.
func (r *run) negative(n *legacy.NegativeReply) *Result {
	n.Header = r.h
	n.Text = plain(n.Text, 1000)
	return negative(n)
}

// fail answers a failed call.
func (r *run) fail(f *failure) *Result {
	return r.negative(&legacy.NegativeReply{Code: f.code, PartnerProblem: f.partnerProblem(), Retryable: f.code.Retryable(),
		Text: r.lead(f.code) + " " + f.what + "."})
}

// lead is the first sentence of a NegativeReply text: what happened, in
// terms a person at the legacy side can act on.
func (r *run) lead(code legacy.Code) string {
	l, known := leads[code]
	if !known {
		l = "Partner {partner} refused the request."
	}
	l = strings.Replace(l, "{maxDocument}", strconv.FormatInt(r.c.maxDocument, 10), 1)
	return strings.Replace(l, "{partner}", r.c.partner, 1)
}

// leads are the lead sentences by code; {partner} stands for the
// partner's name, {maxDocument} for the route's max_document.
var leads = map[legacy.Code]string{
	legacy.CodeTrainNotFound:        "Partner {partner} knows no such train run.",
	legacy.CodeNoAvailability:       "Partner {partner} has no place left that matches the request.",
	legacy.CodeOfferExpired:         "The offer is no longer valid at partner {partner}; ask for availability again.",
	legacy.CodeBookingNotFound:      "Partner {partner} knows no such booking.",
	legacy.CodeAlreadyCancelled:     "The booking was already cancelled or refunded at partner {partner}.",
	legacy.CodeAuthenticationFailed: "Authentication at partner {partner} failed; check the route's osdm_token settings.",
	legacy.CodePartnerTimeout:       "Partner {partner} did not answer in time; try again later.",
	legacy.CodePartnerUnavailable:   "Partner {partner} could not be reached or failed; try again later.",
	legacy.CodeDocumentTooLarge:     "A ticket document of partner {partner} is larger than this route takes (max_document {maxDocument} bytes); nothing of it is passed on.",
}

// describeCall is "POST /bookings" for a reply text.
func (r *run) describeCall(step Step, bookingID string) string {
	tmpl := r.c.paths[step]
	if bookingID != "" {
		tmpl = strings.Replace(tmpl, "{"+osdm.ParamBookingID+"}", bookingID, 1)
	}
	return stepMethods[step] + " " + tmpl
}

// Result is the outcome of one legacy exchange.
type Result struct {
	// Reply is the legacy reply, never nil.
	Reply legacy.Reply
	// Status is the HTTP status to answer the legacy client with: 200 for
	// every reply but a NegativeReply, whose status follows its code.
	Status int
	// Outcome labels the exchange in logs and metrics: "ok",
	// "replacement_proposal", or the NegativeReply code in lower case.
	Outcome string
	// RequestKind is, for a Refusal, the kind of the request refused when
	// it could be read ("" when not); "" for other Results.
	RequestKind legacy.Kind
	// unsettled: the reply is not the exchange's outcome for good (the
	// partner's state is not known yet, another instance still runs the
	// exchange, or the journal's store failed; journal.go): it may still
	// change, so a ReplyCache does not keep it.
	unsettled bool
	// transient: the reply tells the partner's state as it was read,
	// which may change (a ticket issued since) and may be large (a
	// TicketReply's documents): a ReplyCache does not keep it, a resend
	// reads the partner again.
	transient bool
}

// Outcome labels of a Result other than a NegativeReply code.
const (
	OutcomeOK                  = "ok"
	OutcomeReplacementProposal = "replacement_proposal"
	// OutcomeBodyTimeout: the request's body did not arrive in time.
	OutcomeBodyTimeout = "body_timeout"
)

// Refusal is the Result of a request that could not be decoded (the glue's
// answer to a legacy.Decode or legacy.FormatOf error): its NegativeReply,
// with the status err asks for (400, 413, 415 or 422).
func Refusal(err *legacy.Error, now time.Time) *Result {
	return &Result{Reply: err.NegativeReply(now), Status: err.HTTPStatus(), Outcome: outcomeOf(err.Code), RequestKind: err.Kind}
}

// The intake of a legacy request: the rules that refuse it before it is
// decoded (405, 408, 413, 415 and 400 with their NegativeReply) and the
// format its reply is written in. The glue reads the HTTP request and
// asks these; it decides nothing itself.

// ReplyFormat is the format of the reply to a request whose Content-Type
// names no legacy format: JSON if the client accepts JSON and not XML,
// else XML, the legacy systems' usual form.
func ReplyFormat(accept string) legacy.Format {
	if strings.Contains(accept, "json") && !strings.Contains(accept, "xml") {
		return legacy.JSON
	}
	return legacy.XML
}

// RefuseMethod refuses, with 405, a request that is not a POST: a legacy
// message is the body of a POST. It is nil for a POST.
func RefuseMethod(method string, now time.Time) *Result {
	if method == http.MethodPost {
		return nil
	}
	res := Refusal(&legacy.Error{Code: legacy.CodeInvalidMessage, Field: "method",
		Rule: "a legacy message is the body of a POST, not a " + method}, now)
	res.Status = http.StatusMethodNotAllowed
	return res
}

// RefuseTooLarge refuses, with 413, a body longer than maxBody bytes.
func RefuseTooLarge(maxBody int64, now time.Time) *Result {
	return Refusal(&legacy.Error{Code: legacy.CodeInvalidMessage, Err: legacy.ErrTooLarge,
		Rule: fmt.Sprintf("the message is longer than %d bytes", maxBody)}, now)
}

// RefuseBodyTimeout refuses, with 408 and a retryable NegativeReply, a
// body that did not arrive completely within timeout: a client dribbling
// it (or a stalled one) holds no connection longer than an exchange may
// take.
func RefuseBodyTimeout(err error, timeout time.Duration, now time.Time) *Result {
	res := Refusal(&legacy.Error{Code: legacy.CodeInvalidMessage, Err: err,
		Rule: fmt.Sprintf("the message did not arrive completely within the route's timeout of %s; send it again", timeout)}, now)
	if nr, ok := res.Reply.(*legacy.NegativeReply); ok {
		nr.Retryable = true
	}
	res.Status, res.Outcome = http.StatusRequestTimeout, OutcomeBodyTimeout
	return res
}

// Refuse turns a failure to read or decode a request (a legacy.FormatOf
// or legacy.Decode error, a body broken off) into its reply: the status
// the legacy.Error asks for (400, 413, 415 or 422), 400 for any other.
func Refuse(err error, now time.Time) *Result {
	var le *legacy.Error
	if !errors.As(err, &le) {
		le = &legacy.Error{Code: legacy.CodeInvalidMessage, Err: err, Rule: "the message could not be read: " + err.Error()}
	}
	return Refusal(le, now)
}

// transient marks res as not kept for resends (Result.transient).
func transient(res *Result) *Result {
	res.transient = true
	return res
}

// ok wraps a successful reply.
func ok(reply legacy.Reply) *Result {
	return &Result{Reply: reply, Status: http.StatusOK, Outcome: OutcomeOK}
}

// negative wraps a NegativeReply with the status of its code.
func negative(n *legacy.NegativeReply) *Result {
	return &Result{Reply: n, Status: n.Code.HTTPStatus(), Outcome: outcomeOf(n.Code)}
}

func outcomeOf(code legacy.Code) string { return strings.ToLower(string(code)) }

// plain makes partner-supplied text fit a legacy reply: valid UTF-8, no
// control characters (XML cannot carry most of them, and a line break
// could forge log lines), runs of space folded to one, at most max
// characters (cut text ends in "...").
func plain(s string, max int) string {
	if isPlain(s, max) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), 4*max))
	n, cut := 0, 0 // characters written; byte length at max-3 characters
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) || r == 0xFFFE || r == 0xFFFF {
			space = n > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if n+need > max {
			return strings.TrimRight(b.String()[:cut], " ") + "..."
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if n <= max-3 {
				cut = b.Len()
			}
		}
		b.WriteRune(r)
		n++
		if n <= max-3 {
			cut = b.Len()
		}
	}
	return b.String()
}

// partnerText is plain(s, max) for a text the partner wrote about a call
// (a problem's code, title or detail), which goes into a legacy reply and
// the gateway's log: without anything shaped like a token first, so that
// a partner quoting the access token it was sent (a 401's "invalid token
// eyJ...", an echo of the request's headers) passes it on to neither.
func partnerText(s string, max int) string {
	return plain(tokenauth.RedactTokens(s), max)
}

// isPlain reports whether s is printable ASCII of at most max bytes with
// no leading, trailing or double space: plain leaves such text as it is.
func isPlain(s string, max int) bool {
	if len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || (c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ')) {
			return false
		}
	}
	return true
}
