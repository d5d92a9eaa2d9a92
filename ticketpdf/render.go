package ticketpdf

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
)

// Page geometry, in millimetres on A4 portrait (210 x 297).
const (
	margin      = 15.0
	pageWidth   = 210.0
	pageHeight  = 297.0
	contentW    = pageWidth - 2*margin
	labelW      = 36.0 // the labels' column
	codeSize    = 46.0 // the Aztec code's side
	beside      = contentW - codeSize - 6 - labelW
	lineH       = 5.6
	bottomSpace = 22.0 // kept free at the foot of a page
)

// Producer and Creator of every document: fixed, so that bytes depend on
// the ticket alone.
const (
	producer = "caddy-osdm ticketpdf"
	creator  = "caddy-osdm"
)

// noDate is the PDF date of a ticket without IssuedOn: a fixed instant,
// never the time of rendering.
var noDate = time.Unix(0, 0).UTC()

// Render writes t as an A4 PDF. The same t always gives the same bytes.
// It fails only when the control number and booking code are more than
// an Aztec code can carry (MaxCodeBytes) or the PDF writer fails; text
// fields of any length and script are wrapped, cut or replaced to fit.
func Render(t *Ticket) ([]byte, error) {
	payload, err := codePayload(t.ControlNumber, t.BookingCode)
	if err != nil {
		return nil, err
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", SizeStr: "A4"})
	pdf.SetCatalogSort(true)
	issued := t.IssuedOn.UTC()
	if t.IssuedOn.IsZero() {
		issued = noDate
	}
	pdf.SetCreationDate(issued)
	pdf.SetModificationDate(issued)
	pdf.SetProducer(producer, false)
	pdf.SetCreator(creator, false)
	pdf.SetTitle(clean("Ticket "+t.BookingCode), true)
	pdf.SetSubject(subject(t), true)
	pdf.SetAuthor(clean(t.Operator), true)
	pdf.SetLang("en")
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(true, bottomSpace)
	pdf.AddUTF8FontFromBytes(familyText, "", goregular.TTF)
	pdf.AddUTF8FontFromBytes(familyText, styleBold, gobold.TTF)
	footer := footerText(t, issued)
	pdf.SetFooterFunc(func() {
		pdf.SetY(-bottomSpace + 6)
		pdf.SetFont(familyText, "", 7.5)
		pdf.SetTextColor(90, 90, 90)
		for _, l := range fit(pdf, footer, contentW, 2) {
			pdf.CellFormat(contentW, 3.8, l, "", 2, "L", false, 0, "")
		}
		pdf.CellFormat(contentW, 3.8, fmt.Sprintf("Page %d", pdf.PageNo()), "", 2, "R", false, 0, "")
	})
	pdf.AddPage()

	r := renderer{pdf: pdf}
	r.header(t)
	top := pdf.GetY()
	drawAztec(pdf, payload, pageWidth-margin-codeSize, top, codeSize)
	r.journey(t)
	if pdf.GetY() < top+codeSize+4 {
		pdf.SetY(top + codeSize + 4)
	}
	for i := range t.Legs {
		r.places(t, i)
	}
	r.references(t)

	var out bytes.Buffer
	if err := pdf.Output(&out); err != nil {
		return nil, fmt.Errorf("ticketpdf: writing the PDF: %w", err)
	}
	return out.Bytes(), nil
}

// renderer writes the parts of one document.
type renderer struct {
	pdf *fpdf.Fpdf
}

// header is the operator's name and the document's title, over a rule.
func (r *renderer) header(t *Ticket) {
	pdf := r.pdf
	pdf.SetTextColor(0, 0, 0)
	pdf.SetFont(familyText, styleBold, 15)
	for _, l := range fit(pdf, clean(t.Operator), contentW, 2) {
		pdf.CellFormat(contentW, 7, l, "", 2, "L", false, 0, "")
	}
	pdf.SetFont(familyText, "", 10)
	pdf.SetTextColor(70, 70, 70)
	pdf.CellFormat(contentW, 6, "Ticket: show this page, printed or on screen, with the Aztec code", "", 2, "L", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
	y := pdf.GetY() + 1.5
	pdf.SetLineWidth(0.4)
	pdf.Line(margin, y, pageWidth-margin, y)
	pdf.SetY(y + 4)
}

// journey is the date, the first departure, the last arrival, the trains
// and the classes, in the column beside the Aztec code.
func (r *renderer) journey(t *Ticket) {
	if len(t.Legs) == 0 {
		r.row("Journey", "", 12, true, 1)
		return
	}
	first, last := &t.Legs[0], &t.Legs[len(t.Legs)-1]
	trains := make([]string, len(t.Legs))
	var classes []string
	for i := range t.Legs {
		trains[i] = clean(t.Legs[i].Train)
		if c := clean(t.Legs[i].Class); c != "" && !slices.Contains(classes, c) {
			classes = append(classes, c)
		}
	}
	label := "Train"
	if len(t.Legs) > 1 {
		label = "Trains"
	}
	r.row(label, strings.Join(trains, " / "), 14, true, 2)
	r.row("Date", dateLine(first.Departure), 12, true, 1)
	r.row("From", stopLine(first.Departure, first.Origin), 11, false, 3)
	r.row("To", stopLine(last.Arrival, last.Destination), 11, false, 3)
	if last.Arrival.IsZero() {
		// The arrival time is unknown: say so rather than leave a gap.
		r.note("arrival time not given")
	} else if dateOf(last.Arrival) != dateOf(first.Departure) {
		r.note("arrives on " + dateLine(last.Arrival))
	}
	if n := len(t.Legs) - 1; n == 1 {
		r.note("1 change: each train's places are below")
	} else if n > 1 {
		r.note(fmt.Sprintf("%d changes: each train's places are below", n))
	}
	r.row("Class", strings.Join(classes, " / "), 11, false, 2)
}

// places is the table of names and places on leg i, across the page; a
// journey of several trains has a table per train under a line that
// names it. A table goes on over the next page when it must.
func (r *renderer) places(t *Ticket, i int) {
	pdf := r.pdf
	leg := &t.Legs[i]
	const coachW, placeW = 28.0, 28.0
	nameW := contentW - coachW - placeW
	pdf.Ln(2)
	if len(t.Legs) > 1 {
		pdf.SetFont(familyText, styleBold, 10.5)
		title := fmt.Sprintf("%d. %s", i+1, clean(leg.Train))
		from := stopLine(leg.Departure, leg.Origin)
		to := stopLine(leg.Arrival, leg.Destination)
		if pdf.GetY()+2*lineH+7 > pageHeight-bottomSpace {
			pdf.AddPage()
		}
		pdf.CellFormat(contentW, lineH+0.5, cut(pdf, title+" · "+clean(leg.Class), contentW), "", 2, "L", false, 0, "")
		pdf.SetFont(familyText, "", 9.5)
		pdf.CellFormat(contentW, lineH, cut(pdf, from+"  →  "+to, contentW), "", 2, "L", false, 0, "")
	}
	pdf.SetFont(familyText, styleBold, 10)
	pdf.SetFillColor(232, 236, 242)
	pdf.CellFormat(nameW, 7, "Passenger", "B", 0, "L", true, 0, "")
	pdf.CellFormat(coachW, 7, "Coach", "B", 0, "C", true, 0, "")
	pdf.CellFormat(placeW, 7, "Place", "B", 1, "C", true, 0, "")
	if len(t.Passengers) == 0 {
		pdf.SetFont(familyText, "", 10)
		pdf.CellFormat(contentW, 7, "no passenger named", "", 1, "L", false, 0, "")
	}
	for k, name := range t.Passengers {
		var place Place
		if k < len(leg.Places) {
			place = leg.Places[k]
		}
		pdf.SetFont(familyText, "", 11)
		if name = clean(name); name == "" {
			name = fmt.Sprintf("Passenger %d (no name given)", k+1)
		}
		lines := fit(pdf, name, nameW-2, 3)
		h := float64(len(lines)) * lineH
		if pdf.GetY()+h > pageHeight-bottomSpace {
			pdf.AddPage()
		}
		y := pdf.GetY()
		for _, l := range lines {
			pdf.CellFormat(nameW, lineH, l, "", 2, "L", false, 0, "")
		}
		pdf.SetXY(margin+nameW, y)
		pdf.SetFont(familyText, styleBold, 11)
		pdf.CellFormat(coachW, lineH, cut(pdf, orDash(clean(place.Coach)), coachW-2), "", 0, "C", false, 0, "")
		pdf.CellFormat(placeW, lineH, cut(pdf, orDash(clean(place.Number)), placeW-2), "", 0, "C", false, 0, "")
		pdf.SetXY(margin, y+h+1)
		pdf.SetDrawColor(200, 200, 200)
		pdf.SetLineWidth(0.2)
		pdf.Line(margin, pdf.GetY(), pageWidth-margin, pdf.GetY())
		pdf.SetDrawColor(0, 0, 0)
		pdf.Ln(1)
	}
}

// references are the booking code, the control number and the price.
func (r *renderer) references(t *Ticket) {
	r.pdf.Ln(3)
	r.wideRow("Booking code", orDash(clean(t.BookingCode)), 14, true)
	r.wideRow("Control number", orDash(clean(t.ControlNumber)), 14, true)
	r.wideRow("Price", orDash(clean(t.Price)), 12, false)
}

// row is a label and its value (up to maxLines lines) beside the code.
func (r *renderer) row(label, value string, size float64, bold bool, maxLines int) {
	r.labelled(label, value, size, bold, maxLines, beside)
}

// wideRow is a label and its value across the page, up to two lines.
func (r *renderer) wideRow(label, value string, size float64, bold bool) {
	r.labelled(label, value, size, bold, 2, contentW-labelW)
}

func (r *renderer) labelled(label, value string, size float64, bold bool, maxLines int, w float64) {
	pdf := r.pdf
	style := ""
	if bold {
		style = styleBold
	}
	pdf.SetFont(familyText, style, size)
	lines := fit(pdf, orDash(value), w, maxLines)
	h := size * 0.5
	if pdf.GetY()+float64(len(lines))*h > pageHeight-bottomSpace {
		pdf.AddPage()
	}
	y := pdf.GetY()
	pdf.SetFont(familyText, "", 9)
	pdf.SetTextColor(90, 90, 90)
	pdf.CellFormat(labelW, h, label, "", 0, "L", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
	pdf.SetFont(familyText, style, size)
	for _, l := range lines {
		pdf.SetX(margin + labelW)
		pdf.CellFormat(w, h, l, "", 2, "L", false, 0, "")
	}
	pdf.SetY(y + float64(len(lines))*h + 1.6)
}

// note is a small remark under the row before.
func (r *renderer) note(text string) {
	pdf := r.pdf
	pdf.SetFont(familyText, "", 8.5)
	pdf.SetTextColor(90, 90, 90)
	pdf.SetX(margin + labelW)
	pdf.CellFormat(beside, 4, cut(pdf, text, beside), "", 2, "L", false, 0, "")
	pdf.SetTextColor(0, 0, 0)
	pdf.Ln(1)
}

// subject is the PDF's subject: the trains and the date.
func subject(t *Ticket) string {
	if len(t.Legs) == 0 {
		return "Ticket"
	}
	trains := make([]string, len(t.Legs))
	for i := range t.Legs {
		trains[i] = t.Legs[i].Train
	}
	return clean("Train " + strings.Join(trains, " / ") + " on " + dateOf(t.Legs[0].Departure))
}

// dateOf is the date of t as YYYY-MM-DD, "" when t is zero.
func dateOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// dateLine is the travel date as the ticket prints it, e.g.
// "2026-12-03 (Thursday)".
func dateLine(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly) + " (" + t.Weekday().String() + ")"
}

// stopLine is "07:56  Name (code)"; the time is left out when unknown.
func stopLine(at time.Time, s Station) string {
	var b strings.Builder
	if !at.IsZero() {
		b.WriteString(at.Format("15:04"))
		b.WriteString("  ")
	}
	name, code := clean(s.Name), clean(s.Code)
	switch {
	case name != "" && code != "" && name != code:
		b.WriteString(name + " (" + code + ")")
	case name != "":
		b.WriteString(name)
	default:
		b.WriteString(code)
	}
	return b.String()
}

// footerText is the small print of every page.
func footerText(t *Ticket, issued time.Time) string {
	s := "Issued " + issued.Format("2006-01-02 15:04") + " UTC"
	if ref := clean(t.Reference); ref != "" {
		s += " · document " + ref
	}
	return s + " · Aztec code: control number and booking code"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
