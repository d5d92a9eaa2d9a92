package osdmlegacy

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/pdfcheck"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// bookNamed books o (an adult and a child) with names in Greek and
// Cyrillic and returns the booking.
func (e *bookEnv) bookNamed(o *offerRecord) *osdm.Booking {
	e.t.Helper()
	body := bookingBodyOf(o)
	specs := body["passengerSpecifications"].([]map[string]any)
	specs[0]["detail"] = map[string]any{"firstName": "Σωκράτης", "lastName": "Παπαδόπουλος"}
	specs[1]["detail"] = map[string]any{"firstName": "Фёдор", "lastName": "Достоевский"}
	return decodeOK[osdm.BookingResponse](e.t, e.call(e.f, "POST", "/bookings", body), 200).Booking
}

// theTicket checks that docs are the one ticket of fulfilment fu and
// returns its PDF.
func theTicket(t *testing.T, fu osdm.Fulfillment, docs []osdm.FulfillmentDocument) []byte {
	t.Helper()
	if len(docs) != 1 {
		t.Fatalf("%d documents for fulfilment %s, want its ticket", len(docs), fu.ID)
	}
	d := docs[0]
	if d.Medium != osdm.FulfillmentMediaPDFA4 || d.Type != osdm.DocumentTicket || d.Format != osdm.FormatPDF || d.ControlNumber != fu.ControlNumber ||
		len(fu.FulfillmentDocumentRefs) != 1 || fu.FulfillmentDocumentRefs[0] != d.ID || d.ID != fu.ID+"-ticket" {
		t.Fatalf("document %s %s %s %s %s, fulfilment refs %v", d.ID, d.Medium, d.Type, d.Format, d.ControlNumber, fu.FulfillmentDocumentRefs)
	}
	return d.Content
}

func TestFulfilmentTicketShowsTheLegacyBooking(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child)
	b := e.bookNamed(o)
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	fu := fr.Fulfillments[0]
	pdf := theTicket(t, fu, fr.FulfillmentDocuments)
	rec := e.records()[b.ID]
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("the document is not a PDF: %q", pdf[:min(len(pdf), 16)])
	}

	// The booking and the fulfilment give the same bytes, again and again.
	for range 2 {
		gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking
		if !bytes.Equal(theTicket(t, gb.Fulfillments[0], gb.FulfillmentDocuments), pdf) {
			t.Error("GET /bookings gives another document")
		}
		gf := decodeOK[osdm.FulfillmentResponse](t, e.call(e.f, "GET", "/fulfillments/"+fu.ID, nil), 200)
		if !bytes.Equal(theTicket(t, *gf.Fulfillment, gf.FulfillmentDocuments), pdf) {
			t.Error("GET /fulfillments gives another document")
		}
	}
	// Another façade on the same store (a restart, another instance)
	// renders the same bytes.
	other := e.facade(e.st)
	gf := decodeOK[osdm.FulfillmentResponse](t, e.call(other, "GET", "/fulfillments/"+fu.ID, nil), 200)
	if !bytes.Equal(theTicket(t, *gf.Fulfillment, gf.FulfillmentDocuments), pdf) {
		t.Error("another façade renders other bytes")
	}

	// Read back as a person's tools would (skipped, saying so, without them).
	if info := pdfcheck.Info(t, pdf); info["Pages"] != "1" || info["Title"] != "Ticket "+rec.Legacy.ReservationReference {
		t.Errorf("pdfinfo: %v", info)
	}
	text := strings.Join(strings.Fields(pdfcheck.Text(t, pdf)), " ")
	places := rec.Legacy.Places
	want := []string{
		"hermes-test", "9203", tomorrow(), o.Departure.Format("15:04") + " Basel SBB (8500010)", "Zürich HB (8503000)", "2nd class, seat",
		rec.Legacy.ReservationReference, fu.ControlNumber, "Παπαδόπουλος", "Достоевский",
		"Σωκράτης Παπαδόπουλος " + places[0].Coach + " " + places[0].Number,
	}
	if gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking; gb.ConfirmedPrice != nil {
		amount, _ := gb.ConfirmedPrice.Decimal()
		want = append(want, gb.ConfirmedPrice.Currency+" "+amount)
	} else {
		t.Fatal("the fulfilled booking has no confirmedPrice")
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("the ticket does not show %q:\n%s", w, text)
		}
	}
	codes := pdfcheck.Codes(t, pdf)
	if w := ticketpdf.Payload(fu.ControlNumber, rec.Legacy.ReservationReference); len(codes) != 1 || codes[0].Format != "Aztec" || codes[0].Text != w {
		t.Errorf("codes on page 1: %q, want the Aztec code %q", codes, w)
	}
}

// An answer kept for an Idempotency-Key keeps the ticket's data, not its
// PDF, and the replay, on another instance, gives the same bytes.
func TestTicketReplayedForAnIdempotencyKey(t *testing.T) {
	e := newBookEnv(t, boltKind, nil)
	b := e.bookNamed(e.offer("9203", adult, child))
	key := newTestUUID()
	first := e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil, withKey(key))
	again := e.call(e.otherInstance(), "POST", "/bookings/"+b.ID+"/fulfillments", nil, withKey(key))
	if again.Header.Get(headerReplayed) != "true" || !bytes.Equal(first.Body, again.Body) {
		t.Fatalf("replayed %q, same body %v", again.Header.Get(headerReplayed), bytes.Equal(first.Body, again.Body))
	}
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, again, 200)
	pdfcheck.Info(t, theTicket(t, fr.Fulfillments[0], fr.FulfillmentDocuments))
	err := e.st.Scan(context.Background(), storeKey(e.cfg.Partner, kindIdempotency, ""), func(k string, v []byte) error {
		var rec idempotencyRecord
		if err := json.Unmarshal(v, &rec); err != nil {
			return err
		}
		if bytes.Contains(rec.Body, []byte("JVBERi0")) || len(v) > 16<<10 { // base64 of "%PDF-"
			t.Errorf("the idempotency record %s keeps the PDF: %d bytes", k, len(v))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDocumentsNone(t *testing.T) {
	e := newBookEnv(t, memKind, func(c *Config) { c.Documents = DocumentsNone })
	b := e.bookNamed(e.offer("9203", adult, child))
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking
	if len(fr.FulfillmentDocuments) != 0 || len(fr.Fulfillments[0].FulfillmentDocumentRefs) != 0 || len(gb.FulfillmentDocuments) != 0 ||
		fr.Fulfillments[0].ControlNumber == "" {
		t.Errorf("documents none: %d documents, refs %v, booking %d documents, control number %q",
			len(fr.FulfillmentDocuments), fr.Fulfillments[0].FulfillmentDocumentRefs, len(gb.FulfillmentDocuments), fr.Fulfillments[0].ControlNumber)
	}
	if _, err := (Config{Partner: "p", Documents: "html"}).Normalize(); err == nil || !strings.Contains(err.Error(), `documents "html": want pdf or none`) {
		t.Errorf("documents html: %v", err)
	}
}

func TestRefundedTicketIsNoLongerOffered(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, fid := e.fulfilled(e.offer("9203", adult, child))
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid)), 200).RefundOffers[0]
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", "/bookings/"+id+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+id, nil), 200).Booking
	gf := decodeOK[osdm.FulfillmentResponse](t, e.call(e.f, "GET", "/fulfillments/"+fid, nil), 200)
	if gf.Fulfillment.Status != osdm.FulfillmentRefunded || len(gf.FulfillmentDocuments) != 0 || len(gf.Fulfillment.FulfillmentDocumentRefs) != 0 ||
		len(gb.FulfillmentDocuments) != 0 {
		t.Errorf("refunded: fulfilment %s with %d documents, refs %v; booking %d documents",
			gf.Fulfillment.Status, len(gf.FulfillmentDocuments), gf.Fulfillment.FulfillmentDocumentRefs, len(gb.FulfillmentDocuments))
	}
}

func TestPartlyRefundedTicketShowsWhoStillTravels(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.bookNamed(e.offer("9203", adult, child))
	fid := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0].ID
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/refund-offers", refundOf(fid, b.Passengers[1].ID)), 200).RefundOffers[0]
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking
	text := strings.Join(strings.Fields(pdfcheck.Text(t, theTicket(t, gb.Fulfillments[0], gb.FulfillmentDocuments))), " ")
	price, _ := gb.ConfirmedPrice.Decimal()
	if !strings.Contains(text, "Παπαδόπουλος") || strings.Contains(text, "Достоевский") || !strings.Contains(text, gb.ConfirmedPrice.Currency+" "+price) {
		t.Errorf("after refunding Достоевский's place (confirmed price %s) the ticket shows:\n%s", price, text)
	}
}

func TestExchangedTicketShowsTheNewTrain(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child)
	b := e.bookNamed(o)
	fid := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200).Fulfillments[0].ID
	e.exchangeTo(b.ID, fid, "708")
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	nf := fr.Fulfillments[0]
	text := strings.Join(strings.Fields(pdfcheck.Text(t, theTicket(t, nf, fr.FulfillmentDocuments))), " ")
	if !strings.Contains(text, "708") || strings.Contains(text, "9203") || !strings.Contains(text, nf.ControlNumber) {
		t.Errorf("the ticket after the exchange shows:\n%s", text)
	}
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking
	for i, f := range gb.Fulfillments {
		if f.Status != osdm.FulfillmentFulfilled && len(f.FulfillmentDocumentRefs) != 0 {
			t.Errorf("fulfilment %d (%s) still names a document", i, f.Status)
		}
	}
	if len(gb.FulfillmentDocuments) != 1 || gb.FulfillmentDocuments[0].ControlNumber != nf.ControlNumber {
		t.Errorf("the booking offers %d documents after the exchange", len(gb.FulfillmentDocuments))
	}
}

// A control number and reservation reference too long for the Aztec code:
// the fulfilment is answered without its document, and a problem of the
// answer says why.
func TestTicketTooLongForItsCodeIsToldNotCut(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.bookNamed(e.offer("9203", adult, child))
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", nil), 200)
	rec := e.records()[b.ID]
	rec.Legacy.ReservationReference = strings.Repeat("R", ticketpdf.MaxCodeBytes)
	raw, _ := json.Marshal(rec)
	if err := e.st.Put(context.Background(), storeKey(e.cfg.Partner, kindBooking, rec.ID), raw, 0); err != nil {
		t.Fatal(err)
	}
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200)
	if len(gb.Booking.FulfillmentDocuments) != 0 || len(gb.Booking.Fulfillments[0].FulfillmentDocumentRefs) != 0 || len(gb.Problems) != 1 ||
		!strings.Contains(gb.Problems[0].Detail, "too long for its Aztec code") || !strings.Contains(gb.Problems[0].Detail, "the fulfillment stands") {
		t.Errorf("documents %d, refs %v, problems %+v", len(gb.Booking.FulfillmentDocuments), gb.Booking.Fulfillments[0].FulfillmentDocumentRefs, gb.Problems)
	}
}

// A journey with changes has one ticket per train, each its fulfilment's,
// in the answer of its fulfilment, of the booking and of each fulfilment,
// the same bytes each time; after an exchange, the new trains' tickets.
func TestJourneyTicketPerLeg(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	jo := e.journeyOffer("708", "709")
	b := e.book(&offerRecord{ID: jo.ID, Passengers: jo.Legs[0].Passengers})
	fa := e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", "{}")
	osdmspec.ValidateResponse(t, osdmspec.V39, "POST", "/bookings/"+b.ID+"/fulfillments", fa.Status, fa.Header, fa.Body)
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, fa, 200)
	if len(fr.Fulfillments) != 2 || len(fr.FulfillmentDocuments) != 2 {
		t.Fatalf("%d fulfilments, %d documents, want a ticket for each of the 2 trains", len(fr.Fulfillments), len(fr.FulfillmentDocuments))
	}
	ga := e.call(e.f, "GET", "/bookings/"+b.ID, nil)
	osdmspec.ValidateResponse(t, osdmspec.V39, "GET", "/bookings/"+b.ID, ga.Status, ga.Header, ga.Body)
	gb := decodeOK[osdm.BookingResponse](t, ga, 200).Booking
	if len(gb.FulfillmentDocuments) != 2 {
		t.Fatalf("the booking offers %d documents, want 2", len(gb.FulfillmentDocuments))
	}
	for i, train := range []string{"708", "709"} {
		fu := fr.Fulfillments[i]
		pdf := theTicket(t, fu, fr.FulfillmentDocuments[i:i+1])
		if !bytes.Equal(theTicket(t, gb.Fulfillments[i], gb.FulfillmentDocuments[i:i+1]), pdf) {
			t.Errorf("train %s: GET /bookings gives another document", train)
		}
		gf := decodeOK[osdm.FulfillmentResponse](t, e.call(e.f, "GET", "/fulfillments/"+fu.ID, nil), 200)
		if !bytes.Equal(theTicket(t, *gf.Fulfillment, gf.FulfillmentDocuments), pdf) {
			t.Errorf("train %s: GET /fulfillments gives another document", train)
		}
		for _, r := range e.records() {
			if r.Fulfillment != nil && r.Fulfillment.ID == fu.ID {
				if codes := pdfcheck.Codes(t, pdf); len(codes) != 1 || codes[0].Text != ticketpdf.Payload(fu.ControlNumber, r.Legacy.ReservationReference) {
					t.Errorf("train %s: codes %q, want its own control number and booking code", train, codes)
				}
			}
		}
		other := map[string]string{"708": "709", "709": "708"}[train]
		if text := strings.Join(strings.Fields(pdfcheck.Text(t, pdf)), " "); !strings.Contains(text, train) || strings.Contains(text, other) || !strings.Contains(text, fu.ControlNumber) {
			t.Errorf("the ticket of train %s shows:\n%s", train, text)
		}
	}

	body := `{"fulfillmentIds": ["` + fr.Fulfillments[0].ID + `", "` + fr.Fulfillments[1].ID + `"],
		"tripSpecifications": [{"legs": [` + specLegJSON("710", "8500010", "12:00", "8503000", "13:00") + `, ` + specLegJSON("711", "8503000", "13:30", "8509000", "15:00") + `]}],
		"anonymousPassengerSpecifications": [{"externalRef": "p-adult", "type": "ADULT", "age": 30}, {"externalRef": "p-child", "type": "CHILD", "age": 8}]}`
	xr := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/exchange-offers", body), 200)
	sel := `{"exchangeOffers": [{"offerId": "` + xr.ExchangeOffers[0].OfferID + `", "passengerRefs": ["p-adult", "p-child"]}]}`
	decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/exchange-operations", sel), 200)
	xf := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", "{}"), 200)
	if len(xf.Fulfillments) != 2 || len(xf.FulfillmentDocuments) != 2 {
		t.Fatalf("the exchange's confirmation: %d fulfilments, %d documents, want 2 and 2", len(xf.Fulfillments), len(xf.FulfillmentDocuments))
	}
	for i, train := range []string{"710", "711"} {
		text := strings.Join(strings.Fields(pdfcheck.Text(t, theTicket(t, xf.Fulfillments[i], xf.FulfillmentDocuments[i:i+1]))), " ")
		if !strings.Contains(text, train) {
			t.Errorf("the new ticket of train %s shows:\n%s", train, text)
		}
	}
	gb = decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200).Booking
	if len(gb.FulfillmentDocuments) != 2 {
		t.Errorf("after the exchange the booking offers %d documents, want the new trains' 2", len(gb.FulfillmentDocuments))
	}
	for _, f := range gb.Fulfillments {
		if f.Status != osdm.FulfillmentFulfilled && len(f.FulfillmentDocumentRefs) != 0 {
			t.Errorf("fulfilment %s (%s) still names a document", f.ID, f.Status)
		}
	}
}
