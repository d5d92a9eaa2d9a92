package tokenauth

import "regexp"

// tokenLike matches what may be a token a partner echoes in a text it
// answers: anything shaped like a compact JWS (three base64url parts,
// the last possibly empty or cut), the first two parts of one (a JWS
// header always starts with eyJ, the base64url of `{"`), and the word
// Bearer with what follows it, whatever its form (an opaque token of at
// least 16 characters, so that "Bearer authentication" stays).
var tokenLike = regexp.MustCompile(`[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*|eyJ[A-Za-z0-9_-]{5,}(\.[A-Za-z0-9_-]*)?|(?i:bearer)[\s:=]+[A-Za-z0-9._~+/=-]{16,}`)

// RedactTokens returns s with every token-like part (see tokenLike)
// replaced by [redacted]: a login service or a partner quoting our
// identity or access token in an error text, which we log and pass on,
// cannot smuggle it out that way.
func RedactTokens(s string) string {
	return tokenLike.ReplaceAllString(s, "[redacted]")
}
