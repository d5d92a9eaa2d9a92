package provider

import (
	"fmt"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("osdm_access", parseAccessCaddyfile)
}

func parseAccessCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	a := new(Access)
	err := a.UnmarshalCaddyfile(h.Dispenser)
	return a, err
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
	d.Next() // the directive name
	file, line := d.File(), d.Line()
	if d.NextArg() {
		return d.ArgErr()
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		if seen[name] {
			return d.Errf("%s already specified", name)
		}
		seen[name] = true
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
			return d.Err(glue.UnknownSubdirective("subdirective", name, glue.AccessSubdirectives))
		}
		if err != nil {
			return err
		}
	}
	// Validate now, so that the error names the Caddyfile and the
	// directive's line.
	if err := a.Validate(); err != nil {
		return fmt.Errorf("osdm_access: %v, at %s:%d", err, file, line)
	}
	return nil
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Access)(nil)
