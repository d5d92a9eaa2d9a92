// Package caddymodule is the Caddy glue of caddy-osdm: the module structs of
// osdm_convert, osdm_token, osdm_login, osdm_access, osdm_sandbox and the
// reverse_proxy transport osdm, their Caddyfile parsing, metrics and
// logging. The work itself is done by the Caddy-free packages converter,
// tokenauth and osdmsandbox.
package caddymodule
