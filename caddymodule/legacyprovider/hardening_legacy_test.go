package legacyprovider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/google/uuid"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

// legacyHardeningCaddy is a Caddy with osdm_legacy (timeout 2s) in front
// of a legacy sandbox, with extra subdirectives; it returns the client
// and the legacy system.
func legacyHardeningCaddy(t *testing.T, extra string) (*bkClient, *bkLegacy) {
	t.Helper()
	l := startBKLegacy(t)
	return serveBK(t, l, extra), l
}

// legacyHardeningCaddyLog is legacyHardeningCaddy with the global log
// options given (a log block), and the log file it returns if logOptions
// names "%s" for it.
func legacyHardeningCaddyLog(t *testing.T, extra, logOptions string) (*bkClient, *bkLegacy, string) {
	t.Helper()
	l := startBKLegacy(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "legacy.db")
	logFile := filepath.Join(dir, "caddy.log")
	base := harness.Serve(t, func(port int) string {
		cf := bkCaddyfile(port, l.addr, "store bolt "+db, extra)
		if logOptions != "" {
			cf = strings.Replace(cf, "\tauto_https off\n", "\tauto_https off\n"+fmt.Sprintf(logOptions, logFile), 1)
		}
		return cf
	})
	return &bkClient{t: t, base: base}, l, logFile
}

// TestOSDMLegacySearchLogsAtDebug: with Caddy's log at INFO, a
// successful search writes no "osdm call" line (searches log at DEBUG,
// as osdm_convert's do); a booking does, at INFO.
func TestOSDMLegacySearchLogsAtDebug(t *testing.T) {
	c, _, logFile := legacyHardeningCaddyLog(t, "", "\tlog {\n\t\toutput file %s\n\t\tformat json\n\t\tlevel INFO\n\t}\n")
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("708").OfferID), uuid.NewString(), 200, &br)
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	entries := harness.JSONLines[map[string]any](t, logFile)
	ops := map[string]string{}
	for _, m := range entries {
		if m["msg"] == "osdm call" {
			ops[fmt.Sprint(m["operation"])] = fmt.Sprint(m["level"])
		}
	}
	if lv, ok := ops["POST /offers"]; ok {
		t.Errorf("a successful search logged at %s", lv)
	}
	if ops["POST /bookings"] != "info" {
		t.Errorf("the booking's line: %v\n%v", ops, entries)
	}
}

// TestOSDMLegacySlowBody: a client that declares a body of 2023 bytes and
// sends one byte every 200 ms is answered 408 REQUEST_TIMEOUT when the
// route's timeout (2s) is up, on a raw socket, and the connection is
// closed; nothing reaches the legacy system.
func TestOSDMLegacySlowBody(t *testing.T) {
	c, l := legacyHardeningCaddy(t, "")
	a := harness.Dribble(t, c.base, "/osdm/offers", "application/json", bytes.Repeat([]byte(" "), 2023), 200*time.Millisecond, 20*time.Second)
	if a.Status != http.StatusRequestTimeout || a.Took > 8*time.Second {
		t.Fatalf("answered %d after %s: %s", a.Status, a.Took, a.Body)
	}
	osdmspec.ValidateSchema(t, osdmspec.V39, "Problem", a.Body)
	var p osdm.Problem
	if err := json.Unmarshal(a.Body, &p); err != nil || p.Code != "urn:uic:problem:REQUEST_TIMEOUT" || !strings.Contains(p.Detail, "2s") {
		t.Fatalf("problem %s: %v", a.Body, err)
	}
	// The connection is closed: the rest of the body is never read.
	if err := a.ReadAfter(3 * time.Second); err != io.EOF {
		t.Errorf("after the 408 the connection gives %v, want it closed (EOF)", err)
	}
	if n := len(l.messages()); n != 0 {
		t.Errorf("the legacy system got %d messages", n)
	}
}

// legacySearch is an offer search for train on departure (an RFC 3339
// date-time) with passengers (anonymousPassengerSpecifications items).
func legacySearch(train, departure, passengers string) string {
	return `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	  "departureTime": "` + departure + `",
	  "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["` + train + `"]}}}},
	 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	 "anonymousPassengerSpecifications": [` + passengers + `]}`
}

// TestOSDMLegacyDepartureWindow: a search for a day already past, for
// year 0000, for 9999-12-31, or beyond the configured booking horizon is
// refused with a problem that says which, before any legacy message; a
// day within the horizon is searched.
func TestOSDMLegacyDepartureWindow(t *testing.T) {
	c, l := legacyHardeningCaddy(t, "\n\t\t\tbooking_horizon 10d")
	adult := `{"externalRef": "p1", "type": "ADULT", "age": 40}`
	day := func(days int) string { return time.Now().AddDate(0, 0, days).Format(time.DateOnly) + "T10:00:00+01:00" }
	for _, tc := range []struct{ name, at, want string }{
		{"yesterday", day(-1), "is past"},
		{"year 0000", "0000-01-01T10:00:00+01:00", "is past"},
		{"year 9999", "9999-12-31T10:00:00+01:00", "beyond the booking horizon of 10 days"},
		{"beyond the horizon", day(12), "beyond the booking horizon of 10 days"},
	} {
		p := c.problem("POST", "/offers", legacySearch("708", tc.at, adult), 422)
		if p.Code != "urn:uic:problem:OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS" || !strings.Contains(p.Detail, tc.want) ||
			pointerOf(p) != "#/tripSearchCriteria/departureTime" {
			t.Errorf("%s: %+v", tc.name, p)
		}
		if strings.Contains(p.Detail, "places left") {
			t.Errorf("%s: refused as if sold out: %s", tc.name, p.Detail)
		}
	}
	if n := len(l.messages()); n != 0 {
		t.Fatalf("the legacy system got %d messages for searches out of the sale window", n)
	}
	var resp osdm.OfferCollectionResponse
	c.ok("POST", "/offers", legacySearch("708", day(9), adult), "", 200, &resp)
	if len(resp.Offers) != 1 {
		t.Fatalf("a search within the horizon: %d offers", len(resp.Offers))
	}
}

// TestOSDMLegacyBirthDateHeldToTariff: a senior's offer (searched with a
// date of birth in 1950) is not booked for a passenger born in 2000, nor
// can a PATCH of the booked passenger move the date of birth out of the
// senior tariff's age range; the refusal points at the date of birth and
// nothing reaches the legacy system. A date of birth within the range is
// booked and changed.
func TestOSDMLegacyBirthDateHeldToTariff(t *testing.T) {
	c, l := legacyHardeningCaddy(t, "")
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly) + "T00:00:00+01:00"
	search := func() string {
		var resp osdm.OfferCollectionResponse
		c.ok("POST", "/offers", legacySearch("708", day, `{"externalRef": "s1", "type": "SENIOR", "dateOfBirth": "1950-01-01"}`), "", 200, &resp)
		if len(resp.Offers) != 1 {
			t.Fatalf("%d offers", len(resp.Offers))
		}
		return resp.Offers[0].OfferID
	}
	booking := func(offerID, dob string) string {
		return `{"offers": [{"offerId": "` + offerID + `", "passengerRefs": ["s1"]}],
		 "passengerSpecifications": [{"externalRef": "s1", "type": "SENIOR", "dateOfBirth": "` + dob + `",
		   "detail": {"firstName": "Grace", "lastName": "Hopper"}}]}`
	}
	booked := func() int {
		n := 0
		for _, m := range l.messages() {
			if m.kind == legacy.KindBookingRequest {
				n++
			}
		}
		return n
	}
	offer := search()
	p := c.problem("POST", "/bookings", booking(offer, "2000-01-01"), 422)
	if pointerOf(p) != "#/passengerSpecifications/0/dateOfBirth" || !strings.Contains(p.Detail, "outside the age range") {
		t.Errorf("booking a senior fare for someone born in 2000: %+v", p)
	}
	if n := booked(); n != 0 {
		t.Fatalf("%d BookingRequests reached the legacy system", n)
	}
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", booking(offer, "1950-01-01"), uuid.NewString(), 200, &br)
	pid := br.Booking.Passengers[0].ID
	p = c.problem("PATCH", "/bookings/"+br.Booking.ID+"/passengers/"+pid, `{"dateOfBirth": "2000-01-01"}`, 422)
	if pointerOf(p) != "#/dateOfBirth" || !strings.Contains(p.Detail, "outside the age range") {
		t.Errorf("a PATCH to a date of birth out of the tariff: %+v", p)
	}
	var pr osdm.PassengerResponse
	c.ok("PATCH", "/bookings/"+br.Booking.ID+"/passengers/"+pid, `{"dateOfBirth": "1951-03-03"}`, uuid.NewString(), 200, &pr)
	if pr.Passenger.DateOfBirth != "1951-03-03" {
		t.Errorf("PATCH within the range: %+v", pr.Passenger)
	}
	if n := booked(); n != 1 {
		t.Errorf("%d BookingRequests reached the legacy system, want 1", n)
	}
}

// pointerOf is the request pointer of a problem's first pointer.
func pointerOf(p osdm.Problem) string {
	if len(p.Pointers) == 0 {
		return ""
	}
	return p.Pointers[0].RequestPointer
}

// TestOSDMLegacyCallLineCarriesTheCause: a call the façade failed itself
// (its store down) logs the cause on its line, for the operator, while
// the client's problem says only that the service is unavailable.
func TestOSDMLegacyCallLineCarriesTheCause(t *testing.T) {
	obs, logs := observer.New(zapcore.DebugLevel)
	m := &OSDMLegacy{Partner: "p", logger: zap.New(obs)}
	cause := errors.New("dial tcp 127.0.0.1:6390: connect: connection refused")
	a := &osdmlegacy.Answer{Answer: osdm.Answer{Status: http.StatusServiceUnavailable},
		Operation: "POST /bookings", Outcome: "SERVICE_UNAVAILABLE", StoreErrors: 1, Cause: cause}
	m.logCall(httptest.NewRequest(http.MethodPost, "/osdm/bookings", nil), a, time.Millisecond)
	lines := logs.FilterMessage("osdm call").All()
	if len(lines) != 1 {
		t.Fatalf("%d call lines", len(lines))
	}
	if got := lines[0].ContextMap()["error"]; got != cause.Error() {
		t.Errorf("error field %v, want %q", got, cause)
	}
}
