package osdmsandbox

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// Every fulfilment of the sandbox has a ticket: a PDF_A4 TICKET document
// rendered by ticketpdf from the booking, listed in the top-level
// fulfillmentDocuments of the fulfilment answers and of the booking while
// the fulfilment is FULFILLED (a refunded or exchanged one no longer
// offers it). Documents are never stored: an answer carries a placeholder
// for each, rendered (through a small cache) and put in place when the
// answer is written, outside the sandbox's lock; an answer kept for an
// Idempotency-Key keeps the placeholder and the ticket, not the PDF, and
// a replay renders the same bytes again.

// documentCacheSize is how many rendered documents a sandbox keeps.
const documentCacheSize = 64

// documentID is the id of a fulfilment's ticket document.
func documentID(fulfillmentID string) string { return fulfillmentID + "-ticket" }

// pendingDocument is a document of an answer, rendered when the answer is
// written: its content in the answer's body is the base64 of marker.
type pendingDocument struct {
	marker []byte
	ticket ticketpdf.Ticket
}

// documents are the fulfillmentDocuments of b's fulfilment f: its ticket
// while f is FULFILLED, none otherwise. The content is a placeholder,
// unique to this sandbox and document, that writeDocuments replaces.
func (s *Sandbox) documents(b *booking, f *osdm.Fulfillment) ([]osdm.FulfillmentDocument, []pendingDocument) {
	if f == nil || f.Status != osdm.FulfillmentFulfilled || b.fulfillment == nil || f.ID != b.fulfillment.ID {
		return nil, nil
	}
	id := documentID(f.ID)
	sum := sha256.Sum256([]byte(s.docNonce + id))
	marker := sum[:18] // 24 base64 characters, no padding
	doc := osdm.FulfillmentDocument{
		ID:            id,
		Medium:        osdm.FulfillmentMediaPDFA4,
		Type:          osdm.DocumentTicket,
		Format:        osdm.FormatPDF,
		Content:       marker,
		ControlNumber: f.ControlNumber,
	}
	return []osdm.FulfillmentDocument{doc}, []pendingDocument{{marker: marker, ticket: s.ticketOf(b, f)}}
}

// withDocuments marks resp as carrying docs.
func withDocuments(resp *response, docs []pendingDocument) *response {
	resp.documents = docs
	return resp
}

// writeDocuments is body with every pending document rendered in place
// of its placeholder.
func (s *Sandbox) writeDocuments(body []byte, docs []pendingDocument) ([]byte, error) {
	for _, d := range docs {
		pdf, err := s.docCache.Render(&d.ticket)
		if err != nil {
			return nil, err
		}
		old := `"` + base64.StdEncoding.EncodeToString(d.marker) + `"`
		body = bytes.Replace(body, []byte(old), []byte(`"`+base64.StdEncoding.EncodeToString(pdf)+`"`), 1)
	}
	return body, nil
}

// ticketOf is the ticket of b's fulfilment f: the trains of the parts it
// covers, the passengers still booked with their places, the booking's
// code and price.
func (s *Sandbox) ticketOf(b *booking, f *osdm.Fulfillment) ticketpdf.Ticket {
	covered := map[string]bool{}
	for _, ref := range f.BookingParts {
		covered[ref.ID] = true
	}
	t := ticketpdf.Ticket{
		BookingCode:   b.code,
		ControlNumber: f.ControlNumber,
		Reference:     f.ID,
		IssuedOn:      f.CreatedOn,
	}
	if p, err := price(b.price()).Decimal(); err == nil {
		t.Price = currency + " " + p
	}
	// The passengers still booked on some covered part, in booking order.
	var paxIDs []string
	for _, p := range b.passengers {
		for _, part := range b.parts {
			if k := slices.Index(part.passengerIDs, p.ID); covered[part.id] && k >= 0 && part.live(k) {
				paxIDs = append(paxIDs, p.ID)
				t.Passengers = append(t.Passengers, passengerName(p))
				break
			}
		}
	}
	for _, part := range b.parts {
		if !covered[part.id] {
			continue
		}
		j := part.journey
		if t.Operator == "" {
			c := j.carrierOr(s.cfg.Operator)
			t.Operator = c.Name + " (RICS " + strings.TrimPrefix(c.Ref, ricsPrefix) + ")"
		}
		leg := ticketpdf.Leg{
			Train:       serviceName(j.train),
			Origin:      ticketpdf.Station{Name: stationName(j.origin), Code: j.origin},
			Destination: ticketpdf.Station{Name: stationName(j.dest), Code: j.dest},
			Departure:   j.departure,
			Arrival:     j.arrival,
			Class:       classLabel(part.group),
			Places:      make([]ticketpdf.Place, len(paxIDs)),
		}
		for k, idx := range part.places {
			if k >= len(part.passengerIDs) || !part.live(k) {
				continue
			}
			if i := slices.Index(paxIDs, part.passengerIDs[k]); i >= 0 {
				coach, number := place(j.train, part.group, idx, s.cfg.Capacity)
				leg.Places[i] = ticketpdf.Place{Coach: coach, Number: number}
			}
		}
		t.Legs = append(t.Legs, leg)
	}
	return t
}

// passengerName is "First Last", "" when the booking has no name.
func passengerName(p osdm.Passenger) string {
	if p.Detail == nil {
		return ""
	}
	return strings.TrimSpace(p.Detail.FirstName + " " + p.Detail.LastName)
}

// classLabel is the class of a group as a ticket prints it, e.g.
// "2nd class, Couchette 6".
func classLabel(g group) string {
	n := "2nd"
	if g.class == osdm.TravelClassFirst {
		n = "1st"
	}
	return n + " class, " + serviceClass(g).Name
}

// newDocNonce makes the secret part of this sandbox's placeholders: a
// booking's names cannot guess one.
func newDocNonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// documentProblem is the answer when a document cannot be rendered.
func documentProblem(err error) *response {
	return problemResponse(osdm.NewProblem(http.StatusInternalServerError, osdm.CodeUnknownError, "rendering the ticket document: "+err.Error()))
}
