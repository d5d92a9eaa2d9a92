// Package caddyosdm is the module xcaddy builds into Caddy: importing it
// registers the osdm_convert, osdm_token, osdm_login, osdm_access and
// osdm_sandbox handlers, and the osdm app that holds their stores and runs
// their background work.
//
//	xcaddy build --with github.com/caddy-osdm/caddy-osdm
package caddyosdm

import (
	// The Caddy modules and directives.
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule"
	// The osdm app: the stores and background work of the handlers.
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/app"
)
