package providerauth

// The handlers reach the osdm app with ctx.App("osdm"): it must be
// registered, as the module's root package registers it for xcaddy.
import _ "github.com/caddy-osdm/caddy-osdm/caddymodule/app"
