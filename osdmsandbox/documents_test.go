package osdmsandbox_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/pdfcheck"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// bookNamed books train 708 for two adults named in Greek and Cyrillic.
func (h *harness) bookNamed() *osdm.Booking {
	h.t.Helper()
	pax := []osdm.AnonymousPassengerSpecification{adult("p1"), adult("p2")}
	offer := offerOf(h.t, h.search(offerRequest("708", nil, pax...)), osdm.TravelClassSecond, osdm.AccommodationSeat)
	req := bookingRequest(offer, pax...)
	req.PassengerSpecifications[0].Detail = &osdm.PersonDetail{FirstName: "Σωκράτης", LastName: "Παπαδόπουλος"}
	req.PassengerSpecifications[1].Detail = &osdm.PersonDetail{FirstName: "Фёдор", LastName: "Достоевский"}
	r := h.call(http.MethodPost, "/bookings", "", req)
	if r.status != http.StatusOK {
		h.t.Fatalf("POST /bookings: %d %s", r.status, r.body)
	}
	var resp osdm.BookingResponse
	r.decode(h.t, &resp)
	return resp.Booking
}

// ticketOf checks that docs is the one ticket of fulfilment f and
// returns its PDF.
func ticketOf(t *testing.T, f osdm.Fulfillment, docs []osdm.FulfillmentDocument) []byte {
	t.Helper()
	if len(docs) != 1 {
		t.Fatalf("%d documents for fulfilment %s, want its ticket", len(docs), f.ID)
	}
	d := docs[0]
	if d.Medium != osdm.FulfillmentMediaPDFA4 || d.Type != osdm.DocumentTicket || d.Format != osdm.FormatPDF ||
		d.ControlNumber != f.ControlNumber || d.ID == "" || len(f.FulfillmentDocumentRefs) != 1 || f.FulfillmentDocumentRefs[0] != d.ID {
		t.Fatalf("document %+v (content left out) of fulfilment refs %v", osdm.FulfillmentDocument{ID: d.ID, Medium: d.Medium, Type: d.Type, Format: d.Format, ControlNumber: d.ControlNumber}, f.FulfillmentDocumentRefs)
	}
	return d.Content
}

func TestNoDocumentsFulfilsWithTheControlNumberOnly(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{NoDocuments: true})
	b := h.bookNamed()
	var fr osdm.FulfillmentCollectionResponse
	h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{}).decode(t, &fr)
	f := fr.Fulfillments[0]
	if f.Status != osdm.FulfillmentFulfilled || f.ControlNumber == "" {
		t.Fatalf("fulfilment %s: status %s, control number %q", f.ID, f.Status, f.ControlNumber)
	}
	if len(fr.FulfillmentDocuments) != 0 || len(f.FulfillmentDocumentRefs) != 0 {
		t.Fatalf("documents %d, refs %v: want none", len(fr.FulfillmentDocuments), f.FulfillmentDocumentRefs)
	}
	got := h.getBooking(b.ID)
	if len(got.FulfillmentDocuments) != 0 || len(got.Fulfillments) != 1 || len(got.Fulfillments[0].FulfillmentDocumentRefs) != 0 {
		t.Fatalf("GET /bookings: documents %d, fulfilments %+v", len(got.FulfillmentDocuments), got.Fulfillments)
	}
}

func TestFulfilmentCarriesItsTicket(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.bookNamed()
	r := h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{})
	var fr osdm.FulfillmentCollectionResponse
	r.decode(t, &fr)
	f := fr.Fulfillments[0]
	pdf := ticketOf(t, f, fr.FulfillmentDocuments)
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("the document is not a PDF: %q", pdf[:min(len(pdf), 16)])
	}

	// The same document, byte for byte, from the booking, the fulfilment
	// and a second fulfilment call.
	got := h.getBooking(b.ID)
	if again := ticketOf(t, got.Fulfillments[0], got.FulfillmentDocuments); !bytes.Equal(again, pdf) {
		t.Error("GET /bookings gives other bytes")
	}
	var one osdm.FulfillmentResponse
	h.call(http.MethodGet, "/fulfillments/"+f.ID, "", nil).decode(t, &one)
	if again := ticketOf(t, *one.Fulfillment, one.FulfillmentDocuments); !bytes.Equal(again, pdf) {
		t.Error("GET /fulfillments gives other bytes")
	}
	var fr2 osdm.FulfillmentCollectionResponse
	h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{}).decode(t, &fr2)
	if again := ticketOf(t, fr2.Fulfillments[0], fr2.FulfillmentDocuments); !bytes.Equal(again, pdf) {
		t.Error("fulfilling again gives other bytes")
	}
	h.call(http.MethodGet, "/fulfillments/f-nothing", "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)

	// Read back as a person's tools would (skipped, saying so, without them).
	info := pdfcheck.Info(t, pdf)
	if info["Pages"] != "1" || !strings.Contains(info["Page size"], "A4") {
		t.Errorf("pdfinfo: %v", info)
	}
	text := strings.Join(strings.Fields(pdfcheck.Text(t, pdf)), " ")
	for _, want := range []string{"IC 708", departure.Format("2006-01-02"), "Zürich HB", b.BookingCode, f.ControlNumber, "Παπαδόπουλος", "Достоевский", "EUR 10.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
	codes := pdfcheck.Codes(t, pdf)
	if want := ticketpdf.Payload(f.ControlNumber, b.BookingCode); len(codes) != 1 || codes[0].Format != "Aztec" || codes[0].Text != want {
		t.Errorf("codes on page 1: %q, want the Aztec code %q", codes, want)
	}
}

func TestTicketReplayedForAnIdempotencyKeyIsTheSame(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.bookNamed()
	const key = "5b1c0a2e-8f0e-4c1a-9d7e-2f6a1b3c4d5e"
	first := h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", key, osdm.FulfillmentPostRequest{})
	second := h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", key, osdm.FulfillmentPostRequest{})
	if second.header.Get(osdmsandbox.HeaderReplayed) != "true" || !bytes.Equal(first.body, second.body) {
		t.Fatalf("replayed %q, same body %v", second.header.Get(osdmsandbox.HeaderReplayed), bytes.Equal(first.body, second.body))
	}
	var fr osdm.FulfillmentCollectionResponse
	second.decode(t, &fr)
	pdfcheck.Info(t, ticketOf(t, fr.Fulfillments[0], fr.FulfillmentDocuments))
}

func TestRefundedTicketIsNoLongerOffered(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.bookNamed()
	f := h.fulfil(b.ID)
	ro := h.refundOffer(b.ID, f.ID, "")
	if r := h.confirmRefund(b.ID, ro.ID); r.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	got := h.getBooking(b.ID)
	if len(got.FulfillmentDocuments) != 0 || len(got.Fulfillments[0].FulfillmentDocumentRefs) != 0 {
		t.Errorf("a refunded booking offers %d documents, refs %v", len(got.FulfillmentDocuments), got.Fulfillments[0].FulfillmentDocumentRefs)
	}
	var one osdm.FulfillmentResponse
	h.call(http.MethodGet, "/fulfillments/"+f.ID, "", nil).decode(t, &one)
	if one.Fulfillment.Status != osdm.FulfillmentRefunded || len(one.FulfillmentDocuments) != 0 {
		t.Errorf("refunded fulfilment: %s with %d documents", one.Fulfillment.Status, len(one.FulfillmentDocuments))
	}
}

func TestPartlyRefundedTicketShowsWhoStillTravels(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.bookNamed()
	f := h.fulfil(b.ID)
	r := h.call(http.MethodPost, "/bookings/"+b.ID+"/refund-offers", "", osdm.RefundOfferRequest{
		FulfillmentIDs: []string{f.ID}, RefundSpecifications: []osdm.RefundSpecification{{FulfillmentID: f.ID, PassengerIDs: []string{b.Passengers[1].ID}}}})
	var ro osdm.RefundOfferCollectionResponse
	r.decode(t, &ro)
	if len(ro.RefundOffers) != 1 {
		t.Fatalf("partial refund offer: %d %s", r.status, r.body)
	}
	if r := h.confirmRefund(b.ID, ro.RefundOffers[0].ID); r.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	got := h.getBooking(b.ID)
	text := pdfcheck.Text(t, ticketOf(t, got.Fulfillments[0], got.FulfillmentDocuments))
	if !strings.Contains(text, "Παπαδόπουλος") || strings.Contains(text, "Достоевский") {
		t.Errorf("after refunding Достоевский's place the ticket shows:\n%s", text)
	}
}

func TestExchangedTicketIsReplaced(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.bookNamed()
	f := h.fulfil(b.ID)
	xo := seatOffer(t, h.exchangeOffers(b, f.ID, "709", osdm.TravelClassFirst, adult("p1"), adult("p2")))
	if r := h.exchangeOperation(b.ID, xo); r.status != http.StatusOK {
		t.Fatalf("operation: %d %s", r.status, r.body)
	}
	var fr osdm.FulfillmentCollectionResponse
	h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{}).decode(t, &fr)
	nf := fr.Fulfillments[0]
	if nf.ID == f.ID {
		t.Fatalf("the exchange kept fulfilment %s", f.ID)
	}
	text := pdfcheck.Text(t, ticketOf(t, nf, fr.FulfillmentDocuments))
	if !strings.Contains(text, "IC 709") || strings.Contains(text, "IC 708") || !strings.Contains(text, "1st class") {
		t.Errorf("the new ticket shows:\n%s", text)
	}
	var old osdm.FulfillmentResponse
	h.call(http.MethodGet, "/fulfillments/"+f.ID, "", nil).decode(t, &old)
	if old.Fulfillment.Status != osdm.FulfillmentExchanged || len(old.FulfillmentDocuments) != 0 || len(old.Fulfillment.FulfillmentDocumentRefs) != 0 {
		t.Errorf("exchanged fulfilment: %s with %d documents, refs %v", old.Fulfillment.Status, len(old.FulfillmentDocuments), old.Fulfillment.FulfillmentDocumentRefs)
	}
	got := h.getBooking(b.ID)
	if len(got.FulfillmentDocuments) != 1 || got.FulfillmentDocuments[0].ID != nf.FulfillmentDocumentRefs[0] {
		t.Errorf("the booking offers %d documents after the exchange", len(got.FulfillmentDocuments))
	}
}

// A trip with a change has one ticket: both trains, each with its
// stations, times, class and the passenger's place.
func TestTicketOfATripWithAChange(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	var resp osdm.OfferCollectionResponse
	r := h.postOffers(specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
		timedLeg("11", "8503000", "2026-12-01T08:30", "8000261", "2026-12-01T12:45")))
	r.decode(t, &resp)
	if r.status != http.StatusOK || len(resp.Offers) == 0 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	b := h.book(resp.Offers[0])
	var fr osdm.FulfillmentCollectionResponse
	h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{}).decode(t, &fr)
	pdf := ticketOf(t, fr.Fulfillments[0], fr.FulfillmentDocuments)
	text := strings.Join(strings.Fields(pdfcheck.Text(t, pdf)), " ")
	for _, want := range []string{"IC 9 / IC 11", "1 change", "07:12 Basel SBB (8500010)", "12:45", "1. IC 9", "2. IC 11", "Anna Muster"} {
		if !strings.Contains(text, want) {
			t.Errorf("the ticket does not show %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "Anna Muster") != 2 {
		t.Errorf("the passenger is not listed on both trains:\n%s", text)
	}
}

// A fulfilment, and so its ticket, is its booking's client's: another
// client asking for it gets 404, as for an unknown id.
func TestTicketIsItsClientsOnly(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.bookNamed()
	f := h.fulfil(b.ID)
	ask := func(client string) *osdm.Answer {
		return h.sb.ServeClient(context.Background(), client, http.MethodGet, "/fulfillments/"+f.ID, http.Header{}, nil)
	}
	if a := ask(osdmsandbox.AnonymousClient); a.Status != http.StatusOK || !strings.Contains(string(a.Body), `"fulfillmentDocuments"`) {
		t.Fatalf("the booking's client: %d", a.Status)
	}
	if a := ask("another-railway"); a.Status != http.StatusNotFound || strings.Contains(string(a.Body), "JVBERi0") {
		t.Errorf("another client: %d %.200s", a.Status, a.Body)
	}
}
