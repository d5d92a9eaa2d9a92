package ticketpdf

import (
	"sync"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
)

// The font families the documents use: the Go fonts, regular and bold,
// embedded as subsets (fpdf keeps only the glyphs a document prints).
const (
	familyText = "go"
	styleBold  = "B"
)

// coverage is the set of runes of the Basic Multilingual Plane that both
// embedded fonts have a glyph for: one bit per rune.
type coverage [0x10000 / 64]uint64

// has reports whether r can be printed.
func (c *coverage) has(r rune) bool {
	return r >= 0 && r < 0x10000 && c[r/64]&(1<<(r%64)) != 0
}

// fontCoverage reads the fonts' character maps once.
var fontCoverage = sync.OnceValue(func() *coverage {
	regular, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		panic("ticketpdf: the embedded Go font does not parse: " + err.Error())
	}
	bold, err := sfnt.Parse(gobold.TTF)
	if err != nil {
		panic("ticketpdf: the embedded Go bold font does not parse: " + err.Error())
	}
	var b sfnt.Buffer
	c := new(coverage)
	for r := rune(0x20); r < 0x10000; r++ {
		if gi, err := regular.GlyphIndex(&b, r); err != nil || gi == 0 {
			continue
		}
		if gi, err := bold.GlyphIndex(&b, r); err != nil || gi == 0 {
			continue
		}
		c[r/64] |= 1 << (r % 64)
	}
	return c
})
