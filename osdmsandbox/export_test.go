package osdmsandbox

import "strings"

// InSpec reports whether method and path (without prefix or query) name
// an operation of the spec, for the tests' validation.
func InSpec(method, path string) bool {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	methods, _ := specMethods(segs)
	for _, m := range methods {
		if m == method {
			return true
		}
	}
	return false
}
