package osdmsandbox

import (
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

// documentDesk makes a fulfilment's documents and keeps those rendered
// last.
type documentDesk struct {
	cfg   Config
	cache *ticketpdf.Cache
}

// documentCacheSize is how many rendered documents a sandbox keeps.
const documentCacheSize = 64

// documentID is the id of a fulfilment's ticket document.
func documentID(fulfillmentID string) string { return fulfillmentID + "-ticket" }

// documentRefs are the fulfillmentDocumentRefs of a new fulfilment: its
// ticket, none with cfg.NoDocuments.
func documentRefs(cfg Config, fulfillmentID string) []string {
	if cfg.NoDocuments {
		return nil
	}
	return []string{documentID(fulfillmentID)}
}

// documents are the fulfillmentDocuments of b's fulfilment f: its ticket
// while f is FULFILLED, none otherwise. The content is a placeholder,
// which ServeHTTP fills with the PDF. With Config.NoDocuments, none ever.
func (dd *documentDesk) documents(b *booking, f *osdm.Fulfillment) ([]osdm.FulfillmentDocument, []ticketpdf.Placeholder) {
	if dd.cfg.NoDocuments || f == nil || f.Status != osdm.FulfillmentFulfilled || b.fulfillment == nil || f.ID != b.fulfillment.ID {
		return nil, nil
	}
	id := documentID(f.ID)
	ph := ticketpdf.NewPlaceholder(dd.ticketOf(b, f))
	doc := osdm.FulfillmentDocument{
		ID:            id,
		Medium:        osdm.FulfillmentMediaPDFA4,
		Type:          osdm.DocumentTicket,
		Format:        osdm.FormatPDF,
		Content:       ph.Marker,
		ControlNumber: f.ControlNumber,
	}
	return []osdm.FulfillmentDocument{doc}, []ticketpdf.Placeholder{ph}
}

// withDocuments marks resp as carrying docs.
func withDocuments(resp *response, docs []ticketpdf.Placeholder) *response {
	resp.documents = docs
	return resp
}

// ticketOf is the ticket of b's fulfilment f: the trains of the parts it
// covers, the passengers still booked with their places, the booking's
// code and price.
func (dd *documentDesk) ticketOf(b *booking, f *osdm.Fulfillment) ticketpdf.Ticket {
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
			c := j.carrierOr(dd.cfg.Operator)
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
				coach, number := place(j.train, part.group, idx, dd.cfg.Capacity)
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

// documentProblem is the answer when a document cannot be rendered.
func documentProblem(err error) *response {
	return problemResponse(osdm.NewProblem(http.StatusInternalServerError, osdm.CodeUnknownError, "rendering the ticket document: "+err.Error()))
}
