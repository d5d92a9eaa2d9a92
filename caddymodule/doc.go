// Package caddymodule is the Caddy glue of caddy-osdm: the module structs of
// osdm_convert, osdm_token, osdm_login, osdm_access and osdm_sandbox, their
// Caddyfile parsing, metrics and logging. The work itself is done by the
// Caddy-free packages converter and tokenauth.
package caddymodule
