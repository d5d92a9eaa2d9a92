package osdmlegacy

import "context"

// anonymousClient is the owner of what a call without a client makes:
// without osdm_access in front there is no client, and every caller is
// this one owner (they all see each other's bookings, as before
// bookings had owners).
const anonymousClient = ""

// clientKey is the context key of the client a call is made by.
type clientKey struct{}

// withClient returns ctx carrying the client a call is made by: every
// booking the call reads or changes must be that client's (loadBooking).
// Background work (settling, the sweeper) carries none and reaches every
// booking.
func withClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// callerOf returns the client ctx's call is made by; ok is false for
// background work.
func callerOf(ctx context.Context) (client string, ok bool) {
	client, ok = ctx.Value(clientKey{}).(string)
	return client, ok
}

// visibleTo reports whether a call in ctx may see a record made by
// owner (a booking's or a journey's Client): background work sees every
// record, a call only its own client's. Any other is answered as an
// unknown id.
func visibleTo(ctx context.Context, owner string) bool {
	client, ok := callerOf(ctx)
	return !ok || owner == client
}
