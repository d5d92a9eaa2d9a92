package providerauth

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

func init() {
	modulekit.RegisterHandler[Access]("osdm_access")
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	osdm_access {
//		key_file   <public key PEM> [<public key PEM>...]
//		issuer     <issuer>
//		audience   <aud>          # required: tokens without it in aud are refused
//		scope      <scope> [<scope>...]
//		header     <header name>
//		clock_skew <duration>
//	}
//
// Without key_file, issuer names the osdm_login of this configuration
// whose signing key verifies the tokens.
func (a *Access) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	subs := modulekit.Table{Subs: []modulekit.Sub{
		modulekit.Values("key_file", &a.KeyFiles), modulekit.String("issuer", &a.Issuer), modulekit.String("audience", &a.Audience),
		modulekit.Values("scope", &a.Scopes), modulekit.String("header", &a.Header), modulekit.Duration("clock_skew", &a.ClockSkew),
	}}
	return subs.Unmarshal(d, a.Validate)
}
