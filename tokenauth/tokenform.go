package tokenauth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// golang-jwt accepts two things in a token that RFC 7515 and RFC 7519 say
// must be refused, and both the login service and osdm_access refuse them
// before golang-jwt reads the token:
//
//   - a crit header parameter (RFC 7515 section 4.1.11): it lists
//     extensions the recipient must understand or reject the token; this
//     package understands none, so any crit is refused;
//   - exp, nbf or iat as a JSON string ("exp":"1795559849"): a NumericDate
//     is a JSON number (RFC 7519 section 2), but golang-jwt decodes it
//     through json.Number, which takes digits in a string too.

// numericDateClaims are the claims that hold a NumericDate.
var numericDateClaims = []string{"exp", "nbf", "iat"}

// TokenFormError is a token that golang-jwt would read but that the RFCs
// say must be refused: a crit header or a NumericDate claim in a JSON
// string.
type TokenFormError struct {
	// Name is the header parameter or claim at fault.
	Name string
	// Rule says what is wrong, for the refusal text.
	Rule string
}

// Error implements error.
func (e *TokenFormError) Error() string { return e.Rule }

// checkTokenForm returns a *TokenFormError for a JWS in compact form whose
// header has a crit parameter or whose claims have exp, nbf or iat as a
// JSON string. Like checkTokenClaimNames it scans the decoded bytes
// without a JSON decode; a token that is not three base64url parts passes
// here and golang-jwt refuses it.
func checkTokenForm(token string) *TokenFormError {
	header, rest, ok := strings.Cut(token, ".")
	if !ok {
		return nil
	}
	payload, _, ok := strings.Cut(rest, ".")
	if !ok {
		return nil
	}
	var buf [1024]byte
	if h := decodeJWSSegment(buf[:0], header); h != nil {
		crit := false
		walkTopLevel(h, func(key, _ []byte) bool {
			crit = string(key) == "crit"
			return !crit
		})
		if crit {
			return &TokenFormError{Name: "crit", Rule: "the token header has a crit parameter; no JWS extension is understood here, so the token is refused (RFC 7515 section 4.1.11)"}
		}
	}
	c := decodeJWSSegment(buf[:0], payload)
	if c == nil {
		return nil
	}
	var bad string
	walkTopLevel(c, func(key, value []byte) bool {
		if len(value) > 0 && value[0] == '"' {
			for _, n := range numericDateClaims {
				if string(key) == n {
					bad = n
					return false
				}
			}
		}
		return true
	})
	if bad != "" {
		return &TokenFormError{Name: bad, Rule: "claim " + bad + " is a JSON string; a NumericDate is a JSON number of seconds (RFC 7519 section 2)"}
	}
	return nil
}

// decodeJWSSegment decodes a base64url segment into buf (or a larger
// buffer); nil when it is not base64url.
func decodeJWSSegment(buf []byte, seg string) []byte {
	if n := base64.RawURLEncoding.DecodedLen(len(seg)); n > cap(buf) {
		buf = make([]byte, 0, n)
	}
	out, err := base64.RawURLEncoding.AppendDecode(buf, []byte(seg))
	if err != nil {
		return nil
	}
	return out
}

// walkTopLevel calls fn with each top-level key of the JSON object obj
// (unescaped) and the start of its value (from its first byte on), until
// fn returns false. It scans the bytes without decoding them; on JSON
// that is not valid it stops early or calls fn with odd values, which is
// harmless: golang-jwt then refuses the token anyway.
func walkTopLevel(obj []byte, fn func(key, value []byte) bool) {
	depth, wantKey := 0, false
	for i := 0; i < len(obj); i++ {
		switch obj[i] {
		case '{':
			depth++
			wantKey = depth == 1
		case '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			wantKey = depth == 1
		case '"':
			end := closingQuote(obj, i+1)
			if end < 0 {
				return
			}
			if wantKey {
				wantKey = false
				key := obj[i+1 : end]
				if bytes.IndexByte(key, '\\') >= 0 {
					var s string
					if json.Unmarshal(bytes.Clone(obj[i:end+1]), &s) != nil {
						return
					}
					key = []byte(s)
				}
				v := end + 1
				for v < len(obj) && (obj[v] == ' ' || obj[v] == '\t' || obj[v] == '\n' || obj[v] == '\r' || obj[v] == ':') {
					v++
				}
				if !fn(key, obj[v:]) {
					return
				}
			}
			i = end
		}
	}
}
