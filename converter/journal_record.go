package converter

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// States of an exchange record.
const (
	// stateRunning: the exchange began; nothing was sent to book yet.
	stateRunning = "running"
	// stateIntent: POST /bookings is about to be sent, or was sent and
	// no booking id came back (yet).
	stateIntent = "intent"
	// stateBooked: the partner named the booking; not yet confirmed or
	// deleted.
	stateBooked = "booked"
	// stateUnsettled: the exchange ended, its reply was given, but the
	// partner's state is not known (a booking neither confirmed nor
	// deleted, or a POST /bookings without a clear answer): settlement
	// reads it back later and records the outcome.
	stateUnsettled = "unsettled"
	// stateDone: the reply is final and the partner's state matches it.
	stateDone = "done"
)

// exchangeRecord is the journal's entry of one legacy message, stored as
// JSON under convert/<partner>/x/<messageId>.
type exchangeRecord struct {
	V         int    `json:"v"`
	Partner   string `json:"partner"`
	MessageID string `json:"messageId"`
	Kind      string `json:"kind"`
	// BodyHash is the SHA-256 of the legacy request body, hex: a resend
	// must be the same message.
	BodyHash string `json:"bodyHash"`
	// Namespaced is the request's XML form, for replies made later.
	Namespaced bool   `json:"namespaced,omitempty"`
	State      string `json:"state"`
	// OfferID is the offer chosen for POST /bookings.
	OfferID string `json:"offerId,omitempty"`
	// BookingBody is the exact POST /bookings body sent, so that the same
	// call (same Idempotency-Key, same body) can be made again.
	BookingBody json.RawMessage `json:"bookingBody,omitempty"`
	// BookingID is the partner's booking, once it named one.
	BookingID string `json:"bookingId,omitempty"`
	// ConfirmBy is the booking's confirmationTimeLimit, when given.
	ConfirmBy *time.Time `json:"confirmBy,omitempty"`
	// After is the progress of an after-sales message (a cancellation, a
	// rollback), step by step; for a booking, whether it was rolled back.
	After *afterSales `json:"afterSales,omitempty"`
	// Reply is the reply given (final once State is done).
	Reply   *storedReply `json:"reply,omitempty"`
	Created time.Time    `json:"created"`
	Updated time.Time    `json:"updated,omitzero"`
	// Attempts counts settlement attempts that found nothing out.
	Attempts int `json:"attempts,omitempty"`
}

// storedReply is a Result as kept in the store: the reply in the legacy
// JSON form, its HTTP status and its outcome label.
type storedReply struct {
	Body    json.RawMessage `json:"body"`
	Status  int             `json:"status"`
	Outcome string          `json:"outcome"`
}

// encode is rec as JSON, the same bytes as encoding/json's Marshal without
// HTML escaping (TestRecordEncodeAsMarshal), written by hand: a booking
// encodes its record three times (intent, booking id, outcome), and
// Marshal's reflection and its re-compaction of the raw bodies were most
// of the journal's own CPU after the store's. The raw bodies are the
// converter's own JSON (the POST /bookings body it marshalled, the reply
// in legacy JSON) and are copied as they are.
func (rec *exchangeRecord) encode() ([]byte, error) {
	// Room for the names, times and numbers, and what varies.
	n := 200 + len(rec.Partner) + len(rec.MessageID) + len(rec.Kind) + len(rec.BodyHash) +
		len(rec.OfferID) + len(rec.BookingID) + len(rec.BookingBody)
	if rec.Reply != nil {
		n += 64 + len(rec.Reply.Body)
	}
	b := make([]byte, 0, n)
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(rec.V), 10)
	b = appendField(b, "partner", rec.Partner)
	b = appendField(b, "messageId", rec.MessageID)
	b = appendField(b, "kind", rec.Kind)
	b = appendField(b, "bodyHash", rec.BodyHash)
	if rec.Namespaced {
		b = append(b, `,"namespaced":true`...)
	}
	b = appendField(b, "state", rec.State)
	if rec.OfferID != "" {
		b = appendField(b, "offerId", rec.OfferID)
	}
	if len(rec.BookingBody) > 0 {
		b = append(b, `,"bookingBody":`...)
		b = append(b, rec.BookingBody...)
	}
	if rec.BookingID != "" {
		b = appendField(b, "bookingId", rec.BookingID)
	}
	var err error
	if rec.ConfirmBy != nil {
		if b, err = appendTime(append(b, `,"confirmBy":`...), *rec.ConfirmBy); err != nil {
			return nil, err
		}
	}
	if rec.After != nil {
		// Rare and small: encoding/json is good enough here.
		after, err := marshal(rec.After)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"afterSales":`...), after...)
	}
	if r := rec.Reply; r != nil {
		body := r.Body
		if len(body) == 0 {
			body = json.RawMessage("null")
		}
		b = append(append(b, `,"reply":{"body":`...), body...)
		b = strconv.AppendInt(append(b, `,"status":`...), int64(r.Status), 10)
		b = append(appendField(b, "outcome", r.Outcome), '}')
	}
	if b, err = appendTime(append(b, `,"created":`...), rec.Created); err != nil {
		return nil, err
	}
	if !rec.Updated.IsZero() {
		if b, err = appendTime(append(b, `,"updated":`...), rec.Updated); err != nil {
			return nil, err
		}
	}
	if rec.Attempts != 0 {
		b = strconv.AppendInt(append(b, `,"attempts":`...), int64(rec.Attempts), 10)
	}
	return append(b, '}'), nil
}

// appendField appends ,"name":"value" with value as a JSON string.
func appendField(b []byte, name, value string) []byte {
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	return appendJSONString(b, value)
}

// appendTime appends t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, in quotes).
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("journal record: time %v out of range", t)
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it without HTML escaping: ", \, control characters, U+2028 and
// U+2029; bytes that are not UTF-8 become U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}

func decodeRecord(raw []byte) (*exchangeRecord, error) {
	rec := new(exchangeRecord)
	if err := json.Unmarshal(raw, rec); err != nil {
		return nil, fmt.Errorf("journal record unreadable: %w", err)
	}
	if rec.V != 1 || rec.MessageID == "" {
		return nil, errors.New("journal record of an unknown version")
	}
	return rec, nil
}

// setReply keeps res in the record.
func (rec *exchangeRecord) setReply(res *Result) error {
	body, err := legacy.Encode(legacy.JSON, res.Reply)
	if err != nil {
		return err
	}
	rec.Reply = &storedReply{Body: body, Status: res.Status, Outcome: res.Outcome}
	return nil
}

// result is the kept reply as a Result, in the request's XML form.
func (rec *exchangeRecord) result() (*Result, error) {
	if rec.Reply == nil {
		return nil, errors.New("no reply kept")
	}
	reply, err := legacy.DecodeReply(legacy.JSON, rec.Reply.Body)
	if err != nil {
		return nil, err
	}
	return &Result{Reply: legacy.WithNamespace(reply, rec.Namespaced), Status: rec.Reply.Status, Outcome: rec.Reply.Outcome}, nil
}

// States of an after-sales record (a CancelRequest, a SynchroRequest with
// rollback) between its steps.
const (
	// stateRefundOffered: the partner made the refund offer
	// afterSales.RefundOfferID; PATCH CONFIRMED was not sent.
	stateRefundOffered = "refund_offered"
	// stateRefundConfirming: PATCH CONFIRMED is about to be sent, or was
	// sent without a clear answer.
	stateRefundConfirming = "refund_confirming"
	// stateExchangePrebooked: the partner made the exchange operation
	// afterSales.ExchangeOperationID; the confirming fulfilment was not
	// sent.
	stateExchangePrebooked = "exchange_prebooked"
	// stateExchangeConfirming: the confirming fulfilment is about to be
	// sent, or was sent without a clear answer.
	stateExchangeConfirming = "exchange_confirming"
)

// pendingState reports the states settlement looks at.
func pendingState(st string) bool {
	switch st {
	case stateIntent, stateBooked, stateUnsettled, stateRefundOffered, stateRefundConfirming, stateExchangePrebooked, stateExchangeConfirming:
		return true
	}
	return false
}

// afterSales is the progress of an after-sales message, kept in its
// record so that a resend or settlement continues where it stopped, and
// on a booking's record what undid it.
type afterSales struct {
	// RefundOfferID is the refund offer made for the cancellation.
	RefundOfferID string `json:"refundOfferId,omitempty"`
	// Status is the CancelReply status the refund answers.
	Status string `json:"status,omitempty"`
	// Places are the places the refund cancels, for the reply.
	Places []legacy.Place `json:"places,omitempty"`
	// Original is, on a rollback's record, the messageId of the booking
	// rolled back.
	Original string `json:"original,omitempty"`
	// RolledBack is set, on a booking's record, once a SynchroRequest
	// undid the booking.
	RolledBack *rolledBack `json:"rolledBack,omitempty"`
	// ExchangeOf is the booking an exchange replaces (a BookingRequest
	// with ExchangeOf), ExchangeOperationID its operation once made, and
	// Exchange what it costs, for the reply.
	ExchangeOf          string           `json:"exchangeOf,omitempty"`
	ExchangeOperationID string           `json:"exchangeOperationId,omitempty"`
	Exchange            *legacy.Exchange `json:"exchange,omitempty"`
}

// rolledBack says which SynchroRequest undid a booking and what it
// refunded (nothing when the booking was only provisional).
type rolledBack struct {
	By           string        `json:"by"`
	RefundAmount *legacy.Price `json:"refundAmount,omitempty"`
	Fee          *legacy.Price `json:"fee,omitempty"`
}
