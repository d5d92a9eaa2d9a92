package converter

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// failMode is how the fake partner fails a step.
type failMode string

const (
	// failProblem: a 4xx problem+json; the partner did nothing.
	failProblem failMode = "4xx problem"
	// fail5xx: a 503 problem+json; the partner did nothing.
	fail5xx failMode = "5xx"
	// failGarbage: the partner acted, then its 200 answer was not JSON.
	failGarbage failMode = "garbage 2xx"
	// failTransport: the call never reached the partner.
	failTransport failMode = "transport error"
	// failTimeout: the partner acted but its answer came too late.
	failTimeout failMode = "timeout"
)

var failModes = []failMode{failProblem, fail5xx, failGarbage, failTransport, failTimeout}

// injection fails a step: times times (0: every time).
type injection struct {
	mode   failMode
	times  int
	used   int
	status int    // failProblem status, default 400
	code   string // failProblem code, default urn:uic:problem:VALIDATION_ERROR
}

// fakeBooking is a booking held by the fake partner.
type fakeBooking struct {
	id      string
	state   string // prebooked, fulfilled, refunded, deleted
	created bool   // made during the test (not set up beforehand)
}

// fakePartner is an in-memory OSDM partner with state, failure injection
// and idempotency: a repeated Idempotency-Key gets the stored answer. The
// calls it gets and its real answers are checked against the OSDM 3.9
// spec.
type fakePartner struct {
	t         testing.TB
	partner   string
	messageID string

	offers []byte // the answer to an offer search: the golden availability case's

	mu       sync.Mutex
	next     int
	bookings map[string]*fakeBooking
	stored   map[string]*Answer
	fail     map[Step]*injection
	calls    []*Call
}

func newFakePartner(t testing.TB, messageID string) *fakePartner {
	return &fakePartner{t: t, partner: "sbb", messageID: messageID, offers: readFile(t, "testdata/golden/availability", "offers.json"),
		bookings: map[string]*fakeBooking{
			"b-fulfilled": {id: "b-fulfilled", state: "fulfilled"},
			"b-pre":       {id: "b-pre", state: "prebooked"},
		},
		stored: map[string]*Answer{}, fail: map[Step]*injection{}}
}

func (p *fakePartner) Call(ctx context.Context, call *Call) (*Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, call)
	p.checkHeaders(call)
	spec := call.Step != StepTripOffers && call.PathTemplate == DefaultPaths()[call.Step]
	if spec {
		osdmspec.ValidateRequest(p.t, osdmspec.V39, call.Method, call.Path, call.Header, call.Body)
	}
	inj := p.fail[call.Step]
	active := inj != nil && (inj.times == 0 || inj.used < inj.times)
	if active {
		inj.used++
		switch inj.mode {
		case failProblem:
			status, code := inj.status, inj.code
			if status == 0 {
				status, code = http.StatusBadRequest, "urn:uic:problem:VALIDATION_ERROR"
			}
			return problemAnswer(status, code, "refused by the fake partner"), nil
		case fail5xx:
			return problemAnswer(http.StatusServiceUnavailable, "urn:uic:problem:SERVICE_UNAVAILABLE", "down for maintenance"), nil
		case failTransport:
			return nil, errors.New("dial tcp 127.0.0.1:9: connect: connection refused")
		}
	}
	a := p.act(call)
	if a.Status < 300 && spec {
		osdmspec.ValidateResponse(p.t, osdmspec.V39, call.Method, call.Path, a.Status, a.Header, a.Body)
	}
	if active {
		switch inj.mode {
		case failGarbage:
			return &Answer{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html>Proxy error</html>")}, nil
		case failTimeout:
			return nil, ErrTimeout
		}
	}
	return a, nil
}

// checkHeaders asserts the headers every OSDM call must carry.
func (p *fakePartner) checkHeaders(call *Call) {
	t := p.t
	if got := call.Header.Get("Accept"); got != "application/json" {
		t.Errorf("%s %s: Accept %q", call.Method, call.Path, got)
	}
	hasBody := call.Method == http.MethodPost || call.Method == http.MethodPatch
	if hasBody && (call.Header.Get("Content-Type") != "application/json" || len(call.Body) == 0) {
		t.Errorf("%s %s: Content-Type %q, body %q", call.Method, call.Path, call.Header.Get("Content-Type"), call.Body)
	}
	if !hasBody && call.Body != nil {
		t.Errorf("%s %s has a body", call.Method, call.Path)
	}
	key := call.Header.Get("Idempotency-Key")
	switch call.Step {
	case StepBooking, StepFulfillments, StepRefundOffers, StepRefundOffer:
		if want := IdempotencyKey(p.partner, p.messageID, call.Step); key != want {
			t.Errorf("%s %s: Idempotency-Key %q, want %q", call.Method, call.Path, key, want)
		}
	default:
		if key != "" {
			t.Errorf("%s %s: Idempotency-Key %q on a call whose operation declares none", call.Method, call.Path, key)
		}
	}
}

// act is what a working partner does and answers.
func (p *fakePartner) act(call *Call) *Answer {
	if key := call.Header.Get("Idempotency-Key"); key != "" {
		if a, seen := p.stored[key]; seen {
			return a
		}
		a := p.answer(call)
		if a.Status < 500 {
			p.stored[key] = a
		}
		return a
	}
	return p.answer(call)
}

func (p *fakePartner) answer(call *Call) *Answer {
	id := ""
	if parts := strings.Split(strings.SplitN(call.Path, "?", 2)[0], "/"); len(parts) > 2 {
		id = parts[2]
	}
	b := p.bookings[id]
	gone := b == nil || b.state == "deleted"
	switch call.Step {
	case StepOffers, StepTripOffers:
		return &Answer{Status: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}}, Body: p.offers}
	case StepBooking:
		p.next++
		nb := &fakeBooking{id: "b-" + strconv.Itoa(p.next), state: "prebooked", created: true}
		p.bookings[nb.id] = nb
		return jsonAnswer(http.StatusOK, osdm.BookingResponse{Booking: fakeOSDMBooking(nb)})
	case StepReadBooking:
		if gone {
			return problemAnswer(http.StatusNotFound, "urn:uic:problem:BOOKING_NOT_FOUND", "no booking "+id)
		}
		return jsonAnswer(http.StatusOK, osdm.BookingResponse{Booking: fakeOSDMBooking(b)})
	case StepFulfillments:
		if gone {
			return problemAnswer(http.StatusNotFound, "urn:uic:problem:BOOKING_NOT_FOUND", "no booking "+id)
		}
		b.state = "fulfilled"
		return jsonAnswer(http.StatusOK, osdm.FulfillmentCollectionResponse{Fulfillments: []osdm.Fulfillment{fakeFulfillment(b)}})
	case StepDeleteBooking:
		switch {
		case gone:
			return problemAnswer(http.StatusNotFound, "urn:uic:problem:BOOKING_NOT_FOUND", "no booking "+id)
		case b.state != "prebooked":
			return problemAnswer(http.StatusConflict, "urn:uic:problem:BOOKING_BOOKING_ALREADY_CONFIRMED", "booking "+id+" is confirmed")
		}
		b.state = "deleted"
		return &Answer{Status: http.StatusNoContent, Header: http.Header{}}
	case StepRefundOffers:
		if gone || b.state != "fulfilled" {
			return problemAnswer(http.StatusConflict, "urn:uic:problem:OPERATION_NOT_PERMITTED", "nothing to refund")
		}
		return jsonAnswer(http.StatusOK, osdm.RefundOfferCollectionResponse{RefundOffers: []osdm.RefundOffer{fakeRefundOffer(b, osdm.RefundProposed)}})
	case StepRefundOffer:
		if gone || b.state != "fulfilled" {
			return problemAnswer(http.StatusConflict, "urn:uic:problem:OPERATION_NOT_PERMITTED", "nothing to refund")
		}
		b.state = "refunded"
		ro := fakeRefundOffer(b, osdm.RefundConfirmed)
		return jsonAnswer(http.StatusOK, osdm.RefundOfferResponse{RefundOffer: &ro})
	}
	p.t.Errorf("fake partner: unexpected step %s", call.Step)
	return problemAnswer(http.StatusNotImplemented, "urn:uic:problem:OPERATION_NOT_PERMITTED", "not implemented")
}

// steps lists the steps called.
func (p *fakePartner) steps() []Step {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Step, len(p.calls))
	for i, c := range p.calls {
		out[i] = c.Step
	}
	return out
}

var fakeTime = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func fakeOSDMBooking(b *fakeBooking) *osdm.Booking {
	age := 30
	price := osdm.NewPrice(14970, 2, "EUR")
	status := osdm.BookingPartPrebooked
	switch b.state {
	case "fulfilled":
		status = osdm.BookingPartFulfilled
	case "refunded":
		status = osdm.BookingPartRefunded
	}
	limit := fakeTime.Add(30 * time.Minute)
	ob := &osdm.Booking{ID: b.id, BookingCode: "CODE-" + b.id, CreatedOn: fakeTime, ProvisionalPrice: &price,
		ConfirmationTimeLimit: &limit,
		Passengers:            []osdm.Passenger{{ID: "pax-1", ExternalRef: "p1", Type: osdm.PassengerAdult, Age: &age}},
		BookedOffers: []osdm.BookedOffer{{OfferID: "offer-9203-2nd-seat", Reservations: []osdm.Reservation{{
			BookingPart: osdm.BookingPart{ObjectType: osdm.ObjectTypeReservation, ID: "res-" + b.id, CreatedOn: fakeTime,
				ValidFrom: fakeTime, Price: price, Status: status, PassengerIDs: []string{"pax-1"},
				Refundable: osdm.RefundYes, Exchangeable: osdm.RefundNo},
			PlaceAllocation: &osdm.PlaceAllocation{AccommodationType: osdm.AccommodationSeat, AccommodationSubType: osdm.AccommodationSubAnySeat,
				ReservedPlaces:  []osdm.ReservedPlace{{ID: "pl-1", PassengerIDs: []string{"pax-1"}, VehicleNumber: "9203", CoachNumber: "12", PlaceNumbers: []string{"45"}}},
				TripLegCoverage: osdm.TripLegCoverage{TripID: "trip-9203", LegID: "leg-1"}},
		}}}},
	}
	if b.state == "fulfilled" || b.state == "refunded" {
		ob.ConfirmedPrice = &price
		ob.ConfirmationTimeLimit = nil
		ob.Fulfillments = []osdm.Fulfillment{fakeFulfillment(b)}
	}
	return ob
}

func fakeFulfillment(b *fakeBooking) osdm.Fulfillment {
	status := osdm.FulfillmentFulfilled
	if b.state == "refunded" {
		status = osdm.FulfillmentRefunded
	}
	return osdm.Fulfillment{ID: "ful-" + b.id, Status: status, BookingRef: b.id, CreatedOn: fakeTime, ControlNumber: "CN-" + b.id}
}

func fakeRefundOffer(b *fakeBooking, status osdm.RefundStatus) osdm.RefundOffer {
	return osdm.RefundOffer{ID: "ro-" + b.id, CreatedOn: fakeTime, ValidFrom: fakeTime, ValidUntil: fakeTime.Add(15 * time.Minute),
		Status: status, Fulfillments: []osdm.Fulfillment{fakeFulfillment(b)},
		RefundFee: osdm.NewPrice(1000, 2, "EUR"), RefundableAmount: osdm.NewPrice(13970, 2, "EUR")}
}

func jsonAnswer(status int, v any) *Answer {
	body, err := marshal(v)
	if err != nil {
		panic(err)
	}
	return &Answer{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
}

func problemAnswer(status int, code, detail string) *Answer {
	p := osdm.Problem{Code: code, Title: "fake partner problem", Status: &status, Detail: detail}
	body, _ := marshal(p)
	return &Answer{Status: status, Header: http.Header{"Content-Type": {"application/problem+json"}}, Body: body}
}
