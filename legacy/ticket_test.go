package legacy

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// ticketRuleCases are the rules of a TicketRequest, run by TestRules.
func ticketRuleCases() []ruleCase {
	tr := sampleTicketRequest()
	return []ruleCase{
		{name: "TicketRequest BookingRef missing", base: tr, rule: ruleRequired,
			xml: []string{"<BookingRef>b-4711</BookingRef>", ""}, xmlField: "BookingRef",
			json: []string{`,"bookingRef":"b-4711"`, ""}, jsonField: "bookingRef"},
		{name: "TicketRequest BookingRef with a space", base: tr, rule: ruleRef,
			xml: []string{"b-4711", "b 4711"}, xmlField: "BookingRef",
			json: []string{"b-4711", "b 4711"}, jsonField: "bookingRef"},
		{name: "TicketRequest with a Journey", base: tr, rule: "is not a known element here",
			xml: []string{"</BookingRef>", "</BookingRef><Journey/>"}, xmlField: "Journey"},
		{name: "TicketRequest with text", base: tr, rule: "must hold elements, not text",
			xml: []string{"</BookingRef>", "</BookingRef>tickets please"}, xmlField: ""},
		{name: "TicketRequest with tickets", base: tr, rule: "is not a known field here",
			json: []string{`"bookingRef"`, `"tickets":[],"bookingRef"`}, jsonField: "tickets"},
	}
}

// TestTicketReplyRules: a client reading a TicketReply refuses a document
// whose content is missing or not base64, or that holds elements, and a
// ticket without its fulfilment or status; each error names the path.
func TestTicketReplyRules(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     Format
		pairs []string
		field string
		rule  string
	}{
		{"content not base64", XML, []string{"iVBOR/v//g==", "iVBOR/v//g="}, "Ticket[1]/Document[2]", ruleContent},
		{"content not base64", JSON, []string{"iVBOR/v//g==", "iVBOR*v//g=="}, "tickets[0].documents[1].content", ruleContent},
		{"content missing", XML, []string{">iVBOR/v//g==<", "><"}, "Ticket[1]/Document[2]", ruleRequired},
		{"content missing", JSON, []string{`,"content":"iVBOR/v//g=="`, ""}, "tickets[0].documents[1].content", ruleRequired},
		{"content a number", JSON, []string{`"iVBOR/v//g=="`, "12"}, "tickets[0].documents[1].content", "must be a string, not a number"},
		{"document with an element", XML, []string{"iVBOR/v//g==", "iVBOR/v//g==<Page/>"}, "Ticket[1]/Document[2]/Page", "is not a known element here"},
		{"document without format", XML, []string{`format="image/png" `, ""}, "Ticket[1]/Document[2]/@format", ruleRequired},
		{"format with a space", JSON, []string{"image/png", "image png"}, "tickets[0].documents[1].format", ruleFormat},
		{"medium not a token", XML, []string{`medium="PDF_A4" type="BOOKING`, `medium="PDF A4" type="BOOKING`}, "Ticket[1]/Document[2]/@medium", ruleToken},
		{"ticket without status", JSON, []string{`"status":"REFUNDED",`, ""}, "tickets[1].status", ruleRequired},
		{"ticket without fulfilment", XML, []string{"<FulfilmentRef>ful-4712</FulfilmentRef>", ""}, "Ticket[2]/FulfilmentRef", ruleRequired},
		{"ticket with text", XML, []string{"<Status>REFUNDED</Status>", "<Status>REFUNDED</Status>pdf"}, "Ticket[2]", "must hold elements, not text"},
	} {
		t.Run(c.name+"/"+c.f.String(), func(t *testing.T) {
			e, body := refusedEdit(t, c.f, sampleTicketReply(), c.pairs, decodeReply)
			if e.Code != CodeInvalidMessage || e.Field != c.field || e.Rule != c.rule {
				t.Errorf("got %s %q %q, want field %q rule %q\n%s", e.Code, e.Field, e.Rule, c.field, c.rule, body)
			}
		})
	}
}

// TestTicketKinds: the server takes a TicketRequest and the client a
// TicketReply, each only on its own side.
func TestTicketKinds(t *testing.T) {
	for _, f := range []Format{XML, JSON} {
		b, _ := Encode(f, sampleTicketRequest())
		if _, err := DecodeReply(f, b); err == nil {
			t.Errorf("%v: DecodeReply took a TicketRequest", f)
		}
		b, _ = Encode(f, sampleTicketReply())
		var e *Error
		if _, err := Decode(f, b); !errors.As(err, &e) || e.Code != CodeUnsupportedMessage {
			t.Errorf("%v: Decode of a TicketReply: %v", f, err)
		}
	}
}

// TestTicketReplyLargeDocument: a TicketReply carries documents far larger
// than any request (a 4 MiB PDF) whole in both forms, and a client reads
// it back byte for byte; a request that large is still refused.
func TestTicketReplyLargeDocument(t *testing.T) {
	content := bytes.Repeat([]byte("%PDF\x00\xff\n"), (4<<20)/7)
	m := sampleTicketReply()
	m.Tickets[0].Documents[0].Content = content
	for _, f := range []Format{XML, JSON} {
		b, err := Encode(f, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) <= MaxBodyBytes {
			t.Fatalf("%v: the reply is only %d bytes", f, len(b))
		}
		got, err := DecodeReply(f, b)
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		if !reflect.DeepEqual(got, Reply(m)) {
			t.Errorf("%v: the document changed on the way", f)
		}
		req := append(bytes.Clone(b[:0:0]), b...)
		var e *Error
		if _, err := Decode(f, req); !errors.As(err, &e) || !errors.Is(e, ErrTooLarge) {
			t.Errorf("%v: a request of %d bytes: %v", f, len(req), err)
		}
	}
	huge := bytes.Repeat([]byte("A"), MaxReplyBytes+1)
	var e *Error
	if _, err := DecodeReply(JSON, huge); !errors.As(err, &e) || !errors.Is(e, ErrTooLarge) {
		t.Errorf("a reply above MaxReplyBytes: %v", err)
	}
}

// FuzzDecodeTicketRequest reads TicketRequests in both forms: the reader
// never panics, fails only with an *Error a client can read back, and a
// TicketRequest it takes names a booking reference the converter can use
// and survives a round trip.
func FuzzDecodeTicketRequest(f *testing.F) {
	for _, format := range []Format{XML, JSON} {
		b, err := Encode(format, sampleTicketRequest())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, format == JSON)
	}
	f.Add([]byte(`<TicketRequest messageId="t"><BookingRef>b</BookingRef><BookingRef>c</BookingRef></TicketRequest>`), false)
	f.Add([]byte(`{"type":"TicketRequest","messageId":"t","bookingRef":"b\u0000"}`), true)
	f.Add([]byte(`<TicketRequest messageId="t"><BookingRef>b<!-- x --></BookingRef>text</TicketRequest>`), false)
	f.Fuzz(func(t *testing.T, body []byte, json bool) {
		format := XML
		if json {
			format = JSON
		}
		checkDecode(t, format, body)
		req, err := Decode(format, body)
		if err != nil {
			return
		}
		if tr, ok := req.(*TicketRequest); ok && !ValidRef(tr.BookingRef) {
			t.Fatalf("took BookingRef %q", tr.BookingRef)
		}
	})
}
