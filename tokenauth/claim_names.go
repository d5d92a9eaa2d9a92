package tokenauth

import (
	"bytes"
	"fmt"
)

// Claim names are case-sensitive (RFC 7519 section 4), but encoding/json,
// which golang-jwt decodes claims with, matches an object key to a struct
// field case-insensitively (bytes.EqualFold, so "ſub" too). Without a
// check, a token carrying "Aud" or "eXp" would count here as having the
// aud or exp that a strict reader of the same token does not see. Both
// the login service and osdm_access refuse such a token.

// identityClaimNames are the claims the login service reads from an
// identity token.
var identityClaimNames = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "scope"}

// accessClaimNames are the claims osdm_access reads from an access token.
var accessClaimNames = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "scope", "client_id"}

// ClaimNameCaseError is a token whose claims object has a key that is a
// claim name this package reads, written in another case ("Aud" for aud).
type ClaimNameCaseError struct {
	// Key is the key as the token has it.
	Key string
	// Claim is the claim name it folds to.
	Claim string
}

// Error implements error; it quotes the key shortened and escaped.
func (e *ClaimNameCaseError) Error() string {
	return fmt.Sprintf("claim %s is not %q: claim names are case-sensitive (RFC 7519)", quoteInput(e.Key), e.Claim)
}

// checkTokenClaimNames applies checkClaimNames to the claims of a JWS in
// compact form, decoded as golang-jwt's default parser decodes them, before
// golang-jwt does. It costs well under a microsecond and no allocation for
// a token of usual size (BenchmarkCheckTokenClaimNames), where a second
// JSON decode of the claims (an UnmarshalJSON method, a map) would cost
// microseconds on osdm_access's hot path. A token that is not three parts,
// or whose claims are not base64url, passes here; golang-jwt refuses it.
func checkTokenClaimNames(token string, names []string) *ClaimNameCaseError {
	_, payload, ok := jwsSegments(token)
	if !ok {
		return nil
	}
	var buf [1024]byte
	claims := decodeJWSSegment(buf[:0], payload)
	if claims == nil {
		return nil
	}
	return checkClaimNames(claims, names)
}

// checkClaimNames returns a *ClaimNameCaseError for the first top-level
// key of the JSON object claims that is one of names except for case. It
// scans the bytes without decoding them (topLevelKeys); on JSON that is
// not valid it stops or finds nothing, and golang-jwt's decoding then
// refuses it.
func checkClaimNames(claims []byte, names []string) *ClaimNameCaseError {
	for keys := (topLevelKeys{obj: claims}); ; {
		key, _, ok := keys.next()
		if !ok {
			return nil
		}
		if claim := foldedClaim(key, names); claim != "" {
			return &ClaimNameCaseError{Key: string(key), Claim: claim}
		}
	}
}

// closingQuote is the index of the quote that ends the JSON string whose
// content starts at from, or -1.
func closingQuote(b []byte, from int) int {
	for i := from; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		q += i
		backslashes := 0
		for j := q - 1; j >= from && b[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q
		}
		i = q + 1
	}
	return -1
}

// foldedClaim is the name among names that key equals except for case, or
// "" when key is exactly one of them or none.
func foldedClaim(key []byte, names []string) string {
	for _, n := range names {
		if string(key) == n {
			return ""
		}
	}
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return n
		}
	}
	return ""
}
