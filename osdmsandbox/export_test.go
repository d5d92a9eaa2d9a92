package osdmsandbox

import "github.com/caddy-osdm/caddy-osdm/osdm"

// InSpec reports whether method and path (without prefix or query) name
// an operation of the spec, for the tests' validation.
func InSpec(method, path string) bool {
	_, ok := osdm.LookupSpec(method, path)
	return ok
}
