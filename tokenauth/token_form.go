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
	header, payload, ok := jwsSegments(token)
	if !ok {
		return nil
	}
	var buf [1024]byte
	if h := decodeJWSSegment(buf[:0], header); h != nil {
		for keys := (topLevelKeys{obj: h}); ; {
			key, _, ok := keys.next()
			if !ok {
				break
			}
			if string(key) == "crit" {
				return &TokenFormError{Name: "crit", Rule: "the token header has a crit parameter; no JWS extension is understood here, so the token is refused (RFC 7515 section 4.1.11)"}
			}
		}
	}
	c := decodeJWSSegment(buf[:0], payload)
	if c == nil {
		return nil
	}
	for keys := (topLevelKeys{obj: c}); ; {
		key, value, ok := keys.next()
		if !ok {
			return nil
		}
		if len(value) == 0 || value[0] != '"' {
			continue
		}
		for _, n := range numericDateClaims {
			if string(key) == n {
				return &TokenFormError{Name: n, Rule: "claim " + n + " is a JSON string; a NumericDate is a JSON number of seconds (RFC 7519 section 2)"}
			}
		}
	}
}

// jwsSegments are the header and payload segments of a JWS in compact
// form, still base64url; !ok when token has fewer than three parts.
func jwsSegments(token string) (header, payload string, ok bool) {
	header, rest, ok := strings.Cut(token, ".")
	if !ok {
		return "", "", false
	}
	payload, _, ok = strings.Cut(rest, ".")
	return header, payload, ok
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

// topLevelKeys yields the top-level keys of the JSON object obj, each
// unescaped, with the start of its value (from its first byte on). It
// scans the bytes without decoding them; on JSON that is not valid it
// stops early or yields odd values, which is harmless: golang-jwt then
// refuses the token anyway. It is a scanner rather than a walk with a
// callback so that obj, passed to no function value, can stay on the
// caller's stack.
type topLevelKeys struct {
	obj     []byte
	i       int
	depth   int
	wantKey bool
}

// next returns the next top-level key and its value; ok is false at the
// end of obj or where the scan stops.
func (s *topLevelKeys) next() (key, value []byte, ok bool) {
	obj := s.obj
	for ; s.i < len(obj); s.i++ {
		switch obj[s.i] {
		case '{':
			s.depth++
			s.wantKey = s.depth == 1
		case '[':
			s.depth++
		case '}', ']':
			s.depth--
		case ',':
			s.wantKey = s.depth == 1
		case '"':
			end := closingQuote(obj, s.i+1)
			if end < 0 {
				s.i = len(obj)
				return nil, nil, false
			}
			if !s.wantKey {
				s.i = end
				continue
			}
			s.wantKey = false
			key := obj[s.i+1 : end]
			if bytes.IndexByte(key, '\\') >= 0 {
				// A copy, so that obj stays on the caller's stack.
				var k string
				if json.Unmarshal(bytes.Clone(obj[s.i:end+1]), &k) != nil {
					s.i = len(obj)
					return nil, nil, false
				}
				key = []byte(k)
			}
			v := end + 1
			for v < len(obj) && (obj[v] == ' ' || obj[v] == '\t' || obj[v] == '\n' || obj[v] == '\r' || obj[v] == ':') {
				v++
			}
			s.i = end + 1
			return key, obj[v:], true
		}
	}
	return nil, nil, false
}
