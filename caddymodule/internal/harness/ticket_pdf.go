package harness

import (
	"bytes"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/pdfcheck"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// TicketPDF checks that fr, the answer to a fulfilment, holds one
// document, the ticket of its first fulfilment: an A4 PDF under the
// fulfilment's control number, which the fulfilment refers to. It
// returns the fulfilment and the PDF.
func TicketPDF(t testing.TB, fr osdm.FulfillmentCollectionResponse) (osdm.Fulfillment, []byte) {
	t.Helper()
	f := fr.Fulfillments[0]
	if len(fr.FulfillmentDocuments) != 1 || len(f.FulfillmentDocumentRefs) != 1 || f.FulfillmentDocumentRefs[0] != fr.FulfillmentDocuments[0].ID {
		t.Fatalf("fulfilment %s refs %v, %d documents", f.ID, f.FulfillmentDocumentRefs, len(fr.FulfillmentDocuments))
	}
	doc := fr.FulfillmentDocuments[0]
	if doc.Medium != osdm.FulfillmentMediaPDFA4 || doc.Type != osdm.DocumentTicket || doc.Format != osdm.FormatPDF || doc.ControlNumber != f.ControlNumber {
		t.Errorf("document %s %s %s %s", doc.Medium, doc.Type, doc.Format, doc.ControlNumber)
	}
	if !bytes.HasPrefix(doc.Content, []byte("%PDF-")) {
		t.Fatalf("the document is not a PDF: %q", doc.Content[:min(len(doc.Content), 16)])
	}
	return f, doc.Content
}

// ReadTicket reads the ticket pdf back as a person's tools would
// (skipped, saying so, without them): one page, whose text shows each of
// shows, with one Aztec code, which holds the control number and booking
// code as ticketpdf.Payload writes them.
func ReadTicket(t testing.TB, pdf []byte, controlNumber, bookingCode string, shows ...string) {
	t.Helper()
	if info := pdfcheck.Info(t, pdf); info["Pages"] != "1" {
		t.Errorf("pdfinfo: %v", info)
	}
	text := strings.Join(strings.Fields(pdfcheck.Text(t, pdf)), " ")
	for _, want := range shows {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
	codes := pdfcheck.Codes(t, pdf)
	if want := ticketpdf.Payload(controlNumber, bookingCode); len(codes) != 1 || codes[0].Format != "Aztec" || codes[0].Text != want {
		t.Errorf("codes on page 1: %q, want the Aztec code %q", codes, want)
	}
}
