package provider

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
)

func init() {
	glue.RegisterHandler[Access]("osdm_access")
}

// accessSubdirectives are the subdirectives of osdm_access, offered when a
// name is mistyped.
var accessSubdirectives = []string{"key_file", "issuer", "audience", "scope", "header", "clock_skew"}

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
	at, err := glue.Directive(d, nil, func(name string) error {
		var err error
		switch name {
		case "key_file":
			if a.KeyFiles = d.RemainingArgs(); len(a.KeyFiles) == 0 {
				return d.ArgErr()
			}
		case "issuer":
			err = glue.OneArg(d, &a.Issuer)
		case "audience":
			err = glue.OneArg(d, &a.Audience)
		case "scope":
			if a.Scopes = d.RemainingArgs(); len(a.Scopes) == 0 {
				return d.ArgErr()
			}
		case "header":
			err = glue.OneArg(d, &a.Header)
		case "clock_skew":
			err = glue.PositiveDurationArg(d, name, &a.ClockSkew)
		default:
			return d.Err(glue.UnknownSubdirective("subdirective", name, accessSubdirectives))
		}
		return err
	})
	if err != nil {
		return err
	}
	// Validate now, so that the error names the Caddyfile and the
	// directive's line.
	return at.Err(a.Validate())
}
