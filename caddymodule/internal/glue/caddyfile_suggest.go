package glue

import (
	"strconv"
	"strings"
)

// Every module's Caddyfile parser answers an unknown name with the
// closest known one, so that a typo ("tarif", "adulte") says what was
// meant rather than only that it is wrong.

// DidYouMean is `; did you mean "x"?` for the name among known closest to
// name (Levenshtein distance, case-insensitive) when it is close enough
// to be a typo: at most 2 edits, and fewer than half of name's letters.
// "" when none is.
func DidYouMean(name string, known []string) string {
	best, bestDist := "", -1
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if bestDist < 0 || d < bestDist {
			best, bestDist = k, d
		}
	}
	if bestDist < 0 || bestDist > 2 || 2*bestDist >= len(name) {
		return ""
	}
	return "; did you mean " + strconv.Quote(best) + "?"
}

// UnknownSubdirective is the error text of an unrecognized subdirective:
// its name, the closest known one, and the list of known ones.
func UnknownSubdirective(what, name string, known []string) string {
	if hint := DidYouMean(name, known); hint != "" {
		return "unrecognized " + what + " " + strconv.Quote(name) + hint
	}
	return "unrecognized " + what + " " + strconv.Quote(name) + " (known: " + strings.Join(known, ", ") + ")"
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Known subdirectives of each module, for the suggestion.
var (
	ConvertSubdirectives = []string{"partner", "offer_search", "tariff", "reason", "path", "path_prefix", "time_zone", "timeout", "max_body", "reply_cache",
		"store", "settle_interval"}
	TokenSubdirectives = []string{"token_url", "key_file", "kid", "issuer", "subject", "audience", "alg", "scope", "grant", "header",
		"lifetime", "refresh_ahead", "default_expires_in", "max_replay_body", "partner", "login_timeout",
		"tls_trusted_ca_certs", "tls_trust_pool", "tls_client_auth", "tls_server_name", "tls_insecure_skip_verify", "tls_timeout",
		"tls_curves", "tls_renegotiation"}
	LoginSubdirectives = []string{"signing_key_file", "signing_alg", "signing_kid", "issuer", "audience", "access_audience",
		"token_lifetime", "clock_skew", "max_assertion_lifetime", "replay_store", "client"}
	LoginClientSubdirectives = []string{"alg", "key", "scope", "issuer"}
	AccessSubdirectives      = []string{"key_file", "issuer", "audience", "scope", "header", "clock_skew"}
	SandboxSubdirectives     = []string{"capacity", "max_entries", "offer_ttl", "booking_ttl", "retention", "operator", "external_inventory", "train", "unknown_train"}
	OsdmLegacySubdirectives  = []string{"partner", "timetable", "search", "max_trains", "window", "booking_horizon", "concurrency", "tariff", "reason",
		"refund_fee", "exchange_fee", "offer_ttl", "hold", "timeout", "max_body", "services", "legacy_format", "legacy_path", "time_zone",
		"settle_interval", "store"}
	LegacySandboxSubdirectives = []string{"system", "capacity", "max_entries", "latency", "offer_ttl", "retention", "timetable",
		"foreign", "tariff", "fare", "currency", "cancel_fee", "max_body"}
)
