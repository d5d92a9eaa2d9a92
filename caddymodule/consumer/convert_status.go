package consumer

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

// convertCalls counts a route's legacy exchanges and keeps its last
// partner failure, for the admin API (opstatus.PartnerSource).
type convertCalls struct {
	partner  string
	inFlight atomic.Int64
	total    atomic.Int64

	mu        sync.Mutex
	lastErr   string
	lastErrAt time.Time
}

// begin counts an exchange under way; end ends it with its result.
func (c *convertCalls) begin() { c.inFlight.Add(1) }

// end ends an exchange begun with begin, keeping its failure where the
// partner failed (not answering, too slow).
func (c *convertCalls) end(res *converter.Result, now time.Time) {
	c.inFlight.Add(-1)
	c.total.Add(1)
	switch res.Outcome {
	case "partner_unavailable", "partner_timeout":
		c.mu.Lock()
		c.lastErr, c.lastErrAt = res.Outcome+": "+negativeText(res.Reply), now
		c.mu.Unlock()
	}
}

// Partner implements opstatus.PartnerSource.
func (c *convertCalls) Partner() opstatus.Partner {
	c.mu.Lock()
	defer c.mu.Unlock()
	return opstatus.Partner{Partner: c.partner, Calls: &opstatus.Calls{
		InFlight: c.inFlight.Load(), Total: c.total.Load(), LastError: c.lastErr, LastErrorAt: c.lastErrAt,
	}}
}
