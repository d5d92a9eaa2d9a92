// Package caddymodule is the Caddy glue of caddy-osdm. This package holds
// the order of the module's directives in a route; the modules are in
// packages by role, registered by the import list of the module root:
//
//   - consumer: osdm_convert (legacy -> OSDM), osdm_token and the
//     reverse_proxy transport osdm (the consumer's authentication);
//   - providerauth: osdm_login and osdm_access (the provider's
//     authentication);
//   - legacyprovider: osdm_legacy (OSDM -> legacy);
//   - sandbox: osdm_sandbox and legacy_sandbox (the two partners in
//     memory);
//   - command: the caddy osdm-keygen, osdm-token and osdm-status
//     commands;
//   - app: the osdm app (apps.osdm), which holds the handlers' stores
//     (guest modules osdm.stores.bolt and osdm.stores.redis) and runs
//     their background work from its Start.
//
// What they share is under internal: the Caddyfile idiom and metrics
// helpers (modulekit), the handlers of one call through the route
// (subrequest), the store subdirective (storeconfig) and what a handler
// uses of the osdm app (appview), which it reaches with appview.For. The
// work itself is done by the Caddy-free packages converter, osdmlegacy,
// tokenauth, osdmsandbox and legacysandbox.
package caddymodule
