package converter

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// noCalls is an Caller that fails the test when called.
func noCalls(t *testing.T) Caller {
	return CallerFunc(func(_ context.Context, c *Call) (*Answer, error) {
		t.Errorf("unexpected OSDM call %s %s", c.Method, c.Path)
		return nil, context.Canceled
	})
}

func TestRefusedBeforeAnyCall(t *testing.T) {
	unknownReason := 9
	tariff7 := bookingRequest("V-1", "").(*legacy.BookingRequest)
	tariff7.Places.Tariffs = []legacy.Tariff{{Code: 1, Count: 1}, {Code: 7, Count: 1}}
	availability7 := availabilityRequest("V-2").(*legacy.AvailabilityRequest)
	availability7.Places.Tariffs = []legacy.Tariff{{Code: 7, Count: 2}}
	exchange := bookingRequest("V-4", "offer-1").(*legacy.BookingRequest)
	exchange.ExchangeOf = "b-1"
	exchange.Places.Tariffs = []legacy.Tariff{{Code: 7, Count: 1}}
	exchangeInfo := &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "V-5"}, Journey: testJourney(), Places: testPlaces(), ExchangeOf: "b/1"}
	for _, tc := range []struct {
		req  legacy.Request
		code legacy.Code
		text string
	}{
		{tariff7, legacy.CodeInvalidMessage, "tariff code 7 is not in the tariff table of route sbb (known codes: 1, 2, 3, 4)."},
		{availability7, legacy.CodeInvalidMessage, "tariff code 7 is not in the tariff table of route sbb (known codes: 1, 2, 3, 4)."},
		{cancelRequest("V-3", "b-1", &unknownReason), legacy.CodeInvalidMessage, "reason code 9 is not in the reason table of route sbb (known codes: 1, 2, 3, 4, 5)."},
		{exchange, legacy.CodeInvalidMessage, "tariff code 7 is not in the tariff table of route sbb (known codes: 1, 2, 3, 4)."},
		{exchangeInfo, legacy.CodeInvalidMessage, `ExchangeOf "b/1" holds a / or \ (as written or percent-encoded), which would make it more than one path segment; it cannot name a booking at partner sbb.`},
	} {
		res := testConverter(t, Config{}).Convert(context.Background(), tc.req, noCalls(t))
		checkReply(t, res)
		n := negativeOf(t, res)
		if n.Code != tc.code || n.Text != tc.text || n.Retryable || n.Header.CorrelationID != tc.req.MessageID() {
			t.Errorf("reply %+v, want %s %q", n, tc.code, tc.text)
		}
	}
}

func TestUnsupportedRequest(t *testing.T) {
	for _, req := range []legacy.Request{nil, (*legacy.BookingRequest)(nil)} {
		res := testConverter(t, Config{}).Convert(context.Background(), req, noCalls(t))
		checkReply(t, res)
		if n := negativeOf(t, res); n.Code != legacy.CodeUnsupportedMessage || res.Status != 422 {
			t.Errorf("reply %+v status %d", n, res.Status)
		}
	}
}

func TestNamespacedRequestGetsNamespacedReply(t *testing.T) {
	req := availabilityRequest("N-1").(*legacy.AvailabilityRequest)
	req.Header.Namespaced = true
	s := &scripted{t: t, answers: []scriptedAnswer{{status: 200, body: []byte(`{"offers":[]}`)}}}
	res := testConverter(t, Config{}).Convert(context.Background(), req, s)
	if h := res.Reply.ReplyHeader(); !h.Namespaced || h.CorrelationID != "N-1" || !h.SentAt.Equal(testNow) {
		t.Errorf("reply header %+v", h)
	}
}

// TestNoOffers: a valid answer without offers is an AvailabilityReply
// without offers, for an AvailabilityRequest and an informationOnly
// BookingRequest alike; a BookingRequest that must book answers
// NO_AVAILABILITY and books nothing.
func TestNoOffers(t *testing.T) {
	info := bookingRequest("O-2", "").(*legacy.BookingRequest)
	info.InformationOnly = true
	for _, req := range []legacy.Request{availabilityRequest("O-1"), info} {
		s := &scripted{t: t, answers: []scriptedAnswer{{step: StepOffers, status: 200,
			body: []byte(`{"offers":[],"problems":[{"code":"urn:uic:problem:PARAMETER_NOT_SUPPORTED","title":"vehicleFilter ignored"}]}`)}}}
		res := testConverter(t, Config{}).Convert(context.Background(), req, s)
		checkReply(t, res)
		a, isAvail := res.Reply.(*legacy.AvailabilityReply)
		if !isAvail || len(a.Offers) != 0 || a.Journey.TrainNumber != "9203" || a.Journey.DepartureTime != "" {
			t.Errorf("%s: reply %s %+v", req.MessageID(), res.Reply.Kind(), res.Reply)
		}
	}
	s := &scripted{t: t, answers: []scriptedAnswer{{step: StepOffers, status: 200, body: []byte(`{"offers":[]}`)}}}
	res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("O-3", ""), s)
	checkReply(t, res)
	if n := negativeOf(t, res); n.Code != legacy.CodeNoAvailability || res.Status != 409 ||
		n.Text != "Partner sbb has no offer for 1 place(s) of class 2 and service code 1 on train 9203." {
		t.Errorf("reply %+v", n)
	}
}

// TestProblemWithoutOffers: a 200 without offers whose problem the table
// maps is that NegativeReply.
func TestProblemWithoutOffers(t *testing.T) {
	s := &scripted{t: t, answers: []scriptedAnswer{{status: 200,
		body: []byte(`{"problems":[{"code":"urn:uic:problem:PARAMETER_NOT_SUPPORTED"},{"code":"urn:uic:problem:OFFER_TRIP_NOT_FOUND","title":"no train 9203"}]}`)}}}
	res := testConverter(t, Config{}).Convert(context.Background(), availabilityRequest("W-1"), s)
	checkReply(t, res)
	if n := negativeOf(t, res); n.Code != legacy.CodeTrainNotFound || n.PartnerProblem != "urn:uic:problem:OFFER_TRIP_NOT_FOUND" {
		t.Errorf("reply %+v", n)
	}
}

// TestBookingPicksCheapestWithEnoughPlaces: the silence offer is cheaper
// but has 7 places; asking for 8 picks the standard one.
func TestBookingPicksCheapestWithEnoughPlaces(t *testing.T) {
	for _, tc := range []struct {
		places int
		want   string
	}{{3, "offer-9203-2nd-silence"}, {8, "offer-9203-2nd-seat"}} {
		req := bookingRequest("C-1", "").(*legacy.BookingRequest)
		req.Places.Tariffs = []legacy.Tariff{{Code: 1, Count: tc.places}}
		p := newFakePartner(t, "C-1")
		testConverter(t, Config{}).Convert(context.Background(), req, p)
		if len(p.calls) < 2 || p.calls[1].Step != StepBooking {
			t.Fatalf("steps %v", p.steps())
		}
		if !strings.Contains(string(p.calls[1].Body), `"offerId":"`+tc.want+`"`) {
			t.Errorf("%d places: booked %s, want %s", tc.places, p.calls[1].Body, tc.want)
		}
	}
}

func TestBookingAnswerWithoutBooking(t *testing.T) {
	for _, tc := range []struct {
		body string
		code legacy.Code
	}{
		{`{}`, legacy.CodePartnerUnavailable},
		{`{"booking":{"createdOn":"2026-11-21T10:00:00Z","passengers":[]}}`, legacy.CodePartnerUnavailable},
		{`{"problems":[{"code":"urn:uic:problem:BOOKING_OFFER_NOT_FOUND"}]}`, legacy.CodeOfferExpired},
	} {
		uncertain := tc.code == legacy.CodePartnerUnavailable
		answers := []scriptedAnswer{{step: StepBooking, status: 200, body: []byte(tc.body)}}
		if uncertain {
			// Asked once more with the same Idempotency-Key, same answer.
			answers = append(answers, answers[0])
		}
		s := &scripted{t: t, answers: answers}
		res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("X-1", "offer-1"), s)
		checkReply(t, res)
		n := negativeOf(t, res)
		if n.Code != tc.code {
			t.Errorf("%s: reply %+v", tc.body, n)
		}
		if uncertain != strings.Contains(n.Text, "expires by itself") {
			t.Errorf("%s: text %q", tc.body, n.Text)
		}
		if len(s.calls) != len(answers) {
			t.Errorf("%s: %d calls, want %d", tc.body, len(s.calls), len(answers))
		}
	}
}

// TestFulfilmentRefusedIn2xx: a 2xx that issues nothing and gives a
// problem is a refusal: no retry, rollback.
func TestFulfilmentRefusedIn2xx(t *testing.T) {
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, "testdata/golden/booking_offer_ref", "booking.json")},
		{step: StepFulfillments, status: 200, body: []byte(`{"problems":[{"code":"urn:uic:problem:CONFIRMATION_INFORMATION_MISSING","title":"passenger names missing"}]}`)},
		{step: StepDeleteBooking, status: 204},
	}}
	res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("F-1", "offer-9203-2nd-seat"), s)
	checkReply(t, res)
	n := negativeOf(t, res)
	if n.Code != legacy.CodeBookingRolledBack || n.Retryable || n.BookingRef != "b-4711" || n.PartnerProblem != "urn:uic:problem:CONFIRMATION_INFORMATION_MISSING" {
		t.Errorf("reply %+v", n)
	}
}

func TestBookingIDTheLegacySideCannotCarry(t *testing.T) {
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: []byte(`{"booking":{"id":"b 1/2","createdOn":"2026-11-21T10:00:00Z","passengers":[{"id":"x","externalRef":"p1","type":"ADULT"}]}}`)},
		{step: StepDeleteBooking, status: 204},
	}}
	res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("I-1", "offer-1"), s)
	checkReply(t, res)
	// The id holds a /: a DELETE /bookings/b%201%2F2 could reach another
	// resource through a proxy that decodes %2F, so it is not made, and
	// the reply says the booking may still exist.
	if len(s.calls) != 1 {
		t.Errorf("%d calls, want only POST /bookings", len(s.calls))
	}
	if n := negativeOf(t, res); n.Code != legacy.CodePartnerRejected || n.BookingRef != "" || n.Retryable ||
		!strings.Contains(n.Text, "booking b 1/2") || !strings.Contains(n.Text, "may still exist") || !strings.Contains(n.Text, "was not made") {
		t.Errorf("reply %+v", n)
	}
}

func TestCancelStates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		booking string
		steps   []Step
		code    legacy.Code
	}{
		{"fulfilment refunded", `{"booking":{"id":"b-1","createdOn":"2026-11-21T10:00:00Z","passengers":[{"id":"x","externalRef":"p1","type":"ADULT"}],
			"fulfillments":[{"id":"f-1","status":"REFUNDED","bookingRef":"b-1","createdOn":"2026-11-21T10:00:00Z"}]}}`,
			[]Step{StepReadBooking}, legacy.CodeAlreadyCancelled},
		{"parts cancelled", `{"booking":{"id":"b-1","createdOn":"2026-11-21T10:00:00Z","passengers":[{"id":"x","externalRef":"p1","type":"ADULT"}],
			"bookedOffers":[{"offerId":"o","reservations":[{"objectType":"Reservation","id":"r","createdOn":"2026-11-21T10:00:00Z","validFrom":"2026-11-21T10:00:00Z",
			"price":{"currency":"EUR","amount":1},"status":"RELEASED","passengerIds":["x"],"refundable":"YES","exchangeable":"NO"}]}]}}`,
			[]Step{StepReadBooking}, legacy.CodeAlreadyCancelled},
		{"refund confirmed", `{"booking":{"id":"b-1","createdOn":"2026-11-21T10:00:00Z","passengers":[{"id":"x","externalRef":"p1","type":"ADULT"}],
			"refundOffers":[{"id":"ro","createdOn":"2026-11-21T10:00:00Z","validFrom":"2026-11-21T10:00:00Z","validUntil":"2026-11-21T10:00:00Z","status":"CONFIRMED",
			"fulfillments":[],"refundFee":{"currency":"EUR","amount":0},"refundableAmount":{"currency":"EUR","amount":0}}]}}`,
			[]Step{StepReadBooking}, legacy.CodeAlreadyCancelled},
		{"no booking in the answer", `{}`, []Step{StepReadBooking}, legacy.CodePartnerUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{t: t, answers: []scriptedAnswer{{status: 200, body: []byte(tc.booking)}}}
			res := testConverter(t, Config{}).Convert(context.Background(), cancelRequest("K-1", "b-1", nil), s)
			checkReply(t, res)
			if !reflect.DeepEqual(s.steps(), tc.steps) {
				t.Errorf("steps %v, want %v", s.steps(), tc.steps)
			}
			if n := negativeOf(t, res); n.Code != tc.code || n.BookingRef != "b-1" {
				t.Errorf("reply %+v", n)
			}
		})
	}
	// Booking not found: the reply names no booking.
	s := &scripted{t: t, answers: []scriptedAnswer{{status: http.StatusNotFound, body: problemAnswer(404, "urn:uic:problem:BOOKING_NOT_FOUND", "").Body}}}
	res := testConverter(t, Config{}).Convert(context.Background(), cancelRequest("K-2", "b-9", nil), s)
	if n := negativeOf(t, res); n.Code != legacy.CodeBookingNotFound || n.BookingRef != "" || res.Status != 404 {
		t.Errorf("reply %+v", n)
	}
}

// TestPathOverridesAreUsed: a `path` override changes what is called, and
// the default fulfilment path works.
func TestPathOverridesAreUsed(t *testing.T) {
	p := newFakePartner(t, "PO-1")
	c := testConverter(t, Config{Paths: map[Step]string{StepFulfillments: "/booking/{bookingId}/fulfillments"}})
	c.Convert(context.Background(), bookingRequest("PO-1", "offer-9203-2nd-seat"), p)
	if got := p.calls[1]; got.Path != "/booking/b-1/fulfillments" || got.PathTemplate != "/booking/{bookingId}/fulfillments" {
		t.Errorf("fulfilment call %s (%s)", got.Path, got.PathTemplate)
	}
}

// TestPathPrefixIsUsed: path_prefix goes before every step's path, the
// defaults and the overrides alike.
func TestPathPrefixIsUsed(t *testing.T) {
	p := newFakePartner(t, "PP-1")
	c := testConverter(t, Config{PathPrefix: "/osdm/v3", Paths: map[Step]string{StepFulfillments: "/booking/{bookingId}/fulfillments"}})
	// The fake partner reads the booking id from the default paths' place,
	// so the fulfilment fails and the booking is rolled back: a third call,
	// prefixed too.
	c.Convert(context.Background(), bookingRequest("PP-1", "offer-9203-2nd-seat"), p)
	if len(p.calls) < 2 {
		t.Fatalf("%d calls, want 2 or more", len(p.calls))
	}
	for _, call := range p.calls {
		if !strings.HasPrefix(call.Path, "/osdm/v3/") || !strings.HasPrefix(call.PathTemplate, "/osdm/v3/") {
			t.Errorf("%s call %s (%s) without the prefix", call.Step, call.Path, call.PathTemplate)
		}
	}
	if got := p.calls[0]; got.Path != "/osdm/v3/bookings" || got.PathTemplate != "/osdm/v3/bookings" {
		t.Errorf("booking call %s (%s)", got.Path, got.PathTemplate)
	}
	if got := p.calls[1]; got.Path != "/osdm/v3/booking/b-1/fulfillments" || got.PathTemplate != "/osdm/v3/booking/{bookingId}/fulfillments" {
		t.Errorf("fulfilment call %s (%s)", got.Path, got.PathTemplate)
	}
}

func TestReplacementProposalMapping(t *testing.T) {
	one, big, neg, sys := 1, 5, -3, 123456
	p := &osdm.Problem{Code: osdm.CodeAlternativeSystemProposal, AlternativeSystemProposals: []osdm.AlternativeSystemProposal{
		{SystemOperatorCode: "urn:uic:rics:1080", ReservationSystemID: &one, Priority: &big,
			Scope: []osdm.AlternativeSystemProposalScope{{VehicleNumber: "462", TravelClass: osdm.TravelClassSecond}, {VehicleNumber: "ICE 1234567"}}},
		{SystemOperatorCode: "1181", ReservationSystemID: &sys, Priority: &neg},
		{SystemOperatorCode: "urn:uic:rics:SBB"},
		{SystemOperatorCode: "urn:uic:rics:1187"},
	}}
	r := testConverter(t, Config{}).newRun(availabilityRequest("R-1"), nil, noLedger{})
	res := r.replacement(p)
	checkReply(t, res)
	got := res.Reply.(*legacy.ReplacementProposal).Alternatives
	want := []legacy.Alternative{
		{ReservationSystem: 1, Operator: "1080", TrainNumber: "462", TravelClass: 2, Priority: 5},
		{ReservationSystem: 1, Operator: "1080", Priority: 5},
		{Operator: "1181", Priority: 0},
		{Operator: "1187", Priority: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("alternatives\n%+v\nwant\n%+v", got, want)
	}
	res = r.replacement(&osdm.Problem{Code: osdm.CodeAlternativeSystemProposal,
		AlternativeSystemProposals: []osdm.AlternativeSystemProposal{{SystemOperatorCode: "SBB"}}})
	if n := negativeOf(t, res); n.Code != legacy.CodePartnerRejected || n.PartnerProblem != osdm.CodeAlternativeSystemProposal {
		t.Errorf("reply %+v", n)
	}
}

// TestReplacementByType: a partner that sends only the problem type is
// understood too.
func TestReplacementByType(t *testing.T) {
	body := []byte(`{"type":"https://osdm.io/errors/alternative_system_proposal","alternativeSystemProposals":[{"systemOperatorCode":"urn:uic:rics:1080"}]}`)
	s := &scripted{t: t, answers: []scriptedAnswer{{status: http.StatusForbidden, body: body}}}
	res := testConverter(t, Config{}).Convert(context.Background(), availabilityRequest("R-2"), s)
	if res.Outcome != OutcomeReplacementProposal || res.Status != 200 {
		t.Errorf("outcome %s status %d", res.Outcome, res.Status)
	}
}

func TestIntakeRules(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	_, mtErr := legacy.FormatOf("text/plain")
	for _, tc := range []struct {
		name      string
		res       *Result
		status    int
		outcome   string
		text      string
		retryable bool
	}{
		{"GET", RefuseMethod(http.MethodGet, now), http.StatusMethodNotAllowed, "invalid_message", "body of a POST, not a GET", false},
		{"too large", RefuseTooLarge(65536, now), http.StatusRequestEntityTooLarge, "invalid_message", "longer than 65536 bytes", false},
		{"slow body", RefuseBodyTimeout(errors.New("i/o timeout"), 20*time.Second, now), http.StatusRequestTimeout, OutcomeBodyTimeout, "within the route's timeout of 20s", true},
		{"media type", Refuse(mtErr, now), http.StatusUnsupportedMediaType, "invalid_message", "text/plain", false},
		{"broken body", Refuse(errors.New("unexpected EOF"), now), http.StatusBadRequest, "invalid_message", "could not be read: unexpected EOF", false},
	} {
		nr, ok := tc.res.Reply.(*legacy.NegativeReply)
		if !ok || tc.res.Status != tc.status || tc.res.Outcome != tc.outcome || !strings.Contains(nr.Text, tc.text) ||
			nr.Retryable != tc.retryable || nr.Code != legacy.CodeInvalidMessage {
			t.Errorf("%s: %d %s %+v", tc.name, tc.res.Status, tc.res.Outcome, tc.res.Reply)
		}
	}
	if RefuseMethod(http.MethodPost, now) != nil {
		t.Error("a POST was refused")
	}
	for accept, want := range map[string]legacy.Format{
		"": legacy.XML, "application/json": legacy.JSON, "application/xml, application/json": legacy.XML, "text/xml": legacy.XML,
	} {
		if got := ReplyFormat(accept); got != want {
			t.Errorf("Accept %q: reply in %v, want %v", accept, got, want)
		}
	}
}
