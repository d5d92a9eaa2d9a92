package integration

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/pdfcheck"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// linkedPDF is the document the partner of TestExampleChainTicketByLink
// serves by link: a PDF as far as the converter's checks go.
var linkedPDF = []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")

// documentPartner acts out, on top of the sandbox, a partner whose
// fulfilments give their ticket as a downloadLink, and serves the link
// as mode says.
type documentPartner struct {
	mu      sync.Mutex
	mode    string // ok, huge, slow, broken
	control string // the fulfilment's control number
	auth    string // the Authenticate header of the last download
	path    string // the path and query of the last download
	written int    // bytes of the last huge download the partner got written
}

func (p *documentPartner) set(mode, control string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode, p.control, p.auth, p.path, p.written = mode, control, "", "", 0
}

// intercept answers GET /fulfillments/{id} and the downloads; every other
// call goes on to the sandbox.
func (p *documentPartner) intercept(t *testing.T) func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
	return func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		p.mu.Lock()
		mode, control := p.mode, p.control
		p.mu.Unlock()
		switch {
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/fulfillments/"):
			id := strings.TrimPrefix(r.URL.Path, "/fulfillments/")
			expiry := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
			body, err := json.Marshal(&osdm.FulfillmentResponse{
				Fulfillment: &osdm.Fulfillment{ID: id, Status: osdm.FulfillmentFulfilled, BookingRef: "unused", CreatedOn: time.Now().UTC().Truncate(time.Second), ControlNumber: control},
				FulfillmentDocuments: []osdm.FulfillmentDocument{{ID: "doc-" + id, Medium: osdm.FulfillmentMediaPDFA4, Type: osdm.DocumentTicket, Format: osdm.FormatPDF,
					DownloadLink: "https://documents.alpine.example/documents/" + id + ".pdf?sig=s3cr3t", DownloadExpiry: &expiry}},
			})
			if err != nil {
				t.Error(err)
			}
			osdmspec.ValidateResponse(t, osdmspec.V39, r.Method, r.URL.Path, http.StatusOK, nil, body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
			return true
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/documents/"):
			p.mu.Lock()
			p.auth, p.path = r.Header.Get("Authenticate"), r.URL.RequestURI()
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/pdf")
			switch mode {
			case "ok":
				_, _ = w.Write(linkedPDF)
			case "broken":
				_, _ = w.Write([]byte("<html>Please log in</html>"))
			case "slow":
				<-r.Context().Done()
			case "huge":
				chunk := bytes.Repeat([]byte("%PDF"), 16<<10)
				for range 1024 { // 64 MiB, if it were all read
					n, err := w.Write(chunk)
					p.mu.Lock()
					p.written += n
					p.mu.Unlock()
					if err != nil {
						break
					}
					http.NewResponseController(w).Flush()
				}
			}
			return true
		}
		return false
	}
}

// TestExampleChainTicketByLink: through Caddyfile.example's chain (one
// real Caddy: osdm_convert, osdm_token, osdm_login, osdm_access, the
// sandbox), a legacy system books, then asks for the ticket; the
// partner gives it as a downloadLink, which osdm_convert follows through
// the same route with the same access token, asking the partner's own
// host for the link's path and query, and answers the document whole, in
// XML and JSON. A document above max_document is DOCUMENT_TOO_LARGE and
// not read to its end; one that is no PDF is refused as broken; one that
// does not come in time is a retryable PARTNER_TIMEOUT.
func TestExampleChainTicketByLink(t *testing.T) {
	c := startExampleChainWith(t, chainOptions{edit: func(cf string) string {
		return strings.Replace(cf, "timeout 20s", "timeout 5s\n\t\t\tmax_document 64KiB", 1)
	}})
	partner := &documentPartner{}
	c.alpine.mu.Lock()
	c.alpine.intercept = partner.intercept(t)
	c.alpine.mu.Unlock()

	for _, f := range testFormats {
		t.Run(f.String(), func(t *testing.T) {
			status, r := c.send(t, "alpine", f, &legacy.BookingRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "book")}, Journey: journeyOn("9203"),
				Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}), Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Müller"}},
			})
			booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)

			ask := func(mode, step string) (int, legacy.Reply) {
				partner.set(mode, booked.TicketControlNumber)
				return c.send(t, "alpine", f, &legacy.TicketRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, step)}, BookingRef: booked.BookingRef})
			}

			status, r = ask("ok", "ticket")
			tr := must[*legacy.TicketReply](t, status, r, http.StatusOK)
			if tr.BookingRef != booked.BookingRef || len(tr.Tickets) != 1 || tr.Tickets[0].TicketControlNumber != booked.TicketControlNumber ||
				tr.Tickets[0].Status != "FULFILLED" || len(tr.Tickets[0].Documents) != 1 {
				t.Fatalf("TicketReply %+v", tr)
			}
			d := tr.Tickets[0].Documents[0]
			if !bytes.Equal(d.Content, linkedPDF) || d.Format != "application/pdf" || d.Medium != "PDF_A4" || d.Type != "TICKET" {
				t.Errorf("document %s %s %s %q", d.Format, d.Medium, d.Type, d.Content)
			}
			partner.mu.Lock()
			auth, path := partner.auth, partner.path
			partner.mu.Unlock()
			c.alpine.mu.Lock()
			bearer := c.alpine.bearer
			c.alpine.mu.Unlock()
			if auth == "" || auth != bearer {
				t.Errorf("the download carried Authenticate %q, the other calls %q", auth, bearer)
			}
			if want := "/documents/"; !strings.HasPrefix(path, want) || !strings.HasSuffix(path, ".pdf?sig=s3cr3t") {
				t.Errorf("the download asked the partner for %q", path)
			}

			status, r = ask("huge", "huge")
			if n := must[*legacy.NegativeReply](t, status, r, http.StatusBadGateway); n.Code != legacy.CodeDocumentTooLarge || n.Retryable ||
				n.BookingRef != booked.BookingRef || !strings.Contains(n.Text, "max_document 65536 bytes") {
				t.Errorf("huge document: %+v", n)
			}
			partner.mu.Lock()
			written := partner.written
			partner.mu.Unlock()
			if written >= 16<<20 {
				t.Errorf("the partner wrote %d bytes of the huge document before osdm_convert stopped reading", written)
			}

			status, r = ask("broken", "broken")
			if n := must[*legacy.NegativeReply](t, status, r, http.StatusBadGateway); n.Code != legacy.CodePartnerUnavailable || n.Retryable ||
				!strings.Contains(n.Text, "does not start with %PDF-") || strings.Contains(n.Text, "s3cr3t") {
				t.Errorf("broken document: %+v", n)
			}

			if f == legacy.XML {
				status, r = ask("slow", "slow")
				if n := must[*legacy.NegativeReply](t, status, r, http.StatusGatewayTimeout); n.Code != legacy.CodePartnerTimeout || !n.Retryable {
					t.Errorf("slow document: %+v", n)
				}
			}
		})
	}
}

// TestExampleChainTicketFromSandbox: end to end through Caddyfile.example
// (osdm_convert, osdm_token, osdm_login, osdm_access, osdm_sandbox in one
// real Caddy), a legacy system books, the partner fulfils, and a
// TicketRequest in XML and in JSON gets the partner's ticket: a PDF that
// poppler reads, showing the booking's train, date, reservation
// reference and control number and every passenger's last name, the same
// bytes each time; every OSDM call and answer on the way validates
// against the spec (the tap checks them). Refunded, the booking's ticket
// is refused naming its state.
func TestExampleChainTicketFromSandbox(t *testing.T) {
	pdfcheck.NeedText(t)
	c := startExampleChain(t)
	status, r := c.send(t, "alpine", legacy.XML, &legacy.BookingRequest{
		Header: legacy.Header{MessageID: harness.MsgID(t, legacy.XML, "book")}, Journey: journeyOn("9203"),
		Places:     secondClassSeats(legacy.Tariff{Code: 1, Count: 1}, legacy.Tariff{Code: 2, Count: 1}),
		Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Müller"}, {FirstName: "Ἀλέξανδρος", LastName: "Καραμανλής"}},
	})
	booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	c.alpine.take()

	var first []byte
	for _, f := range testFormats {
		status, r := c.send(t, "alpine", f, &legacy.TicketRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "ticket")}, BookingRef: booked.BookingRef})
		tr := must[*legacy.TicketReply](t, status, r, http.StatusOK)
		if tr.BookingRef != booked.BookingRef || len(tr.Tickets) != 1 || tr.Tickets[0].Status != "FULFILLED" ||
			tr.Tickets[0].TicketControlNumber != booked.TicketControlNumber || len(tr.Tickets[0].Documents) != 1 {
			t.Fatalf("%v: TicketReply %+v", f, tr)
		}
		d := tr.Tickets[0].Documents[0]
		if d.Format != "application/pdf" || d.Medium != "PDF_A4" || d.Type != "TICKET" || d.ControlNumber != booked.TicketControlNumber {
			t.Errorf("%v: document %s %s %s %s", f, d.Format, d.Medium, d.Type, d.ControlNumber)
		}
		if info := pdfcheck.Info(t, d.Content); info["Pages"] != "1" {
			t.Errorf("%v: pdfinfo %v", f, info)
		}
		text := strings.Join(strings.Fields(pdfcheck.Text(t, d.Content)), " ")
		for _, want := range []string{"9203", booked.ReservationReference, booked.TicketControlNumber, journeyOn("9203").DepartureDate, "Müller", "Καραμανλής"} {
			if !strings.Contains(text, want) {
				t.Errorf("%v: the ticket does not show %q:\n%s", f, want, text)
			}
		}
		if first == nil {
			first = d.Content
		} else if !bytes.Equal(first, d.Content) {
			t.Errorf("the second TicketRequest got other bytes")
		}
	}
	var steps []string
	for _, ex := range c.alpine.take() {
		steps = append(steps, ex.Method+" "+ex.Path)
	}
	if got := strings.Join(steps, ", "); strings.Count(got, "GET /bookings/"+booked.BookingRef) != 2 || strings.Count(got, "GET /fulfillments/") != 2 {
		t.Errorf("the partner got %s", got)
	}

	status, r = c.send(t, "alpine", legacy.XML, &legacy.CancelRequest{Header: legacy.Header{MessageID: harness.MsgID(t, legacy.XML, "cancel")}, BookingRef: booked.BookingRef})
	must[*legacy.CancelReply](t, status, r, http.StatusOK)
	status, r = c.send(t, "alpine", legacy.JSON, &legacy.TicketRequest{Header: legacy.Header{MessageID: harness.MsgID(t, legacy.JSON, "refunded")}, BookingRef: booked.BookingRef})
	if n := must[*legacy.NegativeReply](t, status, r, http.StatusBadRequest); n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "REFUNDED") {
		t.Errorf("ticket of a refunded booking: %+v", n)
	}
}
