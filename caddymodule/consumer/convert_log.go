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
	case *legacy.TicketReply:
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

// logExchange writes the one log line of a legacy exchange, by the rule
// osdm_legacy follows too: DEBUG for a search answered with offers (an
// AvailabilityReply, to an AvailabilityRequest or an informationOnly
// BookingRequest: read-only and the high-volume message; Caddy's access
// log carries its fields, addAccessLogFields), INFO for bookings,
// cancellations and every NegativeReply, WARN when the reply is a 5xx.
func (c *Convert) logExchange(el exchangeLog, req legacy.Request, res *converter.Result, d time.Duration) {
	level := zapcore.InfoLevel
	switch {
	case res.Status >= http.StatusInternalServerError:
		level = zapcore.WarnLevel
	case res.Reply.Kind() == legacy.KindAvailabilityReply:
		level = zapcore.DebugLevel
	}
	ce := c.logger.Check(level, "legacy exchange")
	if ce == nil {
		return
	}
	el.status, el.duration = res.Status, d
	ce.Write(zap.Inline(el))
}

// negativeText is the text of a NegativeReply, "" for other replies.
func negativeText(r legacy.Reply) string {
	if nr, ok := r.(*legacy.NegativeReply); ok {
		return nr.Text
	}
	return ""
}

// callList logs the OSDM calls of an exchange as an array of objects.
type callList []callRecord

// MarshalLogArray implements zapcore.ArrayMarshaler.
func (cl callList) MarshalLogArray(enc zapcore.ArrayEncoder) error {
	for _, call := range cl {
		if err := enc.AppendObject(call); err != nil {
			return err
		}
	}
	return nil
}

// MarshalLogObject implements zapcore.ObjectMarshaler. The path is the
// template: booking ids stay out of the log line's shape.
func (cr callRecord) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("step", string(cr.step))
	enc.AddString("method", cr.method)
	enc.AddString("path", cr.template)
	if cr.status > 0 {
		enc.AddInt("status", cr.status)
	}
	enc.AddDuration("duration", cr.duration)
	if cr.err != nil {
		enc.AddString("error", cr.err.Error())
	}
	return nil
}

// Interface guards
var (
	_ zapcore.ArrayMarshaler  = callList(nil)
	_ zapcore.ObjectMarshaler = callRecord{}
	_ zapcore.ObjectMarshaler = exchangeLog{}
)
