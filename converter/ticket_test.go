package converter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// ticketPDF is a document that passes the PDF checks.
var ticketPDF = []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")

func ticketRequest(id string) *legacy.TicketRequest {
	return &legacy.TicketRequest{Header: legacy.Header{MessageID: id}, BookingRef: "b-4711"}
}

// ticketBooking is the golden booking with one fulfilment of status.
func ticketBooking(t testing.TB, statuses ...string) []byte {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join("testdata", "golden", "cancel_refund"), "booking.json"), &b); err != nil {
		t.Fatal(err)
	}
	booking := b["booking"].(map[string]any)
	var fs []any
	for i, s := range statuses {
		fs = append(fs, map[string]any{"id": fmt.Sprintf("ful-%d", i+1), "status": s, "bookingRef": "b-4711",
			"createdOn": "2026-11-21T10:00:02Z", "controlNumber": fmt.Sprintf("CN-%d", i+1)})
	}
	booking["fulfillments"] = fs
	return osdmspec.Marshal(t, b)
}

// fulfillmentAnswer is a GET /fulfillments/{id} answer of status with the
// given documents in its top-level list.
func fulfillmentAnswer(t testing.TB, id, status string, docs ...map[string]any) []byte {
	t.Helper()
	a := map[string]any{"fulfillment": map[string]any{"id": id, "status": status, "bookingRef": "b-4711",
		"createdOn": "2026-11-21T10:00:02Z", "controlNumber": "CN-" + id}}
	if len(docs) > 0 {
		a["fulfillmentDocuments"] = docs
	}
	return osdmspec.Marshal(t, a)
}

func pdfDocument(content []byte) map[string]any {
	return map[string]any{"medium": "PDF_A4", "type": "TICKET", "format": "application/pdf", "content": base64.StdEncoding.EncodeToString(content)}
}

func linkDocument(link string) map[string]any {
	return map[string]any{"medium": "PDF_A4", "type": "TICKET", "format": "application/pdf", "downloadLink": link, "downloadExpiry": "2026-11-21T11:00:00Z"}
}

// runTicket answers a TicketRequest from script, in both forms, checks
// that every OSDM call but a download validates against the spec, and
// returns the XML run's result and calls.
func runTicket(t *testing.T, cfg Config, answers []scriptedAnswer) (*Result, []*Call) {
	t.Helper()
	c := testConverter(t, cfg)
	var first *Result
	var calls []*Call
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		s := &scripted{t: t, answers: answers}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res := c.Convert(ctx, ticketRequest("T-1"), s)
		cancel()
		checkStatus(t, res)
		out, err := legacy.Encode(f, res.Reply)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := legacy.DecodeReply(f, out); err != nil {
			t.Fatalf("the %v reply does not decode: %v", f, err)
		}
		for _, call := range s.calls {
			if call.Step != StepDocument {
				osdmspec.ValidateRequest(t, osdmspec.V39, call.Method, call.Path, call.Header, call.Body)
			}
		}
		if first == nil {
			first, calls = res, s.calls
		}
	}
	return first, calls
}

// TestTicketDocumentTooLarge: a document above max_document, inline or
// downloaded, is refused with DOCUMENT_TOO_LARGE, not retryable, and no
// part of it is answered; the download is asked with the bound as the
// call's MaxAnswer, and answers that may carry documents with room for
// four of them.
func TestTicketDocumentTooLarge(t *testing.T) {
	cfg := Config{MaxDocument: int64(len(ticketPDF) - 1)}
	for name, answers := range map[string][]scriptedAnswer{
		"inline": {
			{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
			{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", pdfDocument(ticketPDF))},
		},
		"downloaded": {
			{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
			{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", linkDocument("https://p.example/d/1"))},
			{step: StepDocument, status: 200, body: ticketPDF},
		},
		"cut off by the caller": {
			{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
			{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", linkDocument("https://p.example/d/1"))},
			{step: StepDocument, err: fmt.Errorf("%w: longer than 98 bytes", ErrAnswerTooLarge)},
		},
	} {
		t.Run(name, func(t *testing.T) {
			res, calls := runTicket(t, cfg, answers)
			n := negativeOf(t, res)
			if n.Code != legacy.CodeDocumentTooLarge || n.Retryable || n.BookingRef != "b-4711" || res.Status != http.StatusBadGateway {
				t.Fatalf("%d %+v", res.Status, n)
			}
			if !strings.Contains(n.Text, fmt.Sprintf("max_document %d bytes", cfg.MaxDocument)) {
				t.Errorf("text %q does not name the bound", n.Text)
			}
			docs := 4*int64(base64.StdEncoding.EncodedLen(len(ticketPDF)-1)) + 1<<20
			for _, c := range calls {
				want := docs
				if c.Step == StepDocument {
					want = cfg.MaxDocument
				}
				if c.MaxAnswer != want {
					t.Errorf("%s: MaxAnswer %d, want %d", c.Step, c.MaxAnswer, want)
				}
			}
		})
	}
	// A booking answer that the caller cut off is refused the same way.
	res, _ := runTicket(t, Config{}, []scriptedAnswer{{step: StepReadBooking, err: ErrAnswerTooLarge}})
	if n := negativeOf(t, res); n.Code != legacy.CodeDocumentTooLarge {
		t.Errorf("booking answer too large: %+v", n)
	}
}

// TestTicketBrokenDocument: a document the partner gives broken (content
// not base64, bytes that are not the format said, a PDF cut off, no
// content at all, a link that cannot be followed) is refused with a
// NegativeReply that says what is wrong, not retryable, never part of a
// TicketReply; a link's query (which may hold a signature) is never in
// the text.
func TestTicketBrokenDocument(t *testing.T) {
	png := map[string]any{"medium": "PDF_A4", "type": "TICKET", "format": "image/png", "content": base64.StdEncoding.EncodeToString(ticketPDF)}
	none := map[string]any{"medium": "PDF_A4", "type": "TICKET", "format": "application/pdf"}
	badBase64 := strings.Replace(string(fulfillmentAnswer(t, "ful-1", "FULFILLED", pdfDocument(ticketPDF))), `"content":"`, `"content":"*`, 1)
	for _, c := range []struct {
		name    string
		answers []scriptedAnswer
		want    string
	}{
		{"content not base64", []scriptedAnswer{{status: 200, body: []byte(badBase64)}}, "/fulfillmentDocuments/0/content is not base64"},
		{"not a PDF", []scriptedAnswer{{status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", pdfDocument([]byte("<html>ticket</html>")))}},
			"does not start with %PDF-"},
		{"PDF cut off", []scriptedAnswer{{status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", pdfDocument(ticketPDF[:40]))}},
			"has no %%EOF at its end"},
		{"PDF said to be PNG", []scriptedAnswer{{status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", png)}}, "is not a PNG"},
		{"no content, no link", []scriptedAnswer{{status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", none)}}, "neither content nor a downloadLink"},
		{"link with credentials", []scriptedAnswer{{status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", linkDocument("https://u:s3cr3t@p.example/d"))}},
			"carries credentials"},
		{"link not http", []scriptedAnswer{{status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", linkDocument("ftp://p.example/d"))}},
			"is not http or https"},
		{"downloaded not a PDF", []scriptedAnswer{
			{status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", linkDocument("https://p.example/d?sig=s3cr3t"))},
			{step: StepDocument, status: 200, body: []byte("<html>login</html>")}}, "does not start with %PDF-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			answers := append([]scriptedAnswer{{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")}}, c.answers...)
			answers[1].step = StepReadFulfillment
			res, _ := runTicket(t, Config{}, answers)
			n := negativeOf(t, res)
			if n.Code != legacy.CodePartnerUnavailable || n.Retryable || n.BookingRef != "b-4711" {
				t.Fatalf("%+v", n)
			}
			if !strings.Contains(n.Text, "broken ticket document") || !strings.Contains(n.Text, c.want) || !strings.Contains(n.Text, "fulfilment ful-1") && c.name != "content not base64" {
				t.Errorf("text %q, want it to say %q", n.Text, c.want)
			}
			if strings.Contains(n.Text, "s3cr3t") {
				t.Errorf("the link's secret is in the text: %q", n.Text)
			}
		})
	}
}

// TestTicketPartnerFails: a partner that does not answer in time, fails,
// or no longer serves a download link gets the legacy system a NegativeReply
// that says whether to try again, naming the booking.
func TestTicketPartnerFails(t *testing.T) {
	booking := scriptedAnswer{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")}
	link := scriptedAnswer{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", linkDocument("https://p.example/d/1?sig=s3cr3t"))}
	for _, c := range []struct {
		name      string
		answers   []scriptedAnswer
		code      legacy.Code
		retryable bool
	}{
		{"fulfilment never answered", []scriptedAnswer{booking, {step: StepReadFulfillment, wait: true}}, legacy.CodePartnerTimeout, true},
		{"download never answered", []scriptedAnswer{booking, link, {step: StepDocument, wait: true}}, legacy.CodePartnerTimeout, true},
		{"fulfilment 503", []scriptedAnswer{booking, {step: StepReadFulfillment, status: 503, body: problemBody("urn:uic:problem:SERVICE_UNAVAILABLE")}},
			legacy.CodePartnerUnavailable, true},
		{"download broke off", []scriptedAnswer{booking, link, {step: StepDocument, err: errors.New("unexpected EOF")}}, legacy.CodePartnerUnavailable, true},
		{"link gone", []scriptedAnswer{booking, link, {step: StepDocument, status: 404}}, legacy.CodePartnerRejected, true},
		{"booking answer not JSON", []scriptedAnswer{{step: StepReadBooking, status: 200, body: []byte("<html/>")}}, legacy.CodePartnerUnavailable, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			c := c
			conv := testConverter(t, Config{})
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			res := conv.Convert(ctx, ticketRequest("T-2"), &scripted{t: t, answers: c.answers})
			checkStatus(t, res)
			n := negativeOf(t, res)
			if n.Code != c.code || n.Retryable != c.retryable || n.BookingRef != "b-4711" {
				t.Fatalf("%+v", n)
			}
			if strings.Contains(n.Text, "s3cr3t") {
				t.Errorf("the link's secret is in the text: %q", n.Text)
			}
		})
	}
}

func problemBody(code string) []byte {
	return []byte(`{"code":"` + code + `","title":"down"}`)
}

// TestTicketNeverPartial: when one fulfilment's documents are ready and
// another's are not, the reply is TICKET_NOT_READY, not half the tickets;
// a fulfilled fulfilment without any document (ticketless) is a Ticket
// with its control number only.
func TestTicketNeverPartial(t *testing.T) {
	res, _ := runTicket(t, Config{}, []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED", "CONFIRMED")},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", pdfDocument(ticketPDF))},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-2", "CONFIRMED")},
	})
	if n := negativeOf(t, res); n.Code != legacy.CodeTicketNotReady || !n.Retryable || !strings.Contains(n.Text, "ful-2") {
		t.Fatalf("%+v", n)
	}
	res, _ = runTicket(t, Config{}, []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED")},
	})
	tr, isTicket := res.Reply.(*legacy.TicketReply)
	if !isTicket || len(tr.Tickets) != 1 || tr.Tickets[0].TicketControlNumber != "CN-ful-1" || len(tr.Tickets[0].Documents) != 0 {
		t.Fatalf("ticketless: %+v", res.Reply)
	}
}

// TestTicketFulfillmentNotServed: a partner that does not serve GET
// /fulfillments/{id} (404, 501) gets its documents read from the
// booking's answer.
func TestTicketFulfillmentNotServed(t *testing.T) {
	var b map[string]any
	if err := json.Unmarshal(ticketBooking(t, "FULFILLED"), &b); err != nil {
		t.Fatal(err)
	}
	b["booking"].(map[string]any)["fulfillmentDocuments"] = []any{pdfDocument(ticketPDF)}
	for _, status := range []int{404, 501} {
		res, _ := runTicket(t, Config{}, []scriptedAnswer{
			{step: StepReadBooking, status: 200, body: osdmspec.Marshal(t, b)},
			{step: StepReadFulfillment, status: status},
		})
		tr, isTicket := res.Reply.(*legacy.TicketReply)
		if !isTicket || len(tr.Tickets) != 1 || len(tr.Tickets[0].Documents) != 1 || string(tr.Tickets[0].Documents[0].Content) != string(ticketPDF) {
			t.Fatalf("%d: %+v", status, res.Reply)
		}
	}
}

// TestTicketNotKept: a TicketRequest writes nothing to the journal's
// store and its reply is not kept for resends: the same message sent
// again reads the partner again (a ticket issued since is then answered).
func TestTicketNotKept(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	rc := NewReplyCache(10, time.Minute, fixedNow)
	req := ticketRequest("T-3")
	body := encodedBody(t, req)
	notReady := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: ticketBooking(t, "CONFIRMED")},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "CONFIRMED")},
	}}
	ready := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", pdfDocument(ticketPDF))},
	}}
	for i, x := range []*scripted{notReady, ready} {
		res, shared := rc.Do(context.Background(), req.MessageID(), body, func() *Result {
			res, _ := j.Do(context.Background(), req, body, x)
			return res
		})
		if shared || len(x.calls) != 2 {
			t.Fatalf("send %d: shared %v, %d calls", i+1, shared, len(x.calls))
		}
		if want := []legacy.Kind{legacy.KindNegativeReply, legacy.KindTicketReply}[i]; res.Reply.Kind() != want {
			t.Fatalf("send %d: %s, want %s", i+1, res.Reply.Kind(), want)
		}
	}
	if s.Writes() != 0 || rc.Len() != 0 {
		t.Errorf("%d store writes, %d replies kept", s.Writes(), rc.Len())
	}
}

// TestLinkPath: a downloadLink is asked through the route by its path
// and query, resolved against the answer that gave it; what cannot be
// followed says why.
func TestLinkPath(t *testing.T) {
	for _, c := range []struct{ base, link, path, why string }{
		{"/fulfillments/f-1", "https://partner.example/osdm/docs/1.pdf?sig=a%2Fb", "/osdm/docs/1.pdf?sig=a%2Fb", ""},
		{"/osdm/fulfillments/f-1", "docs/1.pdf", "/osdm/fulfillments/docs/1.pdf", ""},
		{"/osdm/fulfillments/f-1", "/osdm/docs/../tickets/1", "/osdm/tickets/1", ""},
		{"/fulfillments/f-1", "https://p.example/a%20b", "/a%20b", ""},
		{"/fulfillments/f-1", "mailto:x@p.example", "", "is not http or https"},
		{"/fulfillments/f-1", "https://user:pw@p.example/d", "", "carries credentials"},
		{"/fulfillments/f-1", "https://p.example/%zz", "", "is not a URI"},
	} {
		path, why := linkPath(c.base, c.link)
		if path != c.path || why != c.why {
			t.Errorf("linkPath(%q, %q) = %q, %q; want %q, %q", c.base, c.link, path, why, c.path, c.why)
		}
	}
}

// TestTicketClosedSinceTheBooking: a fulfilment that its own answer says
// is refunded (since the booking was read) is answered with that status
// and without the documents it still lists.
func TestTicketClosedSinceTheBooking(t *testing.T) {
	res, _ := runTicket(t, Config{}, []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "REFUNDED", pdfDocument(ticketPDF))},
	})
	tr, isTicket := res.Reply.(*legacy.TicketReply)
	if !isTicket || len(tr.Tickets) != 1 || tr.Tickets[0].Status != "REFUNDED" || len(tr.Tickets[0].Documents) != 0 {
		t.Fatalf("%+v", res.Reply)
	}
}

// TestTicketReplyBounded: documents that are each within max_document but
// together more than a TicketReply carries are refused with
// DOCUMENT_TOO_LARGE, not answered in part.
func TestTicketReplyBounded(t *testing.T) {
	c := testConverter(t, Config{})
	c.maxTickets = int64(len(ticketPDF)) + 10
	res := c.Convert(context.Background(), ticketRequest("T-4"), &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED", "FULFILLED")},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", pdfDocument(ticketPDF))},
		{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-2", "FULFILLED", pdfDocument(ticketPDF))},
	}})
	if n := negativeOf(t, res); n.Code != legacy.CodeDocumentTooLarge || n.Retryable || !strings.Contains(n.Text, "together") {
		t.Fatalf("%+v", n)
	}
}

// FuzzTicketAnswer lets the partner answer one call of a TicketRequest
// (the booking, the fulfilment, a download) with any status and bytes,
// the others working: Convert never panics, follows the status rule, and
// a TicketReply it gives holds only whole documents (within max_document
// and of the format they name), never a part of one.
func FuzzTicketAnswer(f *testing.F) {
	dir := filepath.Join("testdata", "golden", "ticket_download_link")
	valid := map[Step][]byte{
		StepReadBooking:     readFile(f, dir, "booking.json"),
		StepReadFulfillment: readFile(f, dir, "fulfillment.json"),
		StepDocument:        readFile(f, dir, "ticket.pdf"),
	}
	inline := readFile(f, filepath.Join("testdata", "golden", "ticket_content"), "fulfillment.json")
	for call := range 4 {
		for _, body := range [][]byte{nil, []byte("{"), valid[StepReadBooking], valid[StepReadFulfillment], inline, valid[StepDocument],
			valid[StepDocument][:20], []byte(`{"fulfillment":{"id":"f","status":"CONFIRMED"},"fulfillmentDocuments":[{"medium":"PDF_A4","type":"TICKET","format":"application/pdf","content":"JVBERi0="}]}`)} {
			for _, status := range []int{200, 404, 501, 503} {
				f.Add(uint8(call), status, body)
			}
		}
	}
	c := testConverter(f, Config{MaxDocument: 4096})
	f.Fuzz(func(t *testing.T, call uint8, status int, body []byte) {
		n := 0
		x := CallerFunc(func(_ context.Context, cl *Call) (*Answer, error) {
			n++
			if n-1 == int(call%4) {
				return &Answer{Status: status, Header: http.Header{}, Body: body}, nil
			}
			return &Answer{Status: http.StatusOK, Header: http.Header{}, Body: valid[cl.Step]}, nil
		})
		res := c.Convert(context.Background(), ticketRequest("FZ-T"), x)
		checkReply(t, res)
		if tr, isTicket := res.Reply.(*legacy.TicketReply); isTicket {
			for _, tk := range tr.Tickets {
				for _, d := range tk.Documents {
					if len(d.Content) == 0 || len(d.Content) > 4096 || formatMismatch(d.Format, d.Content) != "" {
						t.Fatalf("a document of %d bytes, format %s, was answered", len(d.Content), d.Format)
					}
				}
			}
		}
		if n > 6 {
			t.Errorf("%d calls", n)
		}
	})
}

// TestAnswerTooLargeOutsideTickets: an answer the Caller cut off at its
// own bound, on a call that carries no documents, is a retryable
// PARTNER_UNAVAILABLE that says so, not DOCUMENT_TOO_LARGE.
func TestAnswerTooLargeOutsideTickets(t *testing.T) {
	c := testConverter(t, Config{})
	res := c.Convert(context.Background(), availabilityRequest("AT-1"), &scripted{t: t, answers: []scriptedAnswer{
		{step: StepOffers, err: fmt.Errorf("%w: longer than 8388608 bytes", ErrAnswerTooLarge)},
	}})
	if n := negativeOf(t, res); n.Code != legacy.CodePartnerUnavailable || !n.Retryable || !strings.Contains(n.Text, "more than the gateway reads") {
		t.Fatalf("%+v", n)
	}
}

// TestTicketUnfitAnswer: a booking or fulfilment whose ids, status or
// document codes a TicketReply cannot carry is refused, not retryable,
// saying what, rather than answered with a reply a legacy client cannot
// read.
func TestTicketUnfitAnswer(t *testing.T) {
	badMedium := pdfDocument(ticketPDF)
	badMedium["medium"] = "PDF A4"
	for _, c := range []struct {
		name    string
		answers []scriptedAnswer
		want    string
	}{
		{"fulfilment id with a space", []scriptedAnswer{{step: StepReadBooking, status: 200,
			body: []byte(strings.Replace(string(ticketBooking(t, "REFUNDED", "FULFILLED")), `"ful-1"`, `"ful 1"`, 1))}}, "FulfilmentRef cannot carry"},
		{"status not in OSDM", []scriptedAnswer{{step: StepReadBooking, status: 200, body: ticketBooking(t, "PENDING")}}, `"PENDING", which is not an OSDM fulfilment status`},
		{"fulfilment answer's status not in OSDM", []scriptedAnswer{{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
			{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "DONE", pdfDocument(ticketPDF))}}, `"DONE"`},
		{"medium with a space", []scriptedAnswer{{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
			{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", badMedium)}}, `"PDF A4"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := testConverter(t, Config{}).Convert(context.Background(), ticketRequest("T-5"), &scripted{t: t, answers: c.answers})
			checkReply(t, res)
			n := negativeOf(t, res)
			if n.Code != legacy.CodePartnerUnavailable || n.Retryable || n.BookingRef != "b-4711" || !strings.Contains(n.Text, c.want) {
				t.Fatalf("%+v", n)
			}
		})
	}
}

// TestTicketReplyItemsBounded: a booking with more fulfilments, or a
// fulfilment with more documents, than one TicketReply carries (100) is
// refused with DOCUMENT_TOO_LARGE saying how many, not answered with the
// first hundred.
func TestTicketReplyItemsBounded(t *testing.T) {
	statuses := make([]string, legacy.MaxItems+1)
	for i := range statuses {
		statuses[i] = "FULFILLED"
	}
	docs := make([]map[string]any, legacy.MaxItems+1)
	for i := range docs {
		docs[i] = pdfDocument(ticketPDF)
	}
	for _, tc := range []struct {
		name    string
		answers []scriptedAnswer
		says    string
	}{
		{"fulfilments", []scriptedAnswer{{step: StepReadBooking, status: 200, body: ticketBooking(t, statuses...)}}, "has 101 fulfilments"},
		{"documents", []scriptedAnswer{
			{step: StepReadBooking, status: 200, body: ticketBooking(t, "FULFILLED")},
			{step: StepReadFulfillment, status: 200, body: fulfillmentAnswer(t, "ful-1", "FULFILLED", docs...)},
		}, "has 101 documents in fulfilment ful-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConverter(t, Config{})
			res := c.Convert(context.Background(), ticketRequest("T-5"), &scripted{t: t, answers: tc.answers})
			if n := negativeOf(t, res); n.Code != legacy.CodeDocumentTooLarge || n.Retryable || !strings.Contains(n.Text, tc.says) {
				t.Fatalf("%+v", n)
			}
		})
	}
}
