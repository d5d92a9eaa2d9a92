package ticketpdf

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// maxFieldRunes bounds what is kept of one field before it is measured:
// more than a page could show, so the cut below is still visible, and a
// field of megabytes costs no more than one of a few hundred characters.
const maxFieldRunes = 600

// ellipsis marks text cut to fit.
const ellipsis = "…"

// clean makes s printable with the embedded font: composed (NFC, so that
// a letter followed by a combining accent is the accented letter the font
// has), control characters (line breaks, tabs) become spaces, invisible
// format characters (direction marks, zero-width joiners) are left out,
// runs of spaces are one, and any character the font has no glyph for is
// "?", so that nothing is lost without a trace.
func clean(s string) string {
	cutShort := false
	if len(s) > 4*maxFieldRunes {
		// NFC of a huge field costs; what is left out is marked below.
		s, cutShort = s[:4*maxFieldRunes], true
	}
	s = norm.NFC.String(s)
	cov := fontCoverage()
	var b strings.Builder
	n := 0
	space := true // at the start: leading spaces are dropped
	for _, r := range s {
		if unicode.Is(unicode.Cf, r) || (space && (unicode.IsControl(r) || unicode.IsSpace(r))) {
			continue
		}
		if n == maxFieldRunes {
			cutShort = true
			break
		}
		n++
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			b.WriteByte(' ')
			space = true
			continue
		}
		if !cov.has(r) {
			r = '?'
		}
		b.WriteRune(r)
		space = false
	}
	out := strings.TrimRight(b.String(), " ")
	if cutShort {
		out += ellipsis
	}
	return out
}

// measurer gives the printed width of a string in the current font.
type measurer interface {
	GetStringWidth(s string) float64
}

// fit breaks s (cleaned) into at most maxLines lines of width w: at
// spaces where it can, inside a word where it must; text that does not
// fit ends the last line with "…".
func fit(m measurer, s string, w float64, maxLines int) []string {
	if s == "" {
		return nil
	}
	var lines []string
	rest := []rune(s)
	for len(rest) > 0 {
		if len(lines) == maxLines-1 {
			lines = append(lines, cut(m, string(rest), w))
			break
		}
		n := fitRunes(m, rest, w)
		if n < len(rest) {
			// Break at the last space that fits, if there is one.
			for i := n; i > 0; i-- {
				if rest[i] == ' ' {
					n = i
					break
				}
			}
		}
		lines = append(lines, strings.TrimRight(string(rest[:n]), " "))
		rest = rest[n:]
		for len(rest) > 0 && rest[0] == ' ' {
			rest = rest[1:]
		}
	}
	return lines
}

// fitRunes is how many runes of r fit in w, at least one.
func fitRunes(m measurer, r []rune, w float64) int {
	if m.GetStringWidth(string(r)) <= w {
		return len(r)
	}
	lo, hi := 1, len(r) // r[:lo] is taken to fit, r[:hi] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if m.GetStringWidth(string(r[:mid])) <= w {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// cut is s if it fits in w, else its longest start that fits with "…".
func cut(m measurer, s string, w float64) string {
	if m.GetStringWidth(s) <= w {
		return s
	}
	r := []rune(s)
	n := fitRunes(m, r, w-m.GetStringWidth(ellipsis))
	return strings.TrimRight(string(r[:n]), " ") + ellipsis
}
