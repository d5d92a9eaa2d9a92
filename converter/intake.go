package converter

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// The intake of a legacy request: the rules that refuse it before it is
// decoded (405, 408, 413, 415 and 400 with their NegativeReply) and the
// format its reply is written in. The glue reads the HTTP request and
// asks these; it decides nothing itself.

// Outcome label of a body that did not arrive in time.
const OutcomeBodyTimeout = "body_timeout"

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
