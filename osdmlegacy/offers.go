package osdmlegacy

import "sync/atomic"

// offers serves offer searches (POST /offers) and signs and opens the offer ids that carry each offer.
type offers struct {
	*core
	// tt finds the trains of a search that names none; nil when no timetable is configured.
	tt Timetable

	// signer signs the offer ids under the last offer key read
	// (offer_id.go), nil until the key is first read.
	signer atomic.Pointer[offerSigner]
}
