package consumer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func TestConvertUnmarshalCaddyfile(t *testing.T) {
	src := `osdm_convert {
		partner      sncf
		offer_search trip-offers
		tariff       1 ADULT 26
		tariff       7 PRM 40
		reason       6 STRIKE
		path         refund_offers /bookings/{bookingId}/refundOffers
		path_prefix  /osdm
		time_zone    Europe/Zurich
		timeout      15s
		max_body     1MiB
		max_document 6MiB
		reply_cache  500 2m
	}`
	want := &Convert{
		Partner: "sncf", OfferSearch: "trip-offers",
		Tariffs:        map[string]TariffMapping{"1": {Type: "ADULT", Age: 26}, "7": {Type: "PRM", Age: 40}},
		Reasons:        map[string]string{"6": "STRIKE"},
		Paths:          map[string]string{"refund_offers": "/bookings/{bookingId}/refundOffers"},
		PathPrefix:     "/osdm",
		TimeZone:       "Europe/Zurich",
		Timeout:        caddy.Duration(15 * time.Second),
		MaxBody:        1 << 20,
		MaxDocument:    6 << 20,
		ReplyCacheSize: 500, ReplyCacheTTL: caddy.Duration(2 * time.Minute),
	}
	harness.CheckUnmarshal(t, src, new(Convert), want)
}

func TestConvertUnmarshalCaddyfileErrors(t *testing.T) {
	for _, tc := range []struct{ name, block, want string }{
		{"no partner", ``, "partner: must not be empty"},
		{"unknown subdirective", "partner p\n\tcolour red", `unrecognized subdirective "colour"`},
		{"repeated partner", "partner p\n\tpartner q", "partner already specified"},
		{"repeated tariff code", "partner p\n\ttariff 1 ADULT 30\n\ttariff 1 CHILD 8", "tariff 1 already specified"},
		{"tariff age", "partner p\n\ttariff 1 ADULT old", `age "old"`},
		{"tariff arity", "partner p\n\ttariff 1 ADULT", "tariff: wrong number of arguments"},
		{"tariff code", "partner p\n\ttariff x ADULT 30", `code "x"`},
		{"offer search", "partner p\n\toffer_search carrier-pigeon", "carrier-pigeon"},
		{"unknown step", "partner p\n\tpath refunds /r", "refunds"},
		{"placeholder", "partner p\n\tpath refund_offer /bookings/{bookingId}/refund-offers", "refundOfferId"},
		{"path prefix", "partner p\n\tpath_prefix /osdm/", `path_prefix "/osdm/" must not end with /`},
		{"repeated path prefix", "partner p\n\tpath_prefix /a\n\tpath_prefix /b", "path_prefix already specified"},
		{"timeout", "partner p\n\ttimeout soon", `timeout "soon"`},
		{"max body", "partner p\n\tmax_body 2GiB", `max_body "2GiB"`},
		{"max document too large", "partner p\n\tmax_document 33MiB", `max_document "33MiB": not a size from 1B to 32MiB`},
		{"max document zero", "partner p\n\tmax_document 0", `max_document "0"`},
		{"max document arity", "partner p\n\tmax_document 1MiB 2MiB", "max_document: wrong number of arguments"},
		{"repeated max document", "partner p\n\tmax_document 1MiB\n\tmax_document 2MiB", "max_document already specified"},
		{"time zone", "partner p\n\ttime_zone Mars/Olympus", "Mars/Olympus"},
		{"host's time zone", "partner p\n\ttime_zone Local", `osdm_convert: time_zone "Local" is the zone of the machine Caddy runs on, not an IANA zone`},
		{"reply cache", "partner p\n\treply_cache 0", "reply_cache size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := harness.TryUnmarshal(new(Convert), harness.Block("osdm_convert", "\t"+tc.block))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestConvertCaddyfileErrorNamesFileAndLine loads a whole Caddyfile: the
// error names the file and the line of the bad subdirective.
func TestConvertCaddyfileErrorNamesFileAndLine(t *testing.T) {
	const cf = `:0 {
	route /p {
		osdm_convert {
			partner p
			tariff 1 ADULT thirty
		}
		reverse_proxy 127.0.0.1:1
	}
}`
	err := harness.TryAdapt("Railway.caddyfile", cf)
	if err == nil || !strings.Contains(err.Error(), "Railway.caddyfile:5") {
		t.Fatalf("error %v, want one naming Railway.caddyfile:5", err)
	}
}

// TestConvertMaxDocumentErrorNamesFileAndLine: a max_document out of
// range is refused when the Caddyfile loads, naming the file and line.
func TestConvertMaxDocumentErrorNamesFileAndLine(t *testing.T) {
	const cf = `:0 {
	route /p {
		osdm_convert {
			partner p
			max_document 64MiB
		}
		reverse_proxy 127.0.0.1:1
	}
}`
	err := harness.TryAdapt("Railway.caddyfile", cf)
	if err == nil || !strings.Contains(err.Error(), "Railway.caddyfile:5") || !strings.Contains(err.Error(), "max_document") {
		t.Fatalf("error %v, want one naming max_document at Railway.caddyfile:5", err)
	}
}

// TestConvertAdaptRoundTrip: the JSON a Caddyfile adapts to loads back
// into the same handler, without filled-in defaults.
func TestConvertAdaptRoundTrip(t *testing.T) {
	const cf = `:0 {
	route /p {
		osdm_convert {
			partner p
			tariff 5 FAMILY_CHILD 10
			path refund_offers /bookings/{bookingId}/refundOffers
		}
		reverse_proxy 127.0.0.1:1
	}
}
`
	out := harness.Adapt(t, "Caddyfile", cf)
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Routes []struct {
						Handle []struct {
							Routes []struct {
								Handle []json.RawMessage `json:"handle"`
							} `json:"routes"`
						} `json:"handle"`
					} `json:"routes"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	var handler json.RawMessage
	for _, srv := range cfg.Apps.HTTP.Servers {
		handler = srv.Routes[0].Handle[0].Routes[0].Handle[0]
	}
	const want = `{"handler":"osdm_convert","partner":"p","tariffs":{"5":{"type":"FAMILY_CHILD","age":10}},"paths":{"refund_offers":"/bookings/{bookingId}/refundOffers"}}`
	var gotMap, wantMap map[string]any
	_ = json.Unmarshal(handler, &gotMap)
	_ = json.Unmarshal([]byte(want), &wantMap)
	if !reflect.DeepEqual(gotMap, wantMap) {
		t.Fatalf("adapted handler\n got %s\nwant %s", handler, want)
	}
}

// convUnit is an osdm_convert handler provisioned for unit tests.
func convUnit(t testing.TB, edit func(*Convert)) *Convert {
	t.Helper()
	c := &Convert{Partner: "unit-" + t.Name()}
	if edit != nil {
		edit(c)
	}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := c.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Cleanup() })
	return c
}

// legacyRequest is an incoming legacy request as Caddy hands it over.
func legacyRequest(t testing.TB, ctx context.Context, contentType, body string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/partners/unit", strings.NewReader(body)).WithContext(ctx)
	r.Header.Set("Content-Type", contentType)
	r.Header.Set("Accept-Encoding", "gzip")
	r.Header.Set("Authorization", "Basic bGVnYWN5OnNlY3JldA==")
	repl := caddy.NewReplacer()
	return r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
}

// unitDate is a departure date a week from today: the converter refuses
// departures already past, and the unit tests run on the real clock.
var unitDate = time.Now().AddDate(0, 0, 7).Format(time.DateOnly)

var unitAvailability = `<AvailabilityRequest messageId="U-1"><Journey><TrainNumber>9203</TrainNumber>` +
	`<DepartureDate>` + unitDate + `</DepartureDate><From>8727100</From><To>8500010</To></Journey>` +
	`<PlaceRequest><TravelClass>2</TravelClass><ServiceCode>1</ServiceCode><Tariff code="1" count="1"/></PlaceRequest></AvailabilityRequest>`

const unitOffers = `{"offers":[{"offerId":"o-1","createdOn":"2026-11-23T10:00:00Z","preBookableUntil":"2026-11-23T10:30:00Z","passengerRefs":["p1"],` +
	`"offerSummary":{"minimalPrice":{"currency":"EUR","amount":4990,"scale":2},"overallServiceClass":{"type":"STANDARD","name":"Standard"},"overallTravelClass":"SECOND","overallAccommodationType":"SEAT","overallFlexibility":"SEMI_FLEXIBLE"}}]}`

// TestConvertSubRequests checks what the rest of the route sees of each
// OSDM call: its own method, path and body with an exact Content-Length,
// a header map with nothing of the legacy client's (no credentials, no
// Accept-Encoding), a traceparent continuing the client's trace.
func TestConvertSubRequests(t *testing.T) {
	c := convUnit(t, nil)
	var seen []*http.Request
	var bodies []string
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		b, _ := io.ReadAll(r.Body)
		seen, bodies = append(seen, r), append(bodies, string(b))
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(unitOffers)))
		_, _ = io.WriteString(w, unitOffers)
		return nil
	})
	r := legacyRequest(t, context.Background(), "application/xml", unitAvailability)
	const clientTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	r.Header.Set("traceparent", clientTrace)
	rec := httptest.NewRecorder()
	if err := c.ServeHTTP(rec, r, next); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "<AvailabilityReply") {
		t.Fatalf("reply %d %s", rec.Code, rec.Body)
	}
	if rec.Header().Get("Content-Type") != legacy.XML.ContentType() {
		t.Errorf("reply Content-Type %q", rec.Header().Get("Content-Type"))
	}
	if len(seen) != 1 {
		t.Fatalf("%d OSDM calls, want 1", len(seen))
	}
	sub := seen[0]
	if sub.Method != http.MethodPost || sub.URL.Path != "/offers" || sub.RequestURI != "/offers" {
		t.Errorf("sub-request %s %s (%s)", sub.Method, sub.URL.Path, sub.RequestURI)
	}
	if sub.ContentLength != int64(len(bodies[0])) || len(bodies[0]) == 0 {
		t.Errorf("Content-Length %d for a body of %d bytes", sub.ContentLength, len(bodies[0]))
	}
	for _, h := range []string{"Authorization", "Accept-Encoding"} {
		if sub.Header.Get(h) != "" {
			t.Errorf("the legacy client's %s reached the partner", h)
		}
	}
	if sub.Header.Get("Content-Type") != "application/json" || sub.Header.Get("Accept") == "" {
		t.Errorf("OSDM headers: %v", sub.Header)
	}
	tp := sub.Header.Get("traceparent")
	if !subrequest.ValidTraceParent(tp) || tp[3:35] != clientTrace[3:35] || tp == clientTrace {
		t.Errorf("traceparent %q does not continue the client's trace %q", tp, clientTrace)
	}
	if r.Header.Get("Authorization") == "" || r.URL.Path != "/partners/unit" {
		t.Error("the legacy request itself was changed")
	}
}

// TestConvertLoginFailureIsAuthenticationFailed: osdm_token's login error
// becomes the legacy AUTHENTICATION_FAILED, in the request's format.
func TestConvertLoginFailureIsAuthenticationFailed(t *testing.T) {
	c := convUnit(t, nil)
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		return caddyhttp.Error(http.StatusBadGateway, &tokenauth.LoginError{Partner: "unit", Status: 401, Code: "invalid_client"})
	})
	body := `{"type":"AvailabilityRequest","messageId":"U-2","journey":{"trainNumber":"9203","departureDate":"` + unitDate + `","from":"8727100","to":"8500010"},` +
		`"placeRequest":{"travelClass":2,"serviceCode":1,"tariffs":[{"code":1,"count":1}]}}`
	rec := httptest.NewRecorder()
	if err := c.ServeHTTP(rec, legacyRequest(t, context.Background(), "application/json", body), next); err != nil {
		t.Fatal(err)
	}
	r, err := legacy.DecodeReply(legacy.JSON, rec.Body.Bytes())
	if err != nil {
		t.Fatalf("%v: %s", err, rec.Body)
	}
	nr, ok := r.(*legacy.NegativeReply)
	if !ok || nr.Code != legacy.CodeAuthenticationFailed || nr.Header.CorrelationID != "U-2" {
		t.Fatalf("reply %+v", r)
	}
}

// TestConvertUnreachablePartner: reverse_proxy's 502 without an answer is
// PARTNER_UNAVAILABLE, retryable; its 504 is PARTNER_TIMEOUT.
func TestConvertUnreachablePartner(t *testing.T) {
	for status, code := range map[int]legacy.Code{
		http.StatusBadGateway:     legacy.CodePartnerUnavailable,
		http.StatusGatewayTimeout: legacy.CodePartnerTimeout,
	} {
		c := convUnit(t, func(c *Convert) { c.Partner += fmt.Sprint(status) })
		next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
			return caddyhttp.Error(status, errors.New("dial tcp 127.0.0.1:1: connection refused"))
		})
		rec := httptest.NewRecorder()
		if err := c.ServeHTTP(rec, legacyRequest(t, context.Background(), "application/xml", unitAvailability), next); err != nil {
			t.Fatal(err)
		}
		r, _ := legacy.DecodeReply(legacy.XML, rec.Body.Bytes())
		nr, ok := r.(*legacy.NegativeReply)
		if !ok || nr.Code != code || !nr.Retryable || rec.Code != code.HTTPStatus() {
			t.Errorf("next failing with %d: reply %d %+v, want %s", status, rec.Code, r, code)
		}
	}
}

// TestConvertOutlivesClient: the legacy client hangs up while an OSDM call
// runs; the sequence still runs to its end.
func TestConvertOutlivesClient(t *testing.T) {
	c := convUnit(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var callErr error
	var mu sync.Mutex
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		cancel() // the client is gone
		time.Sleep(10 * time.Millisecond)
		mu.Lock()
		callErr = r.Context().Err()
		mu.Unlock()
		_, _ = io.WriteString(w, unitOffers)
		return nil
	})
	rec := httptest.NewRecorder()
	if err := c.ServeHTTP(rec, legacyRequest(t, ctx, "application/xml", unitAvailability), next); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if callErr != nil {
		t.Fatalf("the OSDM call's context ended with the client: %v", callErr)
	}
	if rec.Code != http.StatusOK {
		t.Fatalf("reply %d %s", rec.Code, rec.Body)
	}
}

// TestConvertNoUpstreamHandler: a route with nothing after osdm_convert
// answers no OSDM call; that is a partner failure, not an empty success.
func TestConvertNoUpstreamHandler(t *testing.T) {
	c := convUnit(t, nil)
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error { return nil })
	rec := httptest.NewRecorder()
	if err := c.ServeHTTP(rec, legacyRequest(t, context.Background(), "application/xml", unitAvailability), next); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), "PARTNER_UNAVAILABLE") {
		t.Fatalf("reply %d %s", rec.Code, rec.Body)
	}
}

func TestTraceParent(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	a, b := subrequest.TraceParent(r), subrequest.TraceParent(r)
	if !subrequest.ValidTraceParent(a) || !subrequest.ValidTraceParent(b) || a[3:35] == b[3:35] {
		t.Fatalf("new traces %q and %q", a, b)
	}
	for _, bad := range []string{
		"", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	} {
		if subrequest.ValidTraceParent(bad) {
			t.Errorf("validTraceParent(%q) = true", bad)
		}
	}
}

// TestConvertOnlyPost: a legacy message is POSTed; anything else is a 405
// NegativeReply that names the method, and no OSDM call.
func TestConvertOnlyPost(t *testing.T) {
	c := convUnit(t, nil)
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		t.Error("an OSDM call was made for a GET")
		return nil
	})
	r := legacyRequest(t, context.Background(), "application/xml", unitAvailability)
	r.Method = http.MethodGet
	rec := httptest.NewRecorder()
	if err := c.ServeHTTP(rec, r, next); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != http.MethodPost ||
		!strings.Contains(rec.Body.String(), "not a GET") {
		t.Fatalf("reply %d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

// TestConvertAbortedAnswer: an answer that breaks off mid-body makes
// reverse_proxy panic with http.ErrAbortHandler; that is the OSDM call's
// failure, and the legacy client still gets its reply.
func TestConvertAbortedAnswer(t *testing.T) {
	c := convUnit(t, nil)
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, unitOffers[:20])
		panic(http.ErrAbortHandler)
	})
	rec := httptest.NewRecorder()
	if err := c.ServeHTTP(rec, legacyRequest(t, context.Background(), "application/xml", unitAvailability), next); err != nil {
		t.Fatal(err)
	}
	if rec.Code != http.StatusBadGateway || !strings.Contains(rec.Body.String(), "PARTNER_UNAVAILABLE") || !strings.Contains(rec.Body.String(), "broke off") {
		t.Fatalf("reply %d %s", rec.Code, rec.Body)
	}
}

// TestConvertPooledAnswersDoNotLeakIntoReplies: the partners' answers are
// read into pooled buffers that later exchanges reuse; a reply kept for a
// resend must not change when they do.
func TestConvertPooledAnswersDoNotLeakIntoReplies(t *testing.T) {
	c := convUnit(t, nil)
	offerID := "o-1"
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, _ = io.ReadAll(r.Body)
		answer := strings.Replace(unitOffers, `"offerId":"o-1"`, `"offerId":"`+offerID+`"`, 1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(answer)))
		_, _ = io.WriteString(w, answer)
		return nil
	})
	send := func(messageID string) string {
		t.Helper()
		body := strings.Replace(unitAvailability, `messageId="U-1"`, `messageId="`+messageID+`"`, 1)
		rec := httptest.NewRecorder()
		if err := c.ServeHTTP(rec, legacyRequest(t, context.Background(), "application/xml", body), next); err != nil {
			t.Fatal(err)
		}
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", messageID, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	first := send("POOL-1")
	if !strings.Contains(first, "o-1") {
		t.Fatalf("the first reply does not carry offer o-1: %s", first)
	}
	for i := range 20 {
		offerID = fmt.Sprintf("x-%d", i%10) // as long as o-1: the same bytes reused
		if reply := send(fmt.Sprintf("POOL-2-%d", i)); !strings.Contains(reply, offerID) {
			t.Fatalf("reply %d does not carry its offer %s: %s", i, offerID, reply)
		}
	}
	if again := send("POOL-1"); again != first {
		t.Fatalf("the resent message's reply changed after other exchanges:\nfirst %s\nagain %s", first, again)
	}
}

// TestExchangeLogBookingRef: the exchange's log line names the booking of
// every reply that names one, the after-sales replies included.
func TestExchangeLogBookingRef(t *testing.T) {
	req := &legacy.CancelRequest{Header: legacy.Header{MessageID: "m-1"}, BookingRef: "b-1"}
	for _, tc := range []struct {
		reply legacy.Reply
		want  string
	}{
		{&legacy.BookingReply{BookingRef: "b-1"}, "b-1"},
		{&legacy.CancelReply{BookingRef: "b-2", Status: legacy.StatusPartiallyRefunded}, "b-2"},
		{&legacy.PassengerDataReply{BookingRef: "b-3"}, "b-3"},
		{&legacy.NegativeReply{Code: legacy.CodeExchangeNotPossible, BookingRef: "b-4"}, "b-4"},
		{&legacy.SynchroReply{State: legacy.StateUnknown}, ""},
	} {
		el := newExchangeLog("p", req, &converter.Result{Reply: tc.reply, Outcome: "ok"}, nil, false)
		if el.bookingRef != tc.want {
			t.Errorf("%T: booking_ref %q, want %q", tc.reply, el.bookingRef, tc.want)
		}
	}
}
