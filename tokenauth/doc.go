// Package tokenauth implements OSDM token authentication without any Caddy
// dependency: identity tokens (RFC 7523 JWT assertions) signed with a
// railway's private key, the token request to a partner's login service and
// a cache of the access tokens it returns (consumer side), and the
// validation of identity tokens, issuing of access tokens and replay
// protection of a login service (provider side).
package tokenauth
