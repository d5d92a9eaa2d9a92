package legacy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The rules of legacy-protocol.md a field can break, and the read and
// write functions of each request kind: one function per element, used
// for both forms, in the element order of legacy-protocol.md. The replies
// reuse the rules of the fields they share with the requests.

// The rules a field can break, as Error.Rule phrases them.
const (
	ruleRequired      = "is required"
	ruleOnce          = "must appear at most once"
	ruleMessageID     = "must be 1..64 characters of A-Z a-z 0-9 . _ : -"
	ruleDateTime      = "must be an RFC 3339 date-time"
	ruleSender        = "must be a reservation system code 1..9999"
	ruleTrainNumber   = "must be 1..5 letters or digits"
	ruleDate          = "must be a calendar date YYYY-MM-DD"
	ruleTime          = "must be a time HH:MM"
	ruleStation       = "must be a 7-digit UIC station code, or urn:uic:stn: and 7 digits"
	ruleSameStation   = "must differ from the departure station"
	ruleRICS          = "must be a 4-digit RICS company code"
	ruleTravelClass   = "must be 1 or 2"
	ruleServiceCode   = "must be 1, 2 or 3"
	ruleServiceLevel  = "must be 1..8 letters or digits"
	ruleTariffs       = "at least one is required"
	ruleTariffCode    = "must be a tariff code 0..9999"
	ruleCount         = "must be 1..9"
	rulePlaces        = "the tariff counts must add up to at most 9 places"
	ruleName          = "must be 1..70 characters, not only white space, without control or bidirectional formatting characters"
	ruleOfferRef      = "must be 1..512 printable ASCII characters without spaces"
	ruleRef           = "must be 1..128 printable ASCII characters without spaces"
	ruleReasonCode    = "must be a reason code 0..9999"
	ruleBool          = "must be true or false"
	ruleInteger       = "must be a non-negative integer"
	ruleAmount        = "must be a non-negative decimal amount such as 49.90"
	ruleCurrency      = "must be an ISO 4217 currency code of 3 capital letters"
	ruleText          = "must be 1..1000 characters without control characters"
	ruleToken         = "must be 1..64 characters of A-Z a-z 0-9 _ . : -"
	ruleIndex         = "must be a passenger index 1..9"
	rulePassengers    = "at least one is required"
	rulePassengerData = "must set at least one of firstName, lastName, dateOfBirth"
)

// maxPlaces is the 918-1 limit of places in one request.
const maxPlaces = 9

func validMessageID(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '.' && c != '_' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// alnum reports whether s is min..max ASCII letters or digits.
func alnum(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// printableASCII reports whether s is 1..max of '!'..'~'.
func printableASCII(s string, max int) bool {
	if len(s) < 1 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// PlainText reports whether s is 1..max characters of valid UTF-8 with no
// control characters (XML cannot carry most of them): the protocol's rule
// for a text, and the base of its rule for a name (NameFault).
func PlainText(s string, max int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF {
			return false
		}
	}
	return true
}

// validDate reports whether s is a real calendar date YYYY-MM-DD.
func validDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// validClock reports whether s is HH:MM, 00:00..23:59.
func validClock(s string) bool {
	if len(s) != 5 || s[2] != ':' || !isDigits(s[:2], 2) || !isDigits(s[3:], 2) {
		return false
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	return h < 24 && m < 60
}

// normStation returns the 7-digit form of a UIC station code, or "" if s is
// not one.
func normStation(s string) string {
	s = strings.TrimPrefix(s, "urn:uic:stn:")
	if isDigits(s, 7) {
		return s
	}
	return ""
}

// validAmount reports whether s is a non-negative decimal: 1..15 digits,
// optionally a point and 1..6 digits.
func validAmount(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	if len(whole) < 1 || len(whole) > 15 || !isDigits(whole, len(whole)) {
		return false
	}
	return !dot || len(frac) >= 1 && len(frac) <= 6 && isDigits(frac, len(frac))
}

// ValidCurrency reports whether s is a currency as the protocol carries
// it: an ISO 4217 code of 3 capital letters.
func ValidCurrency(s string) bool {
	return len(s) == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'A' && s[2] <= 'Z'
}

// ValidTrainNumber reports whether s is a train number the protocol
// carries: 1..5 letters or digits.
func ValidTrainNumber(s string) bool { return alnum(s, 1, 5) }

// ValidRICS reports whether s is a RICS company code as the protocol
// carries it: 4 digits.
func ValidRICS(s string) bool { return isDigits(s, 4) }

func validServiceLevel(s string) bool {
	return alnum(s, 1, 8)
}

// ValidOfferRef reports whether s is an OfferRef as the protocol carries
// it: 1..512 printable ASCII characters without spaces.
func ValidOfferRef(s string) bool { return printableASCII(s, 512) }

// ValidRef reports whether s is a reference (BookingRef, ExchangeOf,
// FulfilmentRef) as the protocol carries it: 1..128 printable ASCII
// characters without spaces.
func ValidRef(s string) bool { return printableASCII(s, 128) }

func validName(s string) bool { return NameFault(s) == "" }

// NameFault says why s breaks the protocol's rule for a passenger's first
// or last name, "" when it keeps it: 1..70 characters of valid UTF-8
// (PlainText), not only white space, and no bidirectional formatting
// character (U+202E and the like, which make a name read otherwise than
// it is stored).
func NameFault(s string) string {
	switch {
	case !PlainText(s, 70):
		return "must be 1..70 characters without control characters"
	case strings.TrimSpace(s) == "":
		return "must not be only white space"
	}
	for _, r := range s {
		if unicode.Is(unicode.Bidi_Control, r) {
			return fmt.Sprintf("must not hold the bidirectional formatting character U+%04X", r)
		}
	}
	return ""
}

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
