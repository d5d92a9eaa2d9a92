package ticketpdf

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"  Zoë\tÅngström\r\n  ", "Zoë Ångström"},
		{"Ame\u0301lie", "Amélie"},                         // composed
		{"a\u200eb\u200dc\ufeff", "abc"},                   // format characters left out
		{"北京 Beijing", "?? Beijing"},                       // no glyph: shown as ?
		{"\x00\x1b[31mred", "[31mred"},                     // control characters
		{"😀 smile", "? smile"},                             // outside the BMP
		{string([]byte{0xff, 0xfe, 'x'}), "\ufffd\ufffdx"}, // invalid UTF-8: the font has U+FFFD
	} {
		if got := clean(c.in); got != c.want {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := clean(strings.Repeat("ab ", 10000))
	if n := utf8.RuneCountInString(long); n > maxFieldRunes+1 || !strings.HasSuffix(long, ellipsis) {
		t.Errorf("a long field is %d runes, ends %q", n, long[len(long)-8:])
	}
	if exact := strings.Repeat("a", maxFieldRunes); clean(exact) != exact {
		t.Error("a field of exactly maxFieldRunes is cut")
	}
}
