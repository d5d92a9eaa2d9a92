package consumer

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalCaddyfile sets up the transport from Caddyfile tokens: those of
// reverse_proxy's http transport, whose block it takes whole. Syntax:
//
//	reverse_proxy <upstreams...> {
//		transport osdm {
//			# any subdirective of `transport http`, e.g.
//			tls
//			tls_trusted_ca_certs <pem_files...>
//			versions 1.1 2
//			dial_timeout <duration>
//		}
//	}
//
// `transport osdm` without a block is the http transport's defaults. An
// argument after osdm is refused (the http transport's parser would drop
// it, and the block after it with it).
func (t *Transport) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the transport's name
	if d.NextArg() && d.Val() != "{" {
		return d.ArgErr()
	}
	d.Reset()
	return t.HTTPTransport.UnmarshalCaddyfile(d)
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Transport)(nil)
