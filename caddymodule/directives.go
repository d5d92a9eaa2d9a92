package caddymodule

import "github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

// The directives are ordered here, in one place, because each position is
// relative to the ones registered before it: a route holding osdm_convert,
// osdm_token and reverse_proxy runs them in that order whatever order they
// are written in, and osdm_access runs with the other authentication
// handlers, before anything that answers the request.
func init() {
	httpcaddyfile.RegisterDirectiveOrder("osdm_access", httpcaddyfile.After, "basic_auth")
	httpcaddyfile.RegisterDirectiveOrder("osdm_login", httpcaddyfile.Before, "respond")
	httpcaddyfile.RegisterDirectiveOrder("osdm_convert", httpcaddyfile.Before, "reverse_proxy")
	httpcaddyfile.RegisterDirectiveOrder("osdm_token", httpcaddyfile.Before, "reverse_proxy")
	httpcaddyfile.RegisterDirectiveOrder("osdm_sandbox", httpcaddyfile.After, "reverse_proxy")
	// osdm_legacy answers OSDM calls itself and sends legacy messages
	// through reverse_proxy: after osdm_access (and uri), right before it.
	httpcaddyfile.RegisterDirectiveOrder("osdm_legacy", httpcaddyfile.Before, "reverse_proxy")
	httpcaddyfile.RegisterDirectiveOrder("legacy_sandbox", httpcaddyfile.After, "reverse_proxy")
}
