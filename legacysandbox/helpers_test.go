package legacysandbox

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// start is the tests' clock start: a fixed instant, so that every date a
// test uses is computed from it, never from today.
var start = time.Date(2030, 3, 10, 9, 0, 0, 0, time.UTC)

// tomorrow is the day after the clock's start, YYYY-MM-DD.
func tomorrow() string { return start.AddDate(0, 0, 1).Format(time.DateOnly) }

// newSandbox returns a sandbox on a test clock.
func newSandbox(t *testing.T, cfg Config) (*Sandbox, *testclock.Clock) {
	t.Helper()
	clock := testclock.New(start)
	cfg.Now = clock.Now
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, clock
}

// journey is train from Basel SBB to Zürich HB tomorrow.
func journey(train string) legacy.Journey {
	return legacy.Journey{TrainNumber: train, DepartureDate: tomorrow(), From: "8500010", To: "8503000"}
}

// seats asks for 2nd class seats at the given tariffs.
func seats(tariffs ...legacy.Tariff) legacy.PlaceRequest {
	return legacy.PlaceRequest{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat, Tariffs: tariffs}
}

func adults(n int) legacy.PlaceRequest { return seats(legacy.Tariff{Code: 1, Count: n}) }

func availability(id, train string, p legacy.PlaceRequest) *legacy.AvailabilityRequest {
	return &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: id}, Journey: journey(train), Places: p}
}

func bookReq(id, train string, p legacy.PlaceRequest) *legacy.BookingRequest {
	return &legacy.BookingRequest{Header: legacy.Header{MessageID: id}, Journey: journey(train), Places: p}
}

func cancelOf(id, ref string, reason *int) *legacy.CancelRequest {
	return &legacy.CancelRequest{Header: legacy.Header{MessageID: id}, BookingRef: ref, ReasonCode: reason}
}

// as asserts that reply is a T.
func as[T legacy.Reply](t *testing.T, reply legacy.Reply) T {
	t.Helper()
	r, ok := reply.(T)
	if !ok {
		var want T
		t.Fatalf("reply %T %+v, want %T", reply, reply, want)
	}
	return r
}

// negative asserts a NegativeReply with code.
func negative(t *testing.T, reply legacy.Reply, code legacy.Code) *legacy.NegativeReply {
	t.Helper()
	nr := as[*legacy.NegativeReply](t, reply)
	if nr.Code != code {
		t.Fatalf("NegativeReply %s %q, want %s", nr.Code, nr.Text, code)
	}
	if nr.Text == "" {
		t.Errorf("NegativeReply %s without a text", nr.Code)
	}
	return nr
}

// handle answers req with a background context.
func handle(s *Sandbox, req legacy.Request) legacy.Reply { return s.Handle(context.Background(), req) }

// post sends body with contentType through ServeHTTP and returns the
// status, the Content-Type and the body of the answer.
func post(s *Sandbox, contentType string, body []byte) (int, string, []byte) {
	req := httptest.NewRequest(http.MethodPost, "/legacy", bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.Bytes()
}

// send encodes msg in f, posts it and decodes the reply, which must come
// in f.
func send(t *testing.T, s *Sandbox, f legacy.Format, msg legacy.Message) (int, legacy.Reply) {
	t.Helper()
	body, err := legacy.Encode(f, msg)
	if err != nil {
		t.Fatal(err)
	}
	status, ct, out := post(s, f.ContentType(), body)
	if ct != f.ContentType() {
		t.Fatalf("reply Content-Type %q to %v, body %s", ct, f, out)
	}
	reply, err := legacy.DecodeReply(f, out)
	if err != nil {
		t.Fatalf("reply %d %s: %v", status, out, err)
	}
	return status, reply
}
