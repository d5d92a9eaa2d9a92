package consumer

import (
	"net/http"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// exchangeLog is what osdm_convert logs of one legacy exchange: the
// fields of its "legacy exchange" line and, without status and duration
// (which the access log has of its own), of Caddy's access log line of
// the legacy request. One value, inlined, so that the access log costs
// one field per exchange.
type exchangeLog struct {
	partner, kind, messageID, outcome string
	reason, bookingRef                string
	resent                            bool
	calls                             callList
	// status > 0: the exchange line, with the reply status and the
	// exchange's duration.
	status   int
	duration time.Duration
}

// newExchangeLog collects the log fields of an exchange that was decoded.
func newExchangeLog(partner string, req legacy.Request, res *converter.Result, calls []callRecord, resent bool) exchangeLog {
	el := exchangeLog{partner: partner, kind: string(req.Kind()), messageID: req.MessageID(), outcome: res.Outcome,
		resent: resent, calls: calls}
	switch reply := res.Reply.(type) {
	case *legacy.NegativeReply:
		el.reason, el.bookingRef = reply.Text, reply.BookingRef
	case *legacy.BookingReply:
		el.bookingRef = reply.BookingRef
	case *legacy.CancelReply:
		el.bookingRef = reply.BookingRef
	case *legacy.PassengerDataReply:
		el.bookingRef = reply.BookingRef
	}
	return el
}

// MarshalLogObject implements zapcore.ObjectMarshaler.
func (el exchangeLog) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("partner", el.partner)
	enc.AddString("kind", el.kind)
	if el.messageID != "" {
		enc.AddString("message_id", el.messageID)
	}
	enc.AddString("outcome", el.outcome)
	if el.status > 0 {
		enc.AddInt("status", el.status)
	}
	if el.kind != "unknown" {
		enc.AddBool("resent", el.resent)
	}
	if el.status > 0 {
		enc.AddDuration("duration", el.duration)
	}
	if el.kind != "unknown" {
		if err := enc.AddArray("osdm_calls", el.calls); err != nil {
			return err
		}
	}
	if el.reason != "" {
		enc.AddString("reason", el.reason)
	}
	if el.bookingRef != "" {
		enc.AddString("booking_ref", el.bookingRef)
	}
	return nil
}

// addAccessLogFields adds the exchange's fields to Caddy's access log line
// of r (caddyhttp.ExtraLogFields, which a site with `log` writes).
func addAccessLogFields(r *http.Request, el exchangeLog) {
	if extra, ok := r.Context().Value(caddyhttp.ExtraLogFieldsCtxKey).(*caddyhttp.ExtraLogFields); ok {
		extra.Add(zap.Inline(el))
	}
}
