package converter

import (
	"context"

	"github.com/caddy-osdm/caddy-osdm/converter/legacy"
)

// Convert runs the OSDM calls req stands for through x, one after another,
// and returns the legacy reply. It never returns a nil Result: every
// failure is a NegativeReply. ctx bounds the whole sequence; the caller
// detaches it from the legacy client so a sequence always runs to a
// consistent end.
func (c *Converter) Convert(ctx context.Context, req legacy.Request, x Exchanger) *Result {
	h := legacy.ReplyTo(req, c.now())
	return negative(legacy.NewNegativeReply(h, legacy.CodeUnsupportedMessage, "not implemented yet"))
}
