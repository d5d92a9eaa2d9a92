package converter

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

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

func (rec *exchangeRecord) encode() ([]byte, error) { return json.Marshal(rec) }

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
	setNamespaced(reply, rec.Namespaced)
	return &Result{Reply: reply, Status: rec.Reply.Status, Outcome: rec.Reply.Outcome}, nil
}

// setNamespaced restores the XML form of a reply read back from JSON.
func setNamespaced(r legacy.Reply, ns bool) {
	switch r := r.(type) {
	case *legacy.AvailabilityReply:
		r.Header.Namespaced = ns
	case *legacy.BookingReply:
		r.Header.Namespaced = ns
	case *legacy.CancelReply:
		r.Header.Namespaced = ns
	case *legacy.ReplacementProposal:
		r.Header.Namespaced = ns
	case *legacy.NegativeReply:
		r.Header.Namespaced = ns
	}
}
