package consumer

import (
	"fmt"

	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

// An osdm_token without partner takes, when the Caddyfile is adapted, the
// partner of the osdm_convert before it in the same block (the same
// route, handle or site block): their metrics and log lines then carry
// the same label, and two partners whose login services share a host are
// told apart. An osdm_token without partner written before the
// osdm_convert of its block is an error (the adapter has turned it into
// JSON by then): put osdm_convert first, as the route runs it, or name
// the partner. It is filled in at parse time, into the
// JSON the adapter prints, so that no handler reads or changes another
// after provisioning; a JSON configuration sets partner itself (default:
// the host of token_url). The link uses Caddy's BlockState, which sibling
// directives of one block share and nested blocks do not pass back up.

// routePartnerKey is the BlockState key of the block's routePartner.
const routePartnerKey = "osdm.route_partner"

// routePartner is what one block's osdm_convert and osdm_token tell each
// other at parse time.
type routePartner struct {
	// block identifies the BlockState map it was made for: a nested
	// block starts with a copy of its parent's entries, and must not use
	// its parent's value.
	block string
	// partner is the osdm_convert's partner, once parsed.
	partner string
	// waiting are the places (file:line) of the osdm_token handlers
	// without partner parsed before any osdm_convert of the block.
	waiting []string
}

// routePartnerOf returns the routePartner of h's block, made on first
// use; nil when the helper has no block state (a handler parsed on its
// own, as in unit tests).
func routePartnerOf(h httpcaddyfile.Helper) *routePartner {
	if h.BlockState == nil {
		return nil
	}
	block := fmt.Sprintf("%p", h.BlockState)
	if rp, ok := h.BlockState[routePartnerKey].(*routePartner); ok && rp.block == block {
		return rp
	}
	rp := &routePartner{block: block}
	h.BlockState[routePartnerKey] = rp
	return rp
}

// convertParsed records the partner of an osdm_convert, for the
// osdm_token handlers after it in the block.
func (rp *routePartner) convertParsed(h httpcaddyfile.Helper, partner string) error {
	if rp == nil {
		return nil
	}
	if len(rp.waiting) > 0 {
		return h.Errf("osdm_token at %s has no partner and comes before this osdm_convert (partner %q): put osdm_convert first or set partner in osdm_token",
			rp.waiting[0], partner)
	}
	if rp.partner != "" && rp.partner != partner {
		rp.partner = "" // ambiguous: later osdm_token handlers keep their default
		return nil
	}
	rp.partner = partner
	return nil
}

// tokenParsed gives an osdm_token without partner the partner of the
// osdm_convert before it in the block, or notes that it has none yet.
func (rp *routePartner) tokenParsed(file string, line int, t *Token) {
	if rp == nil || t.Partner != "" {
		return
	}
	if rp.partner != "" {
		t.Partner = rp.partner
		return
	}
	rp.waiting = append(rp.waiting, fmt.Sprintf("%s:%d", file, line))
}
