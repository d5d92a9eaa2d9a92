package integration

import (
	"bytes"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/pdfcheck"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestOSDMLegacyIntegrationLegacyRoundTripTicket: a legacy system that
// booked on another legacy system over OSDM (osdm_convert -> osdm_legacy
// -> legacy sandbox) asks for the ticket with a TicketRequest and gets
// the PDF that osdm_legacy renders from the far system's reply, in XML
// and JSON alike: poppler reads it, and it shows the train, the far
// system's reservation reference and control number and the passenger's
// last name.
func TestOSDMLegacyIntegrationLegacyRoundTripTicket(t *testing.T) {
	pdfcheck.NeedText(t)
	rt := legacyOverOSDM(t)
	br, ok := rt.post(&legacy.BookingRequest{
		Header:     header("RTT-"),
		Journey:    rt.journey("708"),
		Places:     legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}},
		Passengers: []legacy.Passenger{{FirstName: "Ada", LastName: "Lovelace"}},
	}).(*legacy.BookingReply)
	if !ok {
		t.Fatal("BookingRequest over OSDM did not book")
	}
	var first []byte
	for _, f := range testFormats {
		client := rt.client
		client.Format = f
		_, reply := client.Send(t, &legacy.TicketRequest{Header: header("RTT-T-"), BookingRef: br.BookingRef})
		tr, ok := reply.(*legacy.TicketReply)
		if !ok || len(tr.Tickets) != 1 || len(tr.Tickets[0].Documents) != 1 || tr.Tickets[0].TicketControlNumber != br.TicketControlNumber {
			t.Fatalf("%v: %+v", f, reply)
		}
		d := tr.Tickets[0].Documents[0]
		if d.Format != "application/pdf" || d.Medium != "PDF_A4" || d.Type != "TICKET" {
			t.Errorf("%v: document %s %s %s", f, d.Format, d.Medium, d.Type)
		}
		if info := pdfcheck.Info(t, d.Content); info["Pages"] == "" {
			t.Errorf("%v: pdfinfo %v", f, info)
		}
		text := strings.Join(strings.Fields(pdfcheck.Text(t, d.Content)), " ")
		for _, want := range []string{"708", br.ReservationReference, br.TicketControlNumber, "Lovelace"} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: the ticket does not show %q:\n%s", f, want, text)
			}
		}
		if first == nil {
			first = d.Content
		} else if !bytes.Equal(first, d.Content) {
			t.Error("the ticket changed between two TicketRequests")
		}
	}
}
