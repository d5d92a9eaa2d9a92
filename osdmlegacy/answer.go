package osdmlegacy

import (
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// Answer is the HTTP answer to one OSDM call, with what the caller logs
// and counts.
type Answer struct {
	// Answer is the HTTP answer (status, header, body) the glue writes.
	osdm.Answer
	// Operation names the OSDM operation ("POST /offers",
	// "GET /bookings/{bookingId}", "unknown"), for logs and metrics.
	Operation string
	// Outcome is "ok" for a 2xx, else the problem code without its
	// urn:uic:problem: prefix.
	Outcome string
	// Problem is the problem answered, nil for a 2xx.
	Problem *osdm.ProblemError
	// Messages are the legacy messages the call sent, in the order they
	// were answered.
	Messages []MessageRecord
	// FanOut is the number of legacy messages an offer search planned
	// (trains x classes x service codes); 0 for other calls.
	FanOut int
	// StoreErrors counts the store operations that failed during the call.
	StoreErrors int
	// Cause is why the façade itself failed the call (a store error, a
	// record found broken), for the log line; never sent to the client.
	// nil when the call did not fail inside the façade.
	Cause error
	// BookingID names the booking the call was about, for the log line; ""
	// when none.
	BookingID string
}

// trimProblemPrefix is code without urn:uic:problem: (an Answer's Outcome).
func trimProblemPrefix(code string) string {
	if name, ok := strings.CutPrefix(code, osdm.ProblemCodePrefix); ok && name != "" {
		return name
	}
	return code
}
