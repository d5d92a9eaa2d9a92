package legacyprovider

import (
	"bytes"
	"encoding/base64"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/osdm"
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
	c := serveBK(t, l, "")

	o := c.offer("708")
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", namedBookingOf(o.OfferID), "", 200, &br)
	b := br.Booking
	key := uuid.NewString()
	var fr osdm.FulfillmentCollectionResponse
	c.ok("POST", "/bookings/"+b.ID+"/fulfillments", "", key, 200, &fr)
	fu, pdf := harness.TicketPDF(t, fr)

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
	cn := serveBK(t, l, "\n\t\t\tdocuments none")
	var nb osdm.BookingResponse
	var nf osdm.FulfillmentCollectionResponse
	cn.ok("POST", "/bookings", namedBookingOf(cn.offer("708").OfferID), "", 200, &nb)
	cn.ok("POST", "/bookings/"+nb.Booking.ID+"/fulfillments", "", "", 200, &nf)
	if len(nf.FulfillmentDocuments) != 0 || len(nf.Fulfillments[0].FulfillmentDocumentRefs) != 0 || nf.Fulfillments[0].ControlNumber == "" {
		t.Errorf("documents none: %d documents, refs %v", len(nf.FulfillmentDocuments), nf.Fulfillments[0].FulfillmentDocumentRefs)
	}

	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	harness.ReadTicket(t, pdf, fu.ControlNumber, b.BookingCode, "708", day, b.BookingCode, fu.ControlNumber, "Ångström-Müller", "Καραμανλής")
}

func encodeStd(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
