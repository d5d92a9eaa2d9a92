package legacysandbox

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// Every message kind over HTTP, in XML and in JSON: the reply comes in
// the request's form with the status of its code.
func TestServeHTTPForms(t *testing.T) {
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		t.Run(f.String(), func(t *testing.T) {
			s, _ := newSandbox(t, Config{Capacity: 2, Foreign: []Foreign{{Train: "462", System: 80, Operator: "1080"}}})
			status, r := send(t, s, f, availability("H1", "708", adults(1)))
			if a := as[*legacy.AvailabilityReply](t, r); status != 200 || len(a.Offers) != 1 || *a.Offers[0].AvailablePlaces != 2 {
				t.Fatalf("%d %+v", status, a)
			}
			info := bookReq("H2", "708", adults(1))
			info.InformationOnly = true
			status, r = send(t, s, f, info)
			if a := as[*legacy.AvailabilityReply](t, r); status != 200 || len(a.Offers) != 1 {
				t.Fatalf("informationOnly: %d %+v", status, a)
			}
			withRef := bookReq("H3", "708", adults(1))
			withRef.OfferRef = as[*legacy.AvailabilityReply](t, r).Offers[0].OfferRef
			withRef.Passengers = []legacy.Passenger{{FirstName: "Anna", LastName: "Muster"}}
			status, r = send(t, s, f, withRef)
			b := as[*legacy.BookingReply](t, r)
			if status != 200 || b.Header.CorrelationID != "H3" || len(b.Places) != 1 {
				t.Fatalf("booking %d %+v", status, b)
			}
			status, r = send(t, s, f, cancelOf("H4", b.BookingRef, nil))
			if c := as[*legacy.CancelReply](t, r); status != 200 || c.Status != legacy.StatusRefunded {
				t.Fatalf("cancel %d %+v", status, c)
			}
			status, r = send(t, s, f, cancelOf("H5", b.BookingRef, nil))
			if negative(t, r, legacy.CodeAlreadyCancelled); status != http.StatusConflict {
				t.Errorf("ALREADY_CANCELLED status %d", status)
			}
			status, r = send(t, s, f, cancelOf("H6", "nope", nil))
			if negative(t, r, legacy.CodeBookingNotFound); status != http.StatusNotFound {
				t.Errorf("BOOKING_NOT_FOUND status %d", status)
			}
			status, r = send(t, s, f, availability("H7", "462", adults(1)))
			if as[*legacy.ReplacementProposal](t, r); status != 200 {
				t.Errorf("proposal status %d", status)
			}
			status, r = send(t, s, f, availability("H8", "00", adults(1)))
			if negative(t, r, legacy.CodeTrainNotFound); status != http.StatusNotFound {
				t.Errorf("TRAIN_NOT_FOUND status %d", status)
			}
			status, r = send(t, s, f, bookReq("H9", "708", adults(3)))
			if negative(t, r, legacy.CodeNoAvailability); status != http.StatusConflict {
				t.Errorf("NO_AVAILABILITY status %d", status)
			}
			ex := bookReq("H10", "708", adults(1))
			ex.ExchangeOf = b.BookingRef
			status, r = send(t, s, f, ex)
			if negative(t, r, legacy.CodeExchangeNotSupported); status != http.StatusUnprocessableEntity {
				t.Errorf("EXCHANGE_NOT_SUPPORTED status %d", status)
			}
		})
	}
}

// A namespaced XML request gets a namespaced reply.
func TestServeHTTPNamespace(t *testing.T) {
	s, _ := newSandbox(t, Config{})
	body := `<AvailabilityRequest xmlns="urn:uic:90918-1:legacy:1" messageId="N1"><Journey><TrainNumber>708</TrainNumber>` +
		`<DepartureDate>` + tomorrow() + `</DepartureDate><From>urn:uic:stn:8500010</From><To>8503000</To></Journey>` +
		`<PlaceRequest><TravelClass>2</TravelClass><ServiceCode>1</ServiceCode><Tariff code="1" count="1"/></PlaceRequest></AvailabilityRequest>`
	status, _, out := post(s, "text/xml", []byte(body))
	if status != 200 || !strings.Contains(string(out), `xmlns="urn:uic:90918-1:legacy:1"`) || !strings.Contains(string(out), "<From>8500010</From>") {
		t.Errorf("%d %s", status, out)
	}
}

// Bad input: a NegativeReply with the right code and status, in the form
// the client can read, never a Go error text.
func TestServeHTTPBadInput(t *testing.T) {
	s, _ := newSandbox(t, Config{MaxBody: 2048})
	good, _ := legacy.Encode(legacy.JSON, availability("G1", "708", adults(1)))
	for _, tc := range []struct {
		name        string
		method      string
		contentType string
		accept      string
		body        string
		status      int
		form        legacy.Format
		code        legacy.Code
		text        string
		correlation string
	}{
		{"malformed XML", "POST", "application/xml", "", `<AvailabilityRequest messageId="X1"><Journey>`, 400, legacy.XML, legacy.CodeInvalidMessage, "not well-formed XML", "X1"},
		{"malformed JSON", "POST", "application/json", "", `{"type":"AvailabilityRequest","messageId":"X2",`, 400, legacy.JSON, legacy.CodeInvalidMessage, "not well-formed JSON", "X2"},
		{"missing field", "POST", "application/json", "", `{"type":"CancelRequest","messageId":"X3"}`, 400, legacy.JSON, legacy.CodeInvalidMessage, "bookingRef", "X3"},
		{"unknown message", "POST", "application/xml", "", `<RefundRequest messageId="X4"/>`, 422, legacy.XML, legacy.CodeUnsupportedMessage, "RefundRequest", "X4"},
		{"a reply sent as a request", "POST", "application/json", "", `{"type":"BookingReply","correlationId":"X5"}`, 422, legacy.JSON, legacy.CodeUnsupportedMessage, "BookingReply", ""},
		{"wrong content type", "POST", "text/plain", "", string(good), 415, legacy.XML, legacy.CodeInvalidMessage, "Content-Type", ""},
		{"wrong content type, JSON accepted", "POST", "text/plain", "application/json", string(good), 415, legacy.JSON, legacy.CodeInvalidMessage, "Content-Type", ""},
		{"no content type", "POST", "", "", string(good), 415, legacy.XML, legacy.CodeInvalidMessage, "Content-Type", ""},
		{"oversized body", "POST", "application/json", "", `{"type":"CancelRequest","messageId":"X6","bookingRef":"` + strings.Repeat("a", 4000) + `"}`, 413, legacy.JSON, legacy.CodeInvalidMessage, "longer than 2048 bytes", ""},
		{"empty body", "POST", "application/xml", "", ``, 400, legacy.XML, legacy.CodeInvalidMessage, "", ""},
		{"GET", "GET", "", "", ``, 405, legacy.XML, legacy.CodeInvalidMessage, "POST", ""},
		{"PUT", "PUT", "application/json", "application/json", string(good), 405, legacy.JSON, legacy.CodeInvalidMessage, "POST", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "/legacy", strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != tc.form.ContentType() {
				t.Fatalf("%d %q %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			r, err := legacy.DecodeReply(tc.form, rec.Body.Bytes())
			if err != nil {
				t.Fatalf("%s: %v", rec.Body, err)
			}
			nr := negative(t, r, tc.code)
			if !strings.Contains(nr.Text, tc.text) || nr.Header.CorrelationID != tc.correlation {
				t.Errorf("%+v, want text with %q", nr, tc.text)
			}
			if tc.status == 405 && rec.Header().Get("Allow") != "POST" {
				t.Errorf("Allow %q", rec.Header().Get("Allow"))
			}
		})
	}
	if n := len(s.Bookings()); n != 0 {
		t.Errorf("%d bookings", n)
	}
}

// GET .../_sandbox/bookings lists the bookings as JSON, under any prefix.
func TestDebugListing(t *testing.T) {
	s, _ := newSandbox(t, Config{})
	b := as[*legacy.BookingReply](t, handle(s, bookReq("D1", "402", legacy.PlaceRequest{TravelClass: 1, ServiceCode: 3, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}}})))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/hermes"+DebugPath, nil))
	var list []BookingInfo
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s %v", rec.Code, rec.Body, err)
	}
	if len(list) != 1 || list[0].BookingRef != b.BookingRef || list[0].Status != "CONFIRMED" || list[0].Train != "402" ||
		list[0].ServiceCode != 3 || list[0].TravelClass != 1 || len(list[0].Places) != 2 || list[0].Price != b.Price.Amount ||
		len(list[0].Tariffs) != 2 || list[0].TicketControlNumber != b.TicketControlNumber {
		t.Errorf("listing %+v", list)
	}
}
