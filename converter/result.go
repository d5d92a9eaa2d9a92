package converter

import (
	"net/http"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

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
)

// Refusal is the Result of a request that could not be decoded (the glue's
// answer to a legacy.Decode or legacy.FormatOf error): its NegativeReply,
// with the status err asks for (400, 413, 415 or 422).
func Refusal(err *legacy.Error, now time.Time) *Result {
	return &Result{Reply: err.NegativeReply(now), Status: err.HTTPStatus(), Outcome: outcomeOf(err.Code), RequestKind: err.Kind}
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
