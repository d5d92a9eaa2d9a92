package ticketpdf

import (
	"errors"
	"fmt"
	"image"
	"image/color"

	"codeberg.org/go-pdf/fpdf"
	"github.com/boombuler/barcode/aztec"
)

// MaxCodeBytes bounds the control number and the booking code together:
// an Aztec code of that much data still reads from a phone screen or an
// A4 print. Real ones are a few dozen bytes.
const MaxCodeBytes = 256

// ErrCodeTooLong is the error Render returns, wrapped, when the control
// number and booking code are more than MaxCodeBytes together: the code
// would have to leave part out, and a ticket is never printed with a code
// that says less than its text.
var ErrCodeTooLong = errors.New("control number and booking code too long for the Aztec code")

// Payload is what the Aztec code of a ticket holds: "CN:" and the control
// number, a line feed, "BC:" and the booking code (a part left out when
// it is empty). A checker's scanner reads both from it.
func Payload(controlNumber, bookingCode string) string {
	var s string
	if controlNumber != "" {
		s = "CN:" + controlNumber
	}
	if bookingCode != "" {
		if s != "" {
			s += "\n"
		}
		s += "BC:" + bookingCode
	}
	return s
}

// codePayload is Payload, refused when too long.
func codePayload(controlNumber, bookingCode string) (string, error) {
	if n := len(controlNumber) + len(bookingCode); n > MaxCodeBytes {
		return "", fmt.Errorf("ticketpdf: %w: %d bytes, at most %d", ErrCodeTooLong, n, MaxCodeBytes)
	}
	return Payload(controlNumber, bookingCode), nil
}

// aztecECC is the error correction asked of the encoder, in percent of
// the symbol: the encoder's recommended 33, enough for a creased print.
const aztecECC = 33

// drawAztec draws the Aztec code of payload as a square of side size at
// (x, y): each row's runs of dark modules are filled rectangles, so the
// code stays sharp at any zoom or print resolution. Nothing is drawn for
// an empty payload but a note.
func drawAztec(pdf *fpdf.Fpdf, payload string, x, y, size float64) {
	if payload == "" {
		pdf.SetXY(x, y+size/2)
		pdf.SetFont(familyText, "", 9)
		pdf.CellFormat(size, 5, "no code: no control number", "1", 0, "C", false, 0, "")
		return
	}
	code, err := aztec.Encode([]byte(payload), aztecECC, 0)
	if err != nil {
		// Within MaxCodeBytes the encoder has room; this would be its bug.
		pdf.SetError(fmt.Errorf("ticketpdf: encoding the Aztec code: %w", err))
		return
	}
	b := code.Bounds()
	modules := b.Dx()
	if modules == 0 || b.Dy() != modules {
		pdf.SetError(fmt.Errorf("ticketpdf: the Aztec encoder gave a %dx%d symbol", b.Dx(), b.Dy()))
		return
	}
	m := size / float64(modules)
	pdf.SetFillColor(0, 0, 0)
	for row := b.Min.Y; row < b.Max.Y; row++ {
		for col := b.Min.X; col < b.Max.X; {
			if !dark(code, col, row) {
				col++
				continue
			}
			start := col
			for col < b.Max.X && dark(code, col, row) {
				col++
			}
			pdf.Rect(x+float64(start-b.Min.X)*m, y+float64(row-b.Min.Y)*m, float64(col-start)*m, m, "F")
		}
	}
}

// dark reports whether the module at (x, y) is dark.
func dark(img image.Image, x, y int) bool {
	return color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y < 0x80
}

// Check reports whether Render can draw t: the one thing it refuses is a
// control number and booking code too long for the Aztec code
// (ErrCodeTooLong).
func Check(t *Ticket) error {
	_, err := codePayload(t.ControlNumber, t.BookingCode)
	return err
}
