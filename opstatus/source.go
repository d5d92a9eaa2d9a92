package opstatus

import "context"

// Source is a handler's state as settlement and booking look-ups see it:
// osdm_convert's journal, osdm_legacy's booking records.
type Source interface {
	// Pending lists the work settlement still has to do.
	Pending(ctx context.Context) ([]Pending, error)
	// Find returns the records known by ref (a booking id, a legacy
	// BookingRef or messageId); none is not an error.
	Find(ctx context.Context, ref string) ([]Record, error)
}

// PartnerSource describes a partner route's token or calls, as of now.
type PartnerSource interface {
	// Partner describes it; its Partner field names the partner, so that
	// the token and the calls of one route are shown together.
	Partner() Partner
}
