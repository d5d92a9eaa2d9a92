package harness

import "net/url"

// BearerForm is the form of a token request for an access token with
// an identity token, the assertion of the jwt-bearer grant (RFC 7523).
func BearerForm(assertion string) url.Values {
	return url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
}
