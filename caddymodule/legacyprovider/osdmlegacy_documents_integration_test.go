package legacyprovider

import (
	"bytes"
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/pdfcheck"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// namedBookingOf books offerID for an adult and a child named in Latin
// with accents and in Greek.
func namedBookingOf(offerID string) string {
	return `{"offers": [{"offerId": "` + offerID + `", "passengerRefs": ["p1", "p2"]}],
	 "passengerSpecifications": [
	   {"externalRef": "p1", "type": "ADULT", "age": 40, "detail": {"firstName": "Zoë", "lastName": "Ångström-Müller"}},
	   {"externalRef": "p2", "type": "CHILD", "age": 7, "detail": {"firstName": "Ἀλέξανδρος", "lastName": "Καραμανλής"}}]}`
}

// TestOSDMLegacyIntegrationTicketDocuments: through a real Caddy
// (osdm_legacy -> reverse_proxy -> the legacy sandbox over HTTP), a
// fulfilment carries its ticket as a PDF that poppler reads (train, date,
// booking code, control number, every passenger's last name) with an
// Aztec code a scanner reads; the booking, the fulfilment and a replayed
// Idempotency-Key give the same bytes; every answer validates against the
// spec. With `documents none` there is none.
func TestOSDMLegacyIntegrationTicketDocuments(t *testing.T) {
	l := startBKLegacy(t)
	dir := t.TempDir()
	base := harness.Serve(t, func(port int) string {
		return bkCaddyfile(port, l.addr, "store bolt "+filepath.Join(dir, "legacy.db"), "")
	})
	c := &bkClient{t: t, base: base}

	o := c.offer("708")
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", namedBookingOf(o.OfferID), "", 200, &br)
	b := br.Booking
	key := uuid.NewString()
	var fr osdm.FulfillmentCollectionResponse
	c.ok("POST", "/bookings/"+b.ID+"/fulfillments", "", key, 200, &fr)
	fu := fr.Fulfillments[0]
	if len(fr.FulfillmentDocuments) != 1 || len(fu.FulfillmentDocumentRefs) != 1 || fu.FulfillmentDocumentRefs[0] != fr.FulfillmentDocuments[0].ID {
		t.Fatalf("fulfilment %s refs %v, %d documents", fu.ID, fu.FulfillmentDocumentRefs, len(fr.FulfillmentDocuments))
	}
	doc := fr.FulfillmentDocuments[0]
	if doc.Medium != osdm.FulfillmentMediaPDFA4 || doc.Type != osdm.DocumentTicket || doc.Format != osdm.FormatPDF || doc.ControlNumber != fu.ControlNumber {
		t.Errorf("document %s %s %s %s", doc.Medium, doc.Type, doc.Format, doc.ControlNumber)
	}
	pdf := doc.Content
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("the document is not a PDF: %q", pdf[:min(len(pdf), 16)])
	}

	for range 2 {
		var gf osdm.FulfillmentResponse
		c.ok("GET", "/fulfillments/"+fu.ID, "", "", 200, &gf)
		if len(gf.FulfillmentDocuments) != 1 || !bytes.Equal(gf.FulfillmentDocuments[0].Content, pdf) {
			t.Error("GET /fulfillments gives another document")
		}
		var gb osdm.BookingResponse
		c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
		if len(gb.Booking.FulfillmentDocuments) != 1 || !bytes.Equal(gb.Booking.FulfillmentDocuments[0].Content, pdf) {
			t.Error("GET /bookings gives another document")
		}
	}
	status, h, replay := c.do("POST", "/bookings/"+b.ID+"/fulfillments", "", key)
	if status != 200 || h.Get("Idempotent-Replayed") != "true" || !bytes.Contains(replay, []byte(`"content":"`+encodeStd(pdf)+`"`)) {
		t.Errorf("replayed fulfilment: %d %v, the same document: %v", status, h, bytes.Contains(replay, []byte(encodeStd(pdf))))
	}

	// documents none: the fulfilment has its control number, no document.
	none := harness.Serve(t, func(port int) string {
		return bkCaddyfile(port, l.addr, "store bolt "+filepath.Join(dir, "none.db"), "\n\t\t\tdocuments none")
	})
	cn := &bkClient{t: t, base: none}
	var nb osdm.BookingResponse
	var nf osdm.FulfillmentCollectionResponse
	cn.ok("POST", "/bookings", namedBookingOf(cn.offer("708").OfferID), "", 200, &nb)
	cn.ok("POST", "/bookings/"+nb.Booking.ID+"/fulfillments", "", "", 200, &nf)
	if len(nf.FulfillmentDocuments) != 0 || len(nf.Fulfillments[0].FulfillmentDocumentRefs) != 0 || nf.Fulfillments[0].ControlNumber == "" {
		t.Errorf("documents none: %d documents, refs %v", len(nf.FulfillmentDocuments), nf.Fulfillments[0].FulfillmentDocumentRefs)
	}

	// Read back as a person's tools would (skipped, saying so, without them).
	if info := pdfcheck.Info(t, pdf); info["Pages"] != "1" {
		t.Errorf("pdfinfo: %v", info)
	}
	text := strings.Join(strings.Fields(pdfcheck.Text(t, pdf)), " ")
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	for _, want := range []string{"708", day, b.BookingCode, fu.ControlNumber, "Ångström-Müller", "Καραμανλής"} {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
	codes := pdfcheck.Codes(t, pdf)
	if want := ticketpdf.Payload(fu.ControlNumber, b.BookingCode); len(codes) != 1 || codes[0].Format != "Aztec" || codes[0].Text != want {
		t.Errorf("codes on page 1: %q, want the Aztec code %q", codes, want)
	}
}

func encodeStd(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
