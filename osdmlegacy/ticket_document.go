package osdmlegacy

import (
	"net/http"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// With `documents pdf` (the default) a FULFILLED fulfilment has its ticket:
// a PDF_A4 TICKET document rendered by ticketpdf from the booking record
// (the legacy BookingReply's places, reservation reference, control
// number and price; the train and stations of the offer; the passengers'
// names), in the top-level fulfillmentDocuments of the fulfilment answers
// and of the booking (a journey's: one per leg, in leg order). A refunded,
// cancelled or exchanged fulfilment no longer offers it.
//
// The PDF is never stored. An answer carries a placeholder per document,
// rendered (through a small cache: the same booking gives the same bytes)
// and put in place as the answer leaves ServeClient; the answer kept for an
// Idempotency-Key keeps the placeholder and the ticket's data, and a
// replay renders the same bytes again, on any instance.

// ticketCacheSize is how many rendered documents a façade keeps (about
// 35 kB each).
const ticketCacheSize = 128

// documentID is the id of a fulfilment's ticket document.
func documentID(fulfillmentID string) string { return fulfillmentID + "-ticket" }

// ticketDocuments lists the ticket of fv, rec's current fulfilment as
// answered, and names it in fv's fulfillmentDocumentRefs: none with
// `documents none`, or unless fv is FULFILLED and rec's current
// fulfilment (one an exchange replaced has none). A ticket that cannot be
// drawn (a control number and reservation reference longer than an Aztec
// code holds) is left out and a problem of the answer says why; the
// fulfilment stands.
func (d *documents) ticketDocuments(c *call, rec *bookingRecord, fv *osdm.Fulfillment) ([]osdm.FulfillmentDocument, []osdm.Problem) {
	if d.cfg.Documents == DocumentsNone || fv.Status != osdm.FulfillmentFulfilled || rec.Legacy == nil ||
		rec.Fulfillment == nil || fv.ID != rec.Fulfillment.ID {
		return nil, nil
	}
	t := d.ticketOf(rec, fv)
	if err := ticketpdf.Check(&t); err != nil {
		code := osdm.CodeUnknownError
		return nil, []osdm.Problem{{
			Code: code, Type: osdm.ProblemType(code), Title: osdm.ProblemTitle(code),
			Detail: "fulfillment " + fv.ID + " has no ticket document: the legacy system's control number and reservation reference are too long for its Aztec code (" + err.Error() + "); the fulfillment stands",
		}}
	}
	ph := ticketpdf.NewPlaceholder(t)
	c.tickets = append(c.tickets, ph)
	id := documentID(fv.ID)
	fv.FulfillmentDocumentRefs = []string{id}
	return []osdm.FulfillmentDocument{{
		ID:            id,
		Medium:        osdm.FulfillmentMediaPDFA4,
		Type:          osdm.DocumentTicket,
		Format:        osdm.FormatPDF,
		Content:       ph.Marker,
		ControlNumber: fv.ControlNumber,
	}}, nil
}

// fulfillmentAnswer is the FulfillmentCollectionResponse of rec's
// fulfilment, with its ticket.
func (d *documents) fulfillmentAnswer(c *call, rec *bookingRecord) *Answer {
	fv := fulfillmentView(rec)
	docs, problems := d.ticketDocuments(c, rec, &fv)
	return d.json(c, http.StatusOK, osdm.FulfillmentCollectionResponse{
		Problems: problems, Fulfillments: []osdm.Fulfillment{fv}, FulfillmentDocuments: docs,
	})
}

// bookingAnswer is the BookingResponse of rec, with its fulfilment's
// ticket.
func (d *documents) bookingAnswer(c *call, rec *bookingRecord) *Answer {
	b := d.bookings.bookingView(rec)
	var problems []osdm.Problem
	for i := range b.Fulfillments {
		// The booking's current fulfilment; one an exchange replaced has
		// no ticket any more.
		if rec.Fulfillment != nil && b.Fulfillments[i].ID == rec.Fulfillment.ID {
			b.FulfillmentDocuments, problems = d.ticketDocuments(c, rec, &b.Fulfillments[i])
		}
	}
	return d.json(c, http.StatusOK, osdm.BookingResponse{Problems: problems, Booking: b})
}

// legTickets lists the tickets of fvs, the fulfilments of a journey's legs
// as answered (each named in its fulfillmentDocumentRefs): one per leg
// whose fulfilment ticketDocuments gives one, in leg order.
func (d *documents) legTickets(c *call, legs []*bookingRecord, fvs []osdm.Fulfillment) ([]osdm.FulfillmentDocument, []osdm.Problem) {
	var docs []osdm.FulfillmentDocument
	var problems []osdm.Problem
	for i := range fvs {
		for _, leg := range legs {
			if leg != nil && leg.Fulfillment != nil && leg.Fulfillment.ID == fvs[i].ID {
				ds, ps := d.ticketDocuments(c, leg, &fvs[i])
				docs, problems = append(docs, ds...), append(problems, ps...)
				break
			}
		}
	}
	return docs, problems
}

// renderTickets puts the rendered documents of a successful answer in
// place of their placeholders.
func (d *documents) renderTickets(c *call, a *Answer) *Answer {
	if len(c.tickets) == 0 || a.Status < 200 || a.Status > 299 {
		return a
	}
	body, err := d.tickets.Fill(a.Body, c.tickets)
	if err != nil {
		return problemAnswer(osdm.NewProblem(http.StatusInternalServerError, osdm.CodeInternalError, "the ticket document could not be rendered"))
	}
	a.Body = body
	return a
}

// ticketOf is what the ticket of rec's fulfilment fv shows: the train,
// stations and times of the offer booked, the class, the passengers still
// booked with their places from the BookingReply, its reservation
// reference, the control number and the price the booking confirms.
func (d *documents) ticketOf(rec *bookingRecord, fv *osdm.Fulfillment) ticketpdf.Ticket {
	o := &rec.Offer
	operator := d.cfg.Partner
	if o.Carrier != "" {
		operator += " (RICS " + o.Carrier + ")"
	}
	t := ticketpdf.Ticket{
		Operator:      operator,
		BookingCode:   rec.Legacy.ReservationReference,
		ControlNumber: fv.ControlNumber,
		Reference:     fv.ID,
		IssuedOn:      fv.CreatedOn,
	}
	if p := d.bookings.bookingView(rec).ConfirmedPrice; p != nil {
		if amount, err := p.Decimal(); err == nil {
			t.Price = p.Currency + " " + amount
		}
	}
	leg := ticketpdf.Leg{
		Train:       o.Train,
		Origin:      ticketpdf.Station{Name: o.OriginName, Code: o.Origin},
		Destination: ticketpdf.Station{Name: o.DestinationName, Code: o.Destination},
		Departure:   o.Departure,
		Arrival:     o.Arrival,
		Class:       legacy.ClassName(o.TravelClass) + ", " + legacy.ServiceName(o.ServiceCode),
	}
	// The passengers still booked, in booking order, each with the place
	// the BookingReply gave them.
	index := map[int]int{} // passenger -> position on the ticket
	for i := range rec.Passengers {
		p := &rec.Passengers[i]
		if p.RefundedBy != "" {
			continue
		}
		index[i] = len(t.Passengers)
		t.Passengers = append(t.Passengers, ticketName(p))
	}
	leg.Places = make([]ticketpdf.Place, len(t.Passengers))
	for k, owner := range rec.placeOwners() {
		if pos, ok := index[owner]; ok && k < len(rec.Legacy.Places) {
			leg.Places[pos] = ticketpdf.Place{Coach: rec.Legacy.Places[k].Coach, Number: rec.Legacy.Places[k].Number}
		}
	}
	t.Legs = []ticketpdf.Leg{leg}
	return t
}

// ticketName is the passenger's full name as the booking holds it, else
// the name the legacy system was sent.
func ticketName(p *passengerRecord) string {
	if p.Detail != nil {
		if n := strings.TrimSpace(p.Detail.FirstName + " " + p.Detail.LastName); n != "" {
			return n
		}
	}
	return p.NameSent
}
