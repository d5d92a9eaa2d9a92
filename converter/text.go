package converter

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// plain makes partner-supplied text fit a legacy reply: valid UTF-8, no
// control characters (XML cannot carry most of them, and a line break
// could forge log lines), runs of space folded to one, at most max
// characters (cut text ends in "...").
func plain(s string, max int) string {
	if isPlain(s, max) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), 4*max))
	n, cut := 0, 0 // characters written; byte length at max-3 characters
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) || r == 0xFFFE || r == 0xFFFF {
			space = n > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if n+need > max {
			return strings.TrimRight(b.String()[:cut], " ") + "..."
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
			if n <= max-3 {
				cut = b.Len()
			}
		}
		b.WriteRune(r)
		n++
		if n <= max-3 {
			cut = b.Len()
		}
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII of at most max bytes with
// no leading, trailing or double space: plain leaves such text as it is.
func isPlain(s string, max int) bool {
	if len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < ' ' || c > '~' || (c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' ')) {
			return false
		}
	}
	return true
}
