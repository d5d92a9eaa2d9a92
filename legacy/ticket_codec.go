package legacy

import "encoding/base64"

// The read and write functions of the ticket messages.

const (
	ruleFormat  = "must be a MIME type such as application/pdf: 1..128 printable ASCII characters without spaces"
	ruleContent = "must be the document's bytes in base64 (RFC 4648, with padding)"
)

func readTicketRequest(r *reader) *TicketRequest {
	m := &TicketRequest{Header: readHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, validRef, ruleRef)
	return m
}

func writeTicketRequest(w *writer, m *TicketRequest) {
	writeHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
}

func readTicketReply(r *reader) *TicketReply {
	m := &TicketReply{Header: readReplyHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, validRef, ruleRef)
	for _, t := range r.list("Ticket", "tickets", MaxItems) {
		tk := Ticket{
			FulfilmentRef:       t.strRule("FulfilmentRef", false, true, validRef, ruleRef),
			Status:              t.strRule("Status", false, true, validToken, ruleToken),
			TicketControlNumber: t.strRule("TicketControlNumber", false, false, validText, ruleText),
		}
		for _, d := range t.list("Document", "documents", MaxItems) {
			tk.Documents = append(tk.Documents, readDocument(d))
		}
		t.done()
		m.Tickets = append(m.Tickets, tk)
	}
	return m
}

// readDocument reads one Document: its attributes (JSON keys) and its
// content, the XML element's text or the JSON "content".
func readDocument(d *reader) Document {
	doc := Document{
		Format:        d.strRule("format", true, true, validRef, ruleFormat),
		Medium:        d.strRule("medium", true, true, validToken, ruleToken),
		Type:          d.strRule("type", true, true, validToken, ruleToken),
		ControlNumber: d.strRule("controlNumber", true, false, validText, ruleText),
	}
	s, ok := d.text("content")
	switch {
	case d.d.err != nil:
	case !ok:
		d.failText("content", ruleRequired)
	default:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) == 0 {
			d.failText("content", ruleContent)
		} else {
			doc.Content = b
		}
	}
	d.done()
	return doc
}

func writeTicketReply(w *writer, m *TicketReply) {
	writeReplyHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
	w.list("Ticket", "tickets", len(m.Tickets), true, func(i int) {
		t := &m.Tickets[i]
		w.elemString("FulfilmentRef", t.FulfilmentRef)
		w.elemString("Status", t.Status)
		w.optElemString("TicketControlNumber", t.TicketControlNumber)
		w.list("Document", "documents", len(t.Documents), true, func(j int) {
			d := &t.Documents[j]
			w.attrString("format", d.Format)
			w.attrString("medium", d.Medium)
			w.attrString("type", d.Type)
			w.optAttrString("controlNumber", d.ControlNumber)
			w.base64Text("content", d.Content)
		})
	})
}
