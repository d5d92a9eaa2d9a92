package legacy

import "encoding/base64"

// The read and write functions of each reply kind. Replies are written by
// the converter and read back only by legacy-side clients and tests, so
// reading checks syntax and the few items a reply cannot do without.

const (
	ruleBookingStatus = "must be CONFIRMED or FULFILLED"
	ruleCancelStatus  = "must be REFUNDED, CANCELLED or PARTIALLY_REFUNDED"
	ruleSynchroState  = "must be UNKNOWN, IN_PROGRESS, DONE or ROLLED_BACK"
	ruleExchangeTo    = "exactly one of AmountToPay and RefundAmount is required"
	ruleNestedReply   = "must hold exactly one reply element"
	ruleNestedKind    = "must be a legacy reply other than SynchroReply"
	ruleFormat        = "must be a MIME type such as application/pdf: 1..128 printable ASCII characters without spaces"
	ruleContent       = "must be the document's bytes in base64 (RFC 4648, with padding)"
)

func validText(s string) bool { return PlainText(s, 1000) }

func validToken(s string) bool { return validMessageID(s) }

func readReplyHeader(r *reader) ReplyHeader {
	var h ReplyHeader
	h.CorrelationID = r.strRule("correlationId", true, false, validMessageID, ruleMessageID)
	h.SentAt = r.dateTime("sentAt", true, false)
	h.Namespaced = r.d.namespaced
	return h
}

func writeReplyHeader(w *writer, kind Kind, h ReplyHeader) {
	w.begin(kind, h.Namespaced)
	w.optAttrString("correlationId", h.CorrelationID)
	w.optAttrTime("sentAt", h.SentAt)
}

// readPrice reads the optional price element name.
func readPrice(r *reader, name string) *Price {
	c := r.child(name, false)
	if c == nil {
		return nil
	}
	p := &Price{
		Amount:   c.strRule("amount", true, true, validAmount, ruleAmount),
		Currency: c.strRule("currency", true, true, ValidCurrency, ruleCurrency),
	}
	c.done()
	return p
}

// writePrice writes <name amount="49.90" currency="EUR"/>, JSON
// "name":{"amount":"49.90","currency":"EUR"}; nothing for nil.
func writePrice(w *writer, name string, p *Price) {
	if p == nil {
		return
	}
	w.open(name)
	w.attrString("amount", p.Amount)
	w.attrString("currency", p.Currency)
	w.end()
}

func readAvailabilityReply(r *reader) *AvailabilityReply {
	m := &AvailabilityReply{Header: readReplyHeader(r)}
	if c := r.child("Journey", true); c != nil {
		j := &m.Journey
		j.TrainNumber = c.strRule("TrainNumber", false, true, ValidTrainNumber, ruleTrainNumber)
		j.DepartureDate = c.strRule("DepartureDate", false, true, validDate, ruleDate)
		j.DepartureTime = c.strRule("DepartureTime", false, false, validClock, ruleTime)
		j.ArrivalTime = c.strRule("ArrivalTime", false, false, validClock, ruleTime)
		j.From = station(c, "From", true)
		j.To = station(c, "To", true)
		j.Carrier = c.strRule("Carrier", false, false, ValidRICS, ruleRICS)
		c.done()
	}
	for _, o := range r.list("Offer", "offers", MaxItems) {
		var offer Offer
		offer.OfferRef = o.strRule("OfferRef", false, true, ValidOfferRef, ruleOfferRef)
		offer.TravelClass, _ = o.intRule("TravelClass", false, true, 1, 2, ruleTravelClass)
		offer.ServiceCode, _ = o.intRule("ServiceCode", false, true, 1, 3, ruleServiceCode)
		offer.ServiceLevel = o.strRule("ServiceLevel", false, false, validServiceLevel, ruleServiceLevel)
		offer.Price = readPrice(o, "Price")
		if n, ok := o.integer("AvailablePlaces", false); ok {
			offer.AvailablePlaces = &n
		}
		offer.ValidUntil = o.dateTime("ValidUntil", false, false)
		offer.Exchange = readExchange(o)
		o.done()
		m.Offers = append(m.Offers, offer)
	}
	return m
}

func writeAvailabilityReply(w *writer, m *AvailabilityReply) {
	writeReplyHeader(w, m.Kind(), m.Header)
	j := m.Journey
	w.open("Journey")
	w.elemString("TrainNumber", j.TrainNumber)
	w.elemString("DepartureDate", j.DepartureDate)
	w.optElemString("DepartureTime", j.DepartureTime)
	w.optElemString("ArrivalTime", j.ArrivalTime)
	w.elemString("From", j.From)
	w.elemString("To", j.To)
	w.optElemString("Carrier", j.Carrier)
	w.end()
	w.list("Offer", "offers", len(m.Offers), true, func(i int) {
		o := &m.Offers[i]
		w.elemString("OfferRef", o.OfferRef)
		w.elemInt("TravelClass", o.TravelClass)
		w.elemInt("ServiceCode", o.ServiceCode)
		w.optElemString("ServiceLevel", o.ServiceLevel)
		writePrice(w, "Price", o.Price)
		if o.AvailablePlaces != nil {
			w.elemInt("AvailablePlaces", *o.AvailablePlaces)
		}
		w.optElemTime("ValidUntil", o.ValidUntil)
		writeExchange(w, o.Exchange)
	})
}

// readExchange reads the optional Exchange element of r.
func readExchange(r *reader) *Exchange {
	c := r.child("Exchange", false)
	if c == nil {
		return nil
	}
	e := &Exchange{Fee: readPrice(c, "Fee")}
	if e.Fee == nil && c.d.err == nil {
		c.fail("Fee", false, ruleRequired)
	}
	e.AmountToPay = readPrice(c, "AmountToPay")
	e.RefundAmount = readPrice(c, "RefundAmount")
	if c.d.err == nil && (e.AmountToPay == nil) == (e.RefundAmount == nil) {
		c.d.fail(CodeInvalidMessage, c.path(), ruleExchangeTo)
	}
	c.done()
	return e
}

func writeExchange(w *writer, e *Exchange) {
	if e == nil {
		return
	}
	w.open("Exchange")
	writePrice(w, "Fee", e.Fee)
	writePrice(w, "AmountToPay", e.AmountToPay)
	writePrice(w, "RefundAmount", e.RefundAmount)
	w.end()
}

func readBookingReply(r *reader) *BookingReply {
	m := &BookingReply{Header: readReplyHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, ValidRef, ruleRef)
	m.ReservationReference = r.strRule("ReservationReference", false, false, validText, ruleText)
	m.Status = r.strRule("Status", false, true, func(s string) bool {
		return s == StatusConfirmed || s == StatusFulfilled
	}, ruleBookingStatus)
	m.Price = readPrice(r, "Price")
	m.Places, m.PlaceAmounts = readBookedPlaces(r)
	m.TicketControlNumber = r.strRule("TicketControlNumber", false, false, validText, ruleText)
	m.Exchange = readExchange(r)
	m.ExchangeOf = r.strRule("ExchangeOf", false, false, ValidRef, ruleRef)
	return m
}

func writeBookingReply(w *writer, m *BookingReply) {
	writeReplyHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
	w.optElemString("ReservationReference", m.ReservationReference)
	w.elemString("Status", m.Status)
	writePrice(w, "Price", m.Price)
	writeBookedPlaces(w, m.Places, m.PlaceAmounts)
	w.optElemString("TicketControlNumber", m.TicketControlNumber)
	writeExchange(w, m.Exchange)
	w.optElemString("ExchangeOf", m.ExchangeOf)
}

func readCancelReply(r *reader) *CancelReply {
	m := &CancelReply{Header: readReplyHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, ValidRef, ruleRef)
	m.Status = r.strRule("Status", false, true, func(s string) bool {
		return s == StatusRefunded || s == StatusCancelled || s == StatusPartiallyRefunded
	}, ruleCancelStatus)
	m.RefundAmount = readPrice(r, "RefundAmount")
	m.Fee = readPrice(r, "Fee")
	m.Places = readPlaces(r, MaxItems, false)
	return m
}

func writeCancelReply(w *writer, m *CancelReply) {
	writeReplyHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
	w.elemString("Status", m.Status)
	writePrice(w, "RefundAmount", m.RefundAmount)
	writePrice(w, "Fee", m.Fee)
	writePlaces(w, m.Places)
}

func readSynchroReply(r *reader) *SynchroReply {
	m := &SynchroReply{Header: readReplyHeader(r)}
	m.OriginalMessageID = r.strRule("OriginalMessageId", false, true, validMessageID, ruleMessageID)
	m.State = r.strRule("State", false, true, func(s string) bool {
		return s == StateUnknown || s == StateInProgress || s == StateDone || s == StateRolledBack
	}, ruleSynchroState)
	m.RefundAmount = readPrice(r, "RefundAmount")
	m.Fee = readPrice(r, "Fee")
	if c := r.child("Reply", false); c != nil {
		m.Reply = readNestedReply(c)
	}
	return m
}

// readNestedReply reads the reply that c, a SynchroReply's Reply, wraps:
// XML its one child element, JSON the object itself with its "type".
func readNestedReply(c *reader) Reply {
	inner := c
	var kind Kind
	if c.x != nil {
		if len(c.x.kids) != 1 || len(c.x.attrs) != 0 || c.x.text != "" {
			c.d.fail(CodeInvalidMessage, c.path(), ruleNestedReply)
			return nil
		}
		k := c.x.kids[0]
		c.used[0] = true
		inner = newReader(c.d, c, k.name, "", -1, k, nil)
		kind = Kind(k.name)
	} else {
		s, ok := c.str("type", true)
		if !ok && c.d.err == nil {
			c.fail("type", true, ruleRequired)
		}
		kind = Kind(s)
	}
	if c.d.err != nil {
		return nil
	}
	if !replyKinds[kind] || kind == KindSynchroReply {
		if c.x != nil {
			c.d.fail(CodeInvalidMessage, inner.path(), ruleNestedKind)
		} else {
			c.fail("type", true, ruleNestedKind)
		}
		return nil
	}
	m := readMessage(inner, kind)
	inner.done()
	c.done()
	if c.d.err != nil {
		return nil
	}
	return m.(Reply)
}

func writeSynchroReply(w *writer, m *SynchroReply) {
	writeReplyHeader(w, m.Kind(), m.Header)
	w.elemString("OriginalMessageId", m.OriginalMessageID)
	w.elemString("State", m.State)
	writePrice(w, "RefundAmount", m.RefundAmount)
	writePrice(w, "Fee", m.Fee)
	w.nested("Reply", m.Reply)
}

func readPassengerDataReply(r *reader) *PassengerDataReply {
	m := &PassengerDataReply{Header: readReplyHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, ValidRef, ruleRef)
	for _, p := range r.list("Passenger", "passengers", MaxItems) {
		m.Passengers = append(m.Passengers, readPassengerData(p))
	}
	return m
}

func writePassengerDataReply(w *writer, m *PassengerDataReply) {
	writeReplyHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
	writePassengerData(w, m.Passengers)
}

func readReplacementProposal(r *reader) *ReplacementProposal {
	m := &ReplacementProposal{Header: readReplyHeader(r)}
	for _, a := range r.list("Alternative", "alternatives", MaxItems) {
		var alt Alternative
		alt.ReservationSystem, _ = a.intRule("ReservationSystem", false, false, 1, 9999, ruleSender)
		alt.Operator = a.strRule("Operator", false, true, ValidRICS, ruleRICS)
		alt.TrainNumber = a.strRule("TrainNumber", false, false, ValidTrainNumber, ruleTrainNumber)
		alt.TravelClass, _ = a.intRule("TravelClass", false, false, 1, 2, ruleTravelClass)
		alt.Priority, _ = a.intRule("Priority", false, true, 0, 999999999, ruleInteger)
		a.done()
		m.Alternatives = append(m.Alternatives, alt)
	}
	return m
}

func writeReplacementProposal(w *writer, m *ReplacementProposal) {
	writeReplyHeader(w, m.Kind(), m.Header)
	w.list("Alternative", "alternatives", len(m.Alternatives), true, func(i int) {
		a := &m.Alternatives[i]
		w.optElemInt("ReservationSystem", a.ReservationSystem)
		w.elemString("Operator", a.Operator)
		w.optElemString("TrainNumber", a.TrainNumber)
		w.optElemInt("TravelClass", a.TravelClass)
		w.elemInt("Priority", a.Priority)
	})
}

func readNegativeReply(r *reader) *NegativeReply {
	m := &NegativeReply{Header: readReplyHeader(r)}
	m.Code = Code(r.strRule("Code", false, true, validToken, ruleToken))
	m.Text = r.strRule("Text", false, true, validText, ruleText)
	m.Retryable = r.boolean("Retryable", false)
	m.BookingRef = r.strRule("BookingRef", false, false, ValidRef, ruleRef)
	m.PartnerProblem = r.strRule("PartnerProblem", false, false, validText, ruleText)
	return m
}

// writeNegativeReply always writes Retryable, as <Retryable>false</Retryable>
// or "retryable":false, so a client never has to know the default.
func writeNegativeReply(w *writer, m *NegativeReply) {
	writeReplyHeader(w, m.Kind(), m.Header)
	w.elemString("Code", string(m.Code))
	w.elemString("Text", m.Text)
	w.elemBool("Retryable", m.Retryable)
	w.optElemString("BookingRef", m.BookingRef)
	w.optElemString("PartnerProblem", m.PartnerProblem)
}

// readBookedPlaces reads a BookingReply's places, each with its optional
// amount (its price): the amounts are nil unless every place has one.
func readBookedPlaces(r *reader) ([]Place, []string) {
	var places []Place
	var amounts []string
	for _, p := range r.list("Place", "places", MaxItems) {
		pl := Place{
			Coach:  p.strRule("coach", true, false, validText, ruleText),
			Number: p.strRule("number", true, true, validText, ruleText),
		}
		amount := p.strRule("amount", true, false, validAmount, ruleAmount)
		p.done()
		if r.d.err != nil {
			return nil, nil
		}
		places, amounts = append(places, pl), append(amounts, amount)
	}
	for _, a := range amounts {
		if a == "" {
			return places, nil
		}
	}
	return places, amounts
}

// writeBookedPlaces writes a BookingReply's places, each with its amount
// when amounts has one per place.
func writeBookedPlaces(w *writer, places []Place, amounts []string) {
	if len(amounts) != len(places) {
		amounts = nil
	}
	w.list("Place", "places", len(places), false, func(i int) {
		w.optAttrString("coach", places[i].Coach)
		w.attrString("number", places[i].Number)
		if amounts != nil {
			w.optAttrString("amount", amounts[i])
		}
	})
}

func readTicketReply(r *reader) *TicketReply {
	m := &TicketReply{Header: readReplyHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, ValidRef, ruleRef)
	for _, t := range r.list("Ticket", "tickets", MaxItems) {
		tk := Ticket{
			FulfilmentRef:       t.strRule("FulfilmentRef", false, true, ValidRef, ruleRef),
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
		Format:        d.strRule("format", true, true, ValidRef, ruleFormat),
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

// WithNamespace returns r with its header's Namespaced (and that of a
// SynchroReply's nested reply) set to ns, as the reply to a request in
// that XML form carries it: r itself when it already is, else a shallow
// copy, so that a reply kept for resends is never changed.
func WithNamespace(r Reply, ns bool) Reply {
	switch m := r.(type) {
	case *AvailabilityReply:
		return withNamespace(m, ns)
	case *BookingReply:
		return withNamespace(m, ns)
	case *CancelReply:
		return withNamespace(m, ns)
	case *SynchroReply:
		if m == nil {
			break
		}
		inner := m.Reply
		if inner != nil {
			inner = WithNamespace(inner, ns)
		}
		if m.Header.Namespaced != ns || inner != m.Reply {
			c := *m
			c.Header.Namespaced, c.Reply = ns, inner
			return &c
		}
	case *PassengerDataReply:
		return withNamespace(m, ns)
	case *TicketReply:
		return withNamespace(m, ns)
	case *ReplacementProposal:
		return withNamespace(m, ns)
	case *NegativeReply:
		return withNamespace(m, ns)
	}
	return r
}

// headedReply is the pointer type of a reply kind whose header
// withNamespace can set.
type headedReply[T any] interface {
	*T
	Reply
	header() *ReplyHeader
}

// withNamespace is WithNamespace for a reply kind that holds no other
// reply: m itself when nil or already in the form ns, else a shallow copy
// of it with its header's Namespaced set to ns.
func withNamespace[T any, P headedReply[T]](m P, ns bool) Reply {
	if m == nil || m.header().Namespaced == ns {
		return m
	}
	c := *m
	p := P(&c)
	p.header().Namespaced = ns
	return p
}
