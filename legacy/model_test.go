package legacy

import (
	"errors"
	"net/http"
	"testing"
)

func TestCodes(t *testing.T) {
	if len(Codes) != 16 {
		t.Fatalf("%d codes, legacy-protocol.md has 16", len(Codes))
	}
	status := map[Code]int{
		CodeInvalidMessage: 400, CodeUnsupportedMessage: 422, CodeExchangeNotSupported: 422,
		CodeExchangeNotPossible: 409,
		CodeNoAvailability:      409, CodeAlreadyCancelled: 409, CodeOfferExpired: 409,
		CodeTrainNotFound: 404, CodeBookingNotFound: 404,
		CodePartnerRejected: 502, CodePartnerUnavailable: 502, CodeAuthenticationFailed: 502,
		CodeBookingRolledBack: 502, CodePartnerTimeout: 504,
		CodeTicketNotReady: 409, CodeDocumentTooLarge: 502,
	}
	for _, c := range Codes {
		if !c.Known() || c.HTTPStatus() != status[c] {
			t.Errorf("%s: known %v status %d, want %d", c, c.Known(), c.HTTPStatus(), status[c])
		}
		want := c == CodePartnerUnavailable || c == CodePartnerTimeout || c == CodeBookingRolledBack || c == CodeTicketNotReady
		if c.Retryable() != want {
			t.Errorf("%s: Retryable %v", c, c.Retryable())
		}
	}
	if Code("NOPE").Known() {
		t.Error("unknown code Known")
	}
}

// TestErrorReply: an invalid message is answered with a NegativeReply that
// carries its messageId and names the field and rule.
func TestErrorReply(t *testing.T) {
	body := []byte(`<CancelRequest xmlns="urn:uic:90918-1:legacy:1" messageId="m-1"><BookingRef></BookingRef></CancelRequest>`)
	_, err := Decode(XML, body)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	r := e.NegativeReply(sampleTime)
	want := NegativeReply{
		Header: ReplyHeader{CorrelationID: "m-1", SentAt: sampleTime, Namespaced: true},
		Code:   CodeInvalidMessage, Text: "BookingRef: " + ruleRef,
	}
	if *r != want || e.HTTPStatus() != http.StatusBadRequest {
		t.Errorf("got %+v status %d", r, e.HTTPStatus())
	}
}

func TestReplyTo(t *testing.T) {
	req := sampleCancelRequest()
	req.Header.Namespaced = true
	h := ReplyTo(req, sampleTime)
	if h != (ReplyHeader{CorrelationID: "C-20261201-0003", SentAt: sampleTime, Namespaced: true}) {
		t.Errorf("ReplyTo = %+v", h)
	}
	j := EchoJourney(sampleAvailabilityRequest().Journey, "07:58", "11:58")
	if j.DepartureTime != "07:58" || j.ArrivalTime != "11:58" || j.From != "8727100" || j.TrainNumber != "9203" {
		t.Errorf("EchoJourney = %+v", j)
	}
}

// TestPlaceNames: the names texts give a class and a service code.
func TestPlaceNames(t *testing.T) {
	if got := ClassName(FirstClass) + "/" + ClassName(SecondClass); got != "1st class/2nd class" {
		t.Errorf("ClassName: %s", got)
	}
	if got := ServiceName(ServiceSeat) + "/" + ServiceName(ServiceCouchette) + "/" + ServiceName(ServiceBerth); got != "seat/couchette/berth" {
		t.Errorf("ServiceName: %s", got)
	}
}
