package modulekit

import (
	"net/http"

	"github.com/caddyserver/caddy/v2"
)

// ClientPlaceholder is the placeholder osdm_access sets to the client (the
// access token's subject) a request is made by.
const ClientPlaceholder = "osdm.client"

// Client returns the client osdm_access let r through for, "" when no
// osdm_access ran before (the providers' anonymous owner).
func Client(r *http.Request) string {
	repl, ok := r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer)
	if !ok {
		return ""
	}
	v, _ := repl.Get(ClientPlaceholder)
	s, _ := v.(string)
	return s
}
