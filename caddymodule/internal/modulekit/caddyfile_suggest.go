package modulekit

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
