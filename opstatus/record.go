package opstatus

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Record is one booking's record, in either direction: what the journal
// or the booking records hold, with personal data masked.
type Record struct {
	// Direction is LegacyToOSDM or OSDMToLegacy.
	Direction string `json:"direction"`
	// Partner is the route's partner name.
	Partner string `json:"partner"`
	// Refs are the references it is known by: "booking" (the OSDM
	// booking id), "booking_ref" (the legacy BookingRef), "message"
	// (legacy messageIds).
	Refs map[string][]string `json:"refs"`
	// State is the booking's or the exchange's state.
	State string `json:"state"`
	// Passengers are the travellers' names, masked.
	Passengers []string `json:"passengers,omitempty"`
	// Steps are what happened, oldest first.
	Steps []Step `json:"steps,omitempty"`
}

// Step is one thing that happened to a booking.
type Step struct {
	// At is when.
	At time.Time `json:"at,omitzero"`
	// What is the step: a legacy message kind, an OSDM operation.
	What string `json:"what"`
	// Outcome is how it ended, or "pending".
	Outcome string `json:"outcome,omitempty"`
}

// MaskName masks a person's name for the operator's view: the first
// letter of each word, the rest as asterisks ("Anna Müller" -> "A*** M*****").
func MaskName(name string) string {
	words := strings.Fields(name)
	for i, w := range words {
		r, size := utf8.DecodeRuneInString(w)
		words[i] = string(r) + strings.Repeat("*", utf8.RuneCountInString(w[size:]))
	}
	return strings.Join(words, " ")
}
