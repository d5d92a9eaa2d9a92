package modulekit

import "net/http"

// RequestTarget is r's path as the client escaped it, with its query if
// any: the path an OSDM provider's domain entry (osdmlegacy's and
// osdmsandbox's ServeClient) routes on and reads the query of.
func RequestTarget(r *http.Request) string {
	target := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	return target
}
