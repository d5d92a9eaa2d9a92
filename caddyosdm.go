// Package caddyosdm is the module xcaddy builds into Caddy: importing it
// registers the osdm_convert, osdm_token, osdm_login, osdm_access,
// osdm_legacy, osdm_sandbox and legacy_sandbox handlers, the
// reverse_proxy transport osdm, the osdm-keygen and osdm-token commands,
// and the osdm app that holds the handlers' stores and runs their
// background work.
//
//	xcaddy build --with github.com/caddy-osdm/caddy-osdm
package caddyosdm

import (
	// The order of the directives in a route.
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule"
	// The Caddy modules, one package a role.
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/app"
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/consumer"
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/legacyprovider"
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/providerauth"
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule/sandbox"
)
