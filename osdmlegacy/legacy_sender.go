package osdmlegacy

import (
	"context"
	"errors"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// Sender sends one legacy message to the legacy system and returns its
// reply. A NegativeReply is a reply, not an error: the error is for a
// message that got no usable reply, and is a *SendError saying which kind
// of failure it was. Send must be safe for concurrent use: an offer search
// sends up to Config.Concurrency messages at once.
type Sender interface {
	Send(ctx context.Context, req legacy.Request) (legacy.Reply, error)
}

// sendFunc adapts a function to Sender.
type sendFunc func(ctx context.Context, req legacy.Request) (legacy.Reply, error)

// Send implements Sender.
func (f sendFunc) Send(ctx context.Context, req legacy.Request) (legacy.Reply, error) {
	return f(ctx, req)
}

// The kinds of transport failure, for errors.Is on a *SendError.
var (
	// ErrLegacyDown: the legacy system could not be reached or answered a
	// server error (OSDM 503).
	ErrLegacyDown = errors.New("the legacy system is unavailable")
	// ErrLegacySlow: no answer within the call's time (OSDM 504).
	ErrLegacySlow = errors.New("the legacy system did not answer in time")
	// ErrLegacyGarbage: an answer that is not a legacy reply, or not one to
	// this message (OSDM 502).
	ErrLegacyGarbage = errors.New("the legacy system's answer could not be read")
)

// SendError is a legacy message that got no usable reply.
type SendError struct {
	// Kind is ErrLegacyDown, ErrLegacySlow or ErrLegacyGarbage.
	Kind error
	// Status is the HTTP status the legacy system answered, 0 when none.
	Status int
	// Err is the cause, for logs only: its text may name hosts and is never
	// put in an OSDM answer.
	Err error
}

// Error reads "the legacy system is unavailable: <cause>".
func (e *SendError) Error() string {
	if e.Err == nil {
		return e.Kind.Error()
	}
	return e.Kind.Error() + ": " + e.Err.Error()
}

// Unwrap returns both the kind and the cause, so errors.Is finds either.
func (e *SendError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// kindOf returns the transport failure kind of err: ErrLegacySlow for a
// deadline, ErrLegacyDown for anything not classified, nil for nil.
func kindOf(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrLegacySlow), errors.Is(err, context.DeadlineExceeded):
		return ErrLegacySlow
	case errors.Is(err, ErrLegacyGarbage):
		return ErrLegacyGarbage
	}
	return ErrLegacyDown
}

// MessageRecord is one legacy message of an OSDM call, for its log line
// and metrics.
type MessageRecord struct {
	// Kind is the request's kind (AvailabilityRequest, ...).
	Kind legacy.Kind
	// MessageID is the request's messageId.
	MessageID string
	// Outcome is the reply's kind (AvailabilityReply, NegativeReply, ...),
	// the NegativeReply's code as "NegativeReply:<CODE>", or the failure:
	// "down", "slow", "garbage".
	Outcome string
	// Duration is the time from send to reply.
	Duration time.Duration
}
