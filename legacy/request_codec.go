package legacy

import "strconv"

// The read and write functions of each request kind: one function per
// element, used for both forms, in the element order of
// legacy-protocol.md, checking each field against its rule (the reader's
// rules, reader.go). The replies reuse the functions of the fields they
// share with the requests.

// maxPlaces is the 918-1 limit of places in one request.
const maxPlaces = 9

func readHeader(r *reader) Header {
	var h Header
	h.MessageID = r.strRule("messageId", true, true, validMessageID, ruleMessageID)
	h.SentAt = r.dateTime("sentAt", true, false)
	h.Sender, _ = r.intRule("sender", true, false, 1, 9999, ruleSender)
	h.Namespaced = r.d.namespaced
	return h
}

func writeHeader(w *writer, kind Kind, h Header) {
	w.begin(kind, h.Namespaced)
	w.attrString("messageId", h.MessageID)
	w.optAttrTime("sentAt", h.SentAt)
	w.optAttrInt("sender", h.Sender)
}

// station reads a UIC station code and returns its 7-digit form.
func station(r *reader, name string, required bool) string {
	s, ok := r.str(name, false)
	switch {
	case !ok && required:
		r.fail(name, false, ruleRequired)
	case ok && normStation(s) == "":
		r.fail(name, false, ruleStation)
	}
	return normStation(s)
}

func readJourney(r *reader) Journey {
	var j Journey
	c := r.child("Journey", true)
	if c == nil {
		return j
	}
	j.TrainNumber = c.strRule("TrainNumber", false, true, ValidTrainNumber, ruleTrainNumber)
	j.DepartureDate = c.strRule("DepartureDate", false, true, validDate, ruleDate)
	j.DepartureTime = c.strRule("DepartureTime", false, false, validClock, ruleTime)
	j.From = station(c, "From", true)
	j.To = station(c, "To", true)
	if c.d.err == nil && j.From == j.To {
		c.fail("To", false, ruleSameStation)
	}
	j.Carrier = c.strRule("Carrier", false, false, ValidRICS, ruleRICS)
	c.done()
	return j
}

func writeJourney(w *writer, j Journey) {
	w.open("Journey")
	w.elemString("TrainNumber", j.TrainNumber)
	w.elemString("DepartureDate", j.DepartureDate)
	w.optElemString("DepartureTime", j.DepartureTime)
	w.elemString("From", j.From)
	w.elemString("To", j.To)
	w.optElemString("Carrier", j.Carrier)
	w.end()
}

func readPlaceRequest(r *reader) PlaceRequest {
	var p PlaceRequest
	c := r.child("PlaceRequest", true)
	if c == nil {
		return p
	}
	p.TravelClass, _ = c.intRule("TravelClass", false, true, 1, 2, ruleTravelClass)
	p.ServiceCode, _ = c.intRule("ServiceCode", false, true, 1, 3, ruleServiceCode)
	p.ServiceLevel = c.strRule("ServiceLevel", false, false, validServiceLevel, ruleServiceLevel)
	items := c.list("Tariff", "tariffs", maxPlaces)
	if len(items) == 0 {
		c.failList("Tariff", "tariffs", ruleTariffs)
	}
	p.Tariffs = make([]Tariff, 0, len(items))
	for _, t := range items {
		code, _ := t.intRule("code", true, true, 0, 9999, ruleTariffCode)
		count, _ := t.intRule("count", true, true, 1, maxPlaces, ruleCount)
		t.done()
		p.Tariffs = append(p.Tariffs, Tariff{Code: code, Count: count})
	}
	if c.d.err == nil && p.Places() > maxPlaces {
		c.failList("Tariff", "tariffs", rulePlaces)
	}
	c.done()
	return p
}

func writePlaceRequest(w *writer, p PlaceRequest) {
	w.open("PlaceRequest")
	w.elemInt("TravelClass", p.TravelClass)
	w.elemInt("ServiceCode", p.ServiceCode)
	w.optElemString("ServiceLevel", p.ServiceLevel)
	w.list("Tariff", "tariffs", len(p.Tariffs), true, func(i int) {
		w.attrInt("code", p.Tariffs[i].Code)
		w.attrInt("count", p.Tariffs[i].Count)
	})
	w.end()
}

// failList records that the repeated element xmlName (JSON array jsonKey)
// of r breaks rule.
func (r *reader) failList(xmlName, jsonKey, rule string) {
	if r.x != nil {
		r.fail(xmlName, false, rule)
	} else {
		r.fail(jsonKey, true, rule)
	}
}

func readAvailabilityRequest(r *reader) *AvailabilityRequest {
	m := &AvailabilityRequest{Header: readHeader(r)}
	m.Journey = readJourney(r)
	m.Places = readPlaceRequest(r)
	m.ExchangeOf = r.strRule("ExchangeOf", false, false, ValidRef, ruleRef)
	return m
}

func writeAvailabilityRequest(w *writer, m *AvailabilityRequest) {
	writeHeader(w, m.Kind(), m.Header)
	writeJourney(w, m.Journey)
	writePlaceRequest(w, m.Places)
	w.optElemString("ExchangeOf", m.ExchangeOf)
}

func readBookingRequest(r *reader) *BookingRequest {
	m := &BookingRequest{Header: readHeader(r)}
	m.InformationOnly = r.boolean("informationOnly", true)
	m.Journey = readJourney(r)
	m.Places = readPlaceRequest(r)
	m.OfferRef = r.strRule("OfferRef", false, false, ValidOfferRef, ruleOfferRef)
	items := r.list("Passenger", "passengers", maxPlaces)
	for _, p := range items {
		m.Passengers = append(m.Passengers, Passenger{
			FirstName:   p.strRule("firstName", true, false, validName, ruleName),
			LastName:    p.strRule("lastName", true, true, validName, ruleName),
			DateOfBirth: p.strRule("dateOfBirth", true, false, validDate, ruleDate),
		})
		p.done()
	}
	if n := m.Places.Places(); r.d.err == nil && len(m.Passengers) > n {
		r.failList("Passenger", "passengers", "must be at most "+strconv.Itoa(n)+", one per place asked for")
	}
	m.ExchangeOf = r.strRule("ExchangeOf", false, false, ValidRef, ruleRef)
	return m
}

func writeBookingRequest(w *writer, m *BookingRequest) {
	writeHeader(w, m.Kind(), m.Header)
	if m.InformationOnly {
		w.attrBool("informationOnly", true)
	}
	writeJourney(w, m.Journey)
	writePlaceRequest(w, m.Places)
	w.optElemString("OfferRef", m.OfferRef)
	w.list("Passenger", "passengers", len(m.Passengers), false, func(i int) {
		p := m.Passengers[i]
		w.optAttrString("firstName", p.FirstName)
		w.attrString("lastName", p.LastName)
		w.optAttrString("dateOfBirth", p.DateOfBirth)
	})
	w.optElemString("ExchangeOf", m.ExchangeOf)
}

func readCancelRequest(r *reader) *CancelRequest {
	m := &CancelRequest{Header: readHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, ValidRef, ruleRef)
	if code, ok := r.intRule("ReasonCode", false, false, 0, 9999, ruleReasonCode); ok {
		m.ReasonCode = &code
	}
	m.Places = readPlaces(r, maxPlaces, true)
	return m
}

func writeCancelRequest(w *writer, m *CancelRequest) {
	writeHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
	if m.ReasonCode != nil {
		w.elemInt("ReasonCode", *m.ReasonCode)
	}
	writePlaces(w, m.Places)
}

// readPlaces reads the repeated Place (JSON places) of r: at most max,
// and if distinct, no place twice.
func readPlaces(r *reader, max int, distinct bool) []Place {
	var out []Place
	for _, p := range r.list("Place", "places", max) {
		pl := Place{
			Coach:  p.strRule("coach", true, false, validText, ruleText),
			Number: p.strRule("number", true, true, validText, ruleText),
		}
		// A place copied from a BookingReply may carry its amount: read
		// (it must be an amount) and left aside.
		p.strRule("amount", true, false, validAmount, ruleAmount)
		p.done()
		if r.d.err != nil {
			return nil
		}
		if distinct {
			for j, q := range out {
				if q == pl {
					r.d.fail(CodeInvalidMessage, p.path(), "names the same place as item "+strconv.Itoa(j+1)+" (coach "+quoteShort(pl.Coach)+", number "+quoteShort(pl.Number)+")")
					return nil
				}
			}
		}
		out = append(out, pl)
	}
	return out
}

func writePlaces(w *writer, places []Place) {
	w.list("Place", "places", len(places), false, func(i int) {
		w.optAttrString("coach", places[i].Coach)
		w.attrString("number", places[i].Number)
	})
}

func readSynchroRequest(r *reader) *SynchroRequest {
	m := &SynchroRequest{Header: readHeader(r)}
	m.Rollback = r.boolean("rollback", true)
	m.OriginalMessageID = r.strRule("OriginalMessageId", false, true, validMessageID, ruleMessageID)
	return m
}

func writeSynchroRequest(w *writer, m *SynchroRequest) {
	writeHeader(w, m.Kind(), m.Header)
	if m.Rollback {
		w.attrBool("rollback", true)
	}
	w.elemString("OriginalMessageId", m.OriginalMessageID)
}

func readPassengerDataRequest(r *reader) *PassengerDataRequest {
	m := &PassengerDataRequest{Header: readHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, ValidRef, ruleRef)
	items := r.list("Passenger", "passengers", maxPlaces)
	if len(items) == 0 {
		r.failList("Passenger", "passengers", rulePassengers)
	}
	seen := [maxPlaces + 1]bool{}
	for _, p := range items {
		pd := readPassengerData(p)
		if r.d.err != nil {
			return m
		}
		if pd.FirstName == "" && pd.LastName == "" && pd.DateOfBirth == "" {
			r.d.fail(CodeInvalidMessage, p.path(), rulePassengerData)
			return m
		}
		if seen[pd.Index] {
			p.fail("index", true, "names a passenger an earlier item names too")
			return m
		}
		seen[pd.Index] = true
		m.Passengers = append(m.Passengers, pd)
	}
	return m
}

// readPassengerData reads one Passenger of a PassengerDataRequest or
// PassengerDataReply.
func readPassengerData(p *reader) PassengerData {
	index, _ := p.intRule("index", true, true, 1, maxPlaces, ruleIndex)
	pd := PassengerData{
		Index:       index,
		FirstName:   p.strRule("firstName", true, false, validName, ruleName),
		LastName:    p.strRule("lastName", true, false, validName, ruleName),
		DateOfBirth: p.strRule("dateOfBirth", true, false, validDate, ruleDate),
	}
	p.done()
	return pd
}

func writePassengerData(w *writer, ps []PassengerData) {
	w.list("Passenger", "passengers", len(ps), true, func(i int) {
		p := ps[i]
		w.attrInt("index", p.Index)
		w.optAttrString("firstName", p.FirstName)
		w.optAttrString("lastName", p.LastName)
		w.optAttrString("dateOfBirth", p.DateOfBirth)
	})
}

func writePassengerDataRequest(w *writer, m *PassengerDataRequest) {
	writeHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
	writePassengerData(w, m.Passengers)
}

func readTicketRequest(r *reader) *TicketRequest {
	m := &TicketRequest{Header: readHeader(r)}
	m.BookingRef = r.strRule("BookingRef", false, true, ValidRef, ruleRef)
	return m
}

func writeTicketRequest(w *writer, m *TicketRequest) {
	writeHeader(w, m.Kind(), m.Header)
	w.elemString("BookingRef", m.BookingRef)
}
