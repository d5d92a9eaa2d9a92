package osdmlegacy

import "context"

// searchOffers answers POST /offers.
func (f *Facade) searchOffers(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("POST /offers"))
}
