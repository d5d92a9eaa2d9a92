package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// partnerTap is a reverse proxy between osdm_convert's reverse_proxy and a
// partner of the example: it records every OSDM exchange, so tests can
// check what crossed the wire, and can fail chosen calls to act out a
// partner that dies.
type partnerTap struct {
	target *url.URL
	srv    *httptest.Server
	rp     http.Handler

	mu        sync.Mutex
	exchanges []tappedExchange
	bearer    string
	fail      func(r *http.Request) bool
	// intercept, when set, may answer a call itself (true) instead of
	// passing it on; it gets the request body already read, and can pass
	// the call on with forward (fault injection: fault_*_test.go).
	intercept func(w http.ResponseWriter, r *http.Request, body []byte) bool
	// quiet: exchanges are neither recorded nor checked against the spec
	// (the soak test's minutes of traffic at full load).
	quiet bool
}

// tappedExchange is one OSDM request and its answer as seen on the wire.
type tappedExchange struct {
	Method, Path, RawQuery string
	ReqHeader              http.Header
	ReqBody                []byte
	Status                 int
	RespHeader             http.Header
	RespBody               []byte
}

func newPartnerTap(t *testing.T, partnerPort int) *partnerTap {
	t.Helper()
	tap := &partnerTap{target: &url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", partnerPort)}}
	tap.rp = httputil.NewSingleHostReverseProxy(tap.target)
	tap.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tap.mu.Lock()
		fail, intercept := tap.fail, tap.intercept
		if v := r.Header.Get("Authenticate"); v != "" {
			tap.bearer = v
		}
		tap.mu.Unlock()
		if fail != nil && fail(r) {
			// The partner is gone: the connection drops without an answer.
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		body, _ := io.ReadAll(r.Body)
		if intercept != nil && intercept(w, r, body) {
			return
		}
		ex := tap.forward(t, r, body)
		for k, v := range ex.RespHeader {
			w.Header()[k] = v
		}
		w.WriteHeader(ex.Status)
		_, _ = w.Write(ex.RespBody)
	}))
	t.Cleanup(tap.srv.Close)
	return tap
}

// forward passes a call on to the partner, records and checks the
// exchange, and returns it without answering the caller.
//
// The call to the partner is not cut short when the caller gives up (a
// short osdm_convert timeout on a loaded machine): the partner gets the
// whole call and the exchange is its answer. Were the caller's
// cancellation passed on, httputil.ReverseProxy would record its own
// bare 502, with no Content-Type and no body, which no partner sent.
func (tap *partnerTap) forward(t *testing.T, r *http.Request, body []byte) tappedExchange {
	r = r.WithContext(context.WithoutCancel(r.Context()))
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := httptest.NewRecorder()
	tap.rp.ServeHTTP(rec, r)
	ex := tappedExchange{
		Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, ReqHeader: r.Header.Clone(), ReqBody: body,
		Status: rec.Code, RespHeader: rec.Header().Clone(), RespBody: rec.Body.Bytes(),
	}
	tap.mu.Lock()
	quiet := tap.quiet
	tap.mu.Unlock()
	if quiet {
		return ex
	}
	validateTapped(t, ex)
	tap.mu.Lock()
	tap.exchanges = append(tap.exchanges, ex)
	tap.mu.Unlock()
	return ex
}

// validateTapped checks one OSDM exchange against the OSDM specification:
// the converter's request and the sandbox's answer. The older partner's
// forms (GET /trip-offers, camelCase refundOffers) are in no OSDM version
// and are not checked, nor are calls of a login service; an answer
// carrying alternativeSystemProposals is checked against v3.10, the first
// version that has them.
func validateTapped(t *testing.T, ex tappedExchange) {
	if ex.Path == "/_sandbox/bookings" || ex.Path == "/trip-offers" || strings.Contains(ex.Path, "/refundOffers") || ex.Path == "/oauth/token" {
		return
	}
	target := ex.Path
	if ex.RawQuery != "" {
		target += "?" + ex.RawQuery
	}
	version := osdmspec.V39
	if bytes.Contains(ex.RespBody, []byte("alternativeSystemProposals")) {
		version = osdmspec.V310
	}
	osdmspec.ValidateRequest(t, version, ex.Method, target, ex.ReqHeader, ex.ReqBody)
	osdmspec.ValidateResponse(t, version, ex.Method, target, ex.Status, ex.RespHeader, ex.RespBody)
}

// port is the tap's listening port.
func (tap *partnerTap) port() int { return tap.srv.Listener.Addr().(*net.TCPAddr).Port }

// setFail makes the tap drop the calls f selects (nil: none).
func (tap *partnerTap) setFail(f func(r *http.Request) bool) {
	tap.mu.Lock()
	tap.fail = f
	tap.mu.Unlock()
}

// take returns and forgets the exchanges recorded so far.
func (tap *partnerTap) take() []tappedExchange {
	tap.mu.Lock()
	defer tap.mu.Unlock()
	ex := tap.exchanges
	tap.exchanges = nil
	return ex
}

// sandboxBookings reads the partner sandbox's debug listing, with the
// access token osdm_token last sent to this partner.
func (tap *partnerTap) sandboxBookings(t *testing.T) []sandboxBookingView {
	t.Helper()
	tap.mu.Lock()
	bearer := tap.bearer
	tap.mu.Unlock()
	if bearer == "" {
		t.Fatal("no access token seen yet: send a message to this partner first")
	}
	req, _ := http.NewRequest(http.MethodGet, tap.target.String()+"/_sandbox/bookings", nil)
	req.Header.Set("Authenticate", bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /_sandbox/bookings: %d %s", resp.StatusCode, body)
	}
	var list []sandboxBookingView
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("GET /_sandbox/bookings: %v in %s", err, body)
	}
	return list
}

// sandboxBookingView is what a test reads of a sandbox booking.
type sandboxBookingView struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// exampleChain is Caddyfile.example running in this process, on free
// ports, with fresh demo keys and a tap in front of each partner (and of
// each login service, with chainOptions.loginTaps).
type exampleChain struct {
	legacyBase   string
	alpine       *partnerTap
	coastal      *partnerTap
	alpineLogin  *partnerTap
	coastalLogin *partnerTap
	// hermesBase is the hermes provider site (osdm_login at /oauth/token,
	// osdm_legacy under /osdm/), e.g. http://127.0.0.1:PORT.
	hermesBase string
	// keyDir holds the demo keys of this run.
	keyDir string
	// caddyfile is the Caddyfile the chain runs.
	caddyfile string
}

// chainOptions vary the example chain for the fault, secrets and soak
// tests.
type chainOptions struct {
	// edit rewrites Caddyfile.example before its addresses are changed,
	// e.g. a shorter osdm_convert timeout or log directives.
	edit func(caddyfile string) string
	// loginTaps sends osdm_token's login calls through a tap too; the
	// identity tokens keep the login service's own URL as audience.
	loginTaps bool
	// settle keeps osdm_convert's background settlement at its default
	// pace; otherwise it runs once an hour, so that it makes no call a
	// test counts (convert_journal_test.go tests it).
	settle bool
}

// startExampleChain loads ../Caddyfile.example itself, with only its
// addresses, key directory and admin endpoint changed.
func startExampleChain(t *testing.T) *exampleChain {
	t.Helper()
	return startExampleChainWith(t, chainOptions{})
}

// startExampleChainWith is startExampleChain with the changes of opts.
func startExampleChainWith(t *testing.T, opts chainOptions) *exampleChain {
	t.Helper()
	raw := harness.ReadFiles(t, filepath.Join("..", "..", "Caddyfile.example"))
	src := string(raw)
	if opts.edit != nil {
		src = opts.edit(src)
	}
	if !opts.settle {
		// The first "partner hermes" is osdm_convert's (the :8080 site
		// comes first); osdm_legacy's comes later.
		for _, p := range []string{"alpine", "coastal", "hermes"} {
			src = strings.Replace(src, "\t\t\tpartner "+p+"\n", "\t\t\tpartner "+p+"\n\t\t\tsettle_interval 1h\n", 1)
		}
	}
	// A journal store of this chain's own (the default is one file in
	// Caddy's data directory, shared by every test of the package), in
	// memory where the machine has a tmpfs: these tests are about the
	// partner, and on a busy disk one fsync can take a second, which
	// would eat the short timeouts of the fault tests. The journal's own
	// tests (convert_journal_test.go) run on a disk.
	t.Setenv("XDG_DATA_HOME", journalDataDir(t))
	keys := t.TempDir()
	if err := command.WriteDemoKeys(keys, io.Discard); err != nil {
		t.Fatal(err)
	}
	legacyPort, alpinePort, coastalPort := harness.FreePort(t), harness.FreePort(t), harness.FreePort(t)
	hermesPort, sandboxPort := harness.FreePort(t), harness.FreePort(t)
	c := &exampleChain{
		keyDir: keys,
		// localhost, not the partners' 127.0.0.1: the Host the legacy
		// client sends must not be what makes a partner site match.
		legacyBase: fmt.Sprintf("http://localhost:%d/partners/", legacyPort),
		alpine:     newPartnerTap(t, alpinePort),
		coastal:    newPartnerTap(t, coastalPort),
		hermesBase: fmt.Sprintf("http://127.0.0.1:%d", hermesPort),
	}
	var logins []string
	if opts.loginTaps {
		c.alpineLogin, c.coastalLogin = newPartnerTap(t, alpinePort), newPartnerTap(t, coastalPort)
		for _, l := range []struct {
			port int
			tap  *partnerTap
		}{{9441, c.alpineLogin}, {9442, c.coastalLogin}} {
			logins = append(logins, fmt.Sprintf("token_url http://127.0.0.1:%d/oauth/token", l.port),
				fmt.Sprintf("token_url http://127.0.0.1:%d/oauth/token\n\t\t\taudience http://127.0.0.1:%d/oauth/token",
					l.tap.port(), map[int]int{9441: alpinePort, 9442: coastalPort}[l.port]))
		}
	}
	cf := strings.NewReplacer(append(logins,
		"admin localhost:2019", "admin off\n\tpersist_config off",
		"http://:8080", fmt.Sprintf("http://:%d", legacyPort),
		"127.0.0.1:9441/oauth/token", fmt.Sprintf("127.0.0.1:%d/oauth/token", alpinePort),
		"127.0.0.1:9442/oauth/token", fmt.Sprintf("127.0.0.1:%d/oauth/token", coastalPort),
		"reverse_proxy 127.0.0.1:9441 {", fmt.Sprintf("reverse_proxy 127.0.0.1:%d {", c.alpine.port()),
		"reverse_proxy 127.0.0.1:9442 {", fmt.Sprintf("reverse_proxy 127.0.0.1:%d {", c.coastal.port()),
		"http://127.0.0.1:9441 {", fmt.Sprintf("http://127.0.0.1:%d {", alpinePort),
		"http://127.0.0.1:9442 {", fmt.Sprintf("http://127.0.0.1:%d {", coastalPort),
		"demo-keys/", keys+"/",
		// The reverse chain: the hermes provider site (login, osdm_legacy)
		// and the legacy sandbox it proxies to. osdm_legacy's default
		// bolt store lands in XDG_DATA_HOME, this chain's own directory.
		"127.0.0.1:9443", fmt.Sprintf("127.0.0.1:%d", hermesPort),
		"127.0.0.1:8090", fmt.Sprintf("127.0.0.1:%d", sandboxPort),
	)...).Replace(src)
	for _, addr := range []string{"127.0.0.1:9441", "127.0.0.1:9442", "http://:8080", "127.0.0.1:8090", "127.0.0.1:9443"} {
		if strings.Contains(cf, addr) {
			t.Fatalf("Caddyfile.example has an address %s the test does not rewrite", addr)
		}
	}
	c.caddyfile = cf
	harness.LoadNamed(t, "Caddyfile.example", cf)
	// One search per partner, so each tap has seen an access token that
	// tests can read the sandbox state with.
	for _, partner := range []string{"alpine", "coastal"} {
		status, r := c.send(t, partner, legacy.XML, &legacy.AvailabilityRequest{
			Header: legacy.Header{MessageID: "prime-" + partner}, Journey: journeyOn("9203"),
			Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
		})
		must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
	}
	c.alpine.take()
	c.coastal.take()
	return c
}

// send posts a legacy message in format f to a partner route and decodes
// the reply, which must come in the same format.
func (c *exampleChain) send(t *testing.T, partner string, f legacy.Format, msg legacy.Message) (int, legacy.Reply) {
	t.Helper()
	return harness.LegacyClient{URL: c.legacyBase + partner, Format: f}.Send(t, msg)
}

// post sends a raw body to a partner route.
func (c *exampleChain) post(t *testing.T, partner, contentType string, body []byte) (int, []byte, http.Header) {
	t.Helper()
	a, err := harness.LegacyClient{URL: c.legacyBase + partner}.Post(contentType, body)
	if err != nil {
		t.Fatal(err)
	}
	return a.Status, a.Body, a.Header
}

var testFormats = []legacy.Format{legacy.XML, legacy.JSON}

// journeyOn is a journey of the built-in sandbox timetable, tomorrow.
func journeyOn(train string) legacy.Journey {
	return legacy.Journey{
		TrainNumber: train, DepartureDate: time.Now().AddDate(0, 0, 7).Format("2006-01-02"),
		DepartureTime: "07:56", From: "8727100", To: "8500010",
	}
}

func secondClassSeats(tariffs ...legacy.Tariff) legacy.PlaceRequest {
	return legacy.PlaceRequest{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat, Tariffs: tariffs}
}

func must[T legacy.Reply](t *testing.T, status int, r legacy.Reply, wantStatus int) T {
	t.Helper()
	got, ok := r.(T)
	if !ok || status != wantStatus {
		t.Fatalf("got %d %T %+v, want %d %T", status, r, r, wantStatus, *new(T))
	}
	return got
}

// TestExampleChainEveryMessageKind drives every legacy message kind, in
// XML and in JSON, through Caddyfile.example: osdm_convert, osdm_token,
// osdm_login, osdm_access and osdm_sandbox in one real Caddy.
func TestExampleChainEveryMessageKind(t *testing.T) {
	c := startExampleChain(t)
	for _, f := range testFormats {
		t.Run(f.String(), func(t *testing.T) {
			adults := legacy.Tariff{Code: 1, Count: 2}
			child := legacy.Tariff{Code: 2, Count: 1}

			// Availability.
			status, r := c.send(t, "alpine", f, &legacy.AvailabilityRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "avail")}, Journey: journeyOn("9203"), Places: secondClassSeats(adults, child),
			})
			avail := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
			if len(avail.Offers) == 0 {
				t.Fatalf("availability: no offers: %+v", avail)
			}
			offer := avail.Offers[0]
			if offer.OfferRef == "" || offer.Price == nil || offer.Price.Amount == "" || offer.TravelClass != legacy.SecondClass {
				t.Fatalf("availability: offer %+v", offer)
			}
			if avail.Journey.DepartureTime == "" || avail.Journey.ArrivalTime == "" {
				t.Errorf("availability: journey times missing: %+v", avail.Journey)
			}

			// informationOnly booking: offers, nothing booked.
			before := len(c.alpine.sandboxBookings(t))
			status, r = c.send(t, "alpine", f, &legacy.BookingRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "info")}, InformationOnly: true,
				Journey: journeyOn("9203"), Places: secondClassSeats(adults),
			})
			if info := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK); len(info.Offers) == 0 {
				t.Fatalf("informationOnly: no offers")
			}
			if after := len(c.alpine.sandboxBookings(t)); after != before {
				t.Fatalf("informationOnly booking changed the partner's bookings: %d -> %d", before, after)
			}

			// Booking with the OfferRef of the availability reply.
			status, r = c.send(t, "alpine", f, &legacy.BookingRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "book")}, Journey: journeyOn("9203"),
				Places: secondClassSeats(adults, child), OfferRef: offer.OfferRef,
				Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Müller", DateOfBirth: "1990-05-17"}},
			})
			booked := must[*legacy.BookingReply](t, status, r, http.StatusOK)
			if booked.BookingRef == "" || booked.Status != legacy.StatusFulfilled || len(booked.Places) != 3 || booked.Price == nil {
				t.Fatalf("booking with OfferRef: %+v", booked)
			}

			// Booking without OfferRef: the converter searches and picks.
			status, r = c.send(t, "alpine", f, &legacy.BookingRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "pick")}, Journey: journeyOn("9203"),
				Places: secondClassSeats(adults),
			})
			picked := must[*legacy.BookingReply](t, status, r, http.StatusOK)
			if picked.BookingRef == "" || picked.BookingRef == booked.BookingRef || len(picked.Places) != 2 {
				t.Fatalf("booking without OfferRef: %+v", picked)
			}

			// Cancel with a reason code: refunded without a fee.
			reason := 1
			status, r = c.send(t, "alpine", f, &legacy.CancelRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "cancel")}, BookingRef: booked.BookingRef, ReasonCode: &reason,
			})
			cancelled := must[*legacy.CancelReply](t, status, r, http.StatusOK)
			if cancelled.BookingRef != booked.BookingRef || cancelled.Status != legacy.StatusRefunded || cancelled.RefundAmount == nil || cancelled.Fee == nil {
				t.Fatalf("cancel with reason: %+v", cancelled)
			}
			if cancelled.RefundAmount.Amount != booked.Price.Amount {
				t.Errorf("cancel with reason refunded %s of %s", cancelled.RefundAmount.Amount, booked.Price.Amount)
			}

			// Cancel without a reason code: an ordinary refund.
			status, r = c.send(t, "alpine", f, &legacy.CancelRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "refund")}, BookingRef: picked.BookingRef,
			})
			refunded := must[*legacy.CancelReply](t, status, r, http.StatusOK)
			if refunded.Status != legacy.StatusRefunded || refunded.RefundAmount == nil {
				t.Fatalf("refund: %+v", refunded)
			}

			// Cancelling again: the partner says it is done already.
			status, r = c.send(t, "alpine", f, &legacy.CancelRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "again")}, BookingRef: picked.BookingRef,
			})
			if nr := must[*legacy.NegativeReply](t, status, r, http.StatusConflict); nr.Code != legacy.CodeAlreadyCancelled {
				t.Fatalf("second cancel: %+v", nr)
			}

			// The after-sales messages: TestExampleChainAfterSales.

			// The older partner: trip-offers search, booking, refund on camelCase paths.
			status, r = c.send(t, "coastal", f, &legacy.BookingRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "coastal")}, Journey: journeyOn("9203"),
				Places: secondClassSeats(adults),
			})
			old := must[*legacy.BookingReply](t, status, r, http.StatusOK)
			status, r = c.send(t, "coastal", f, &legacy.CancelRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "coastal-cancel")}, BookingRef: old.BookingRef,
			})
			must[*legacy.CancelReply](t, status, r, http.StatusOK)
			var paths []string
			for _, ex := range c.coastal.take() {
				paths = append(paths, ex.Method+" "+ex.Path)
			}
			joined := strings.Join(paths, "\n")
			if !strings.Contains(joined, "GET /trip-offers") || !strings.Contains(joined, "/refundOffers") || strings.Contains(joined, "POST /offers") {
				t.Errorf("coastal calls do not follow its overrides:\n%s", joined)
			}

			// A train sold through another reservation system.
			status, r = c.send(t, "coastal", f, &legacy.AvailabilityRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "ext")}, Journey: journeyOn("462"), Places: secondClassSeats(adults),
			})
			rp := must[*legacy.ReplacementProposal](t, status, r, http.StatusOK)
			if len(rp.Alternatives) != 1 || rp.Alternatives[0].ReservationSystem != 80 || rp.Alternatives[0].Operator != "1080" || rp.Alternatives[0].TrainNumber != "462" {
				t.Fatalf("replacement proposal: %+v", rp)
			}
		})
	}
}

// TestExampleChainBadInput sends what a legacy client must not: each gets
// a NegativeReply with the right status, in a format the client reads.
func TestExampleChainBadInput(t *testing.T) {
	c := startExampleChain(t)
	date := journeyOn("1").DepartureDate
	avail := func(id, tariffs string) string {
		return `<AvailabilityRequest messageId="` + id + `"><Journey><TrainNumber>9203</TrainNumber><DepartureDate>` + date +
			`</DepartureDate><From>8727100</From><To>8500010</To></Journey><PlaceRequest><TravelClass>2</TravelClass>` +
			`<ServiceCode>1</ServiceCode>` + tariffs + `</PlaceRequest></AvailabilityRequest>`
	}
	cases := []struct {
		name, contentType, body string
		status                  int
		format                  legacy.Format
		text                    string
	}{
		{"malformed XML", "application/xml", `<AvailabilityRequest messageId="x1"><Journey>`, 400, legacy.XML, ""},
		{"unknown tariff", "application/xml", avail("x2", `<Tariff code="77" count="1"/>`), 400, legacy.XML, "77"},
		{"ten places", "application/xml", avail("x3", `<Tariff code="1" count="9"/><Tariff code="2" count="1"/>`), 400, legacy.XML, "9 places"},
		{"wrong content type", "text/plain", avail("x4", `<Tariff code="1" count="1"/>`), 415, legacy.XML, "Content-Type"},
		{"too large", "application/xml", avail("x5", strings.Repeat(`<Tariff code="1" count="1"/>`, 3000)), 413, legacy.XML, "longer"},
		{"malformed JSON", "application/json", `{"type":"AvailabilityRequest",`, 400, legacy.JSON, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.alpine.take()
			status, body, h := c.post(t, "alpine", tc.contentType, []byte(tc.body))
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if got := h.Get("Content-Type"); got != tc.format.ContentType() {
				t.Errorf("Content-Type %q, want %q", got, tc.format.ContentType())
			}
			r, err := legacy.DecodeReply(tc.format, body)
			if err != nil {
				t.Fatalf("reply %s: %v", body, err)
			}
			nr, ok := r.(*legacy.NegativeReply)
			if !ok || nr.Code != legacy.CodeInvalidMessage || nr.Retryable || !strings.Contains(nr.Text, tc.text) {
				t.Fatalf("reply %+v", r)
			}
			if ex := c.alpine.take(); len(ex) != 0 {
				t.Errorf("a refused message made %d OSDM calls", len(ex))
			}
		})
	}
}

// TestExampleChainResentBookingBooksOnce sends one BookingRequest twice,
// the second time while the first may still run: one booking at the
// partner, the same BookingRef in both replies.
func TestExampleChainResentBookingBooksOnce(t *testing.T) {
	c := startExampleChain(t)
	for _, f := range testFormats {
		t.Run(f.String(), func(t *testing.T) {
			before := len(c.alpine.sandboxBookings(t))
			req := &legacy.BookingRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "twice")}, Journey: journeyOn("9203"),
				Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
			}
			replies := make([]*legacy.BookingReply, 2)
			var wg sync.WaitGroup
			for i := range replies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					status, r := c.send(t, "alpine", f, req)
					replies[i], _ = r.(*legacy.BookingReply)
					if status != http.StatusOK || replies[i] == nil {
						t.Errorf("send %d: %d %+v", i, status, r)
					}
				}()
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			if replies[0].BookingRef != replies[1].BookingRef {
				t.Fatalf("two BookingRefs for one message: %s and %s", replies[0].BookingRef, replies[1].BookingRef)
			}
			if after := len(c.alpine.sandboxBookings(t)); after != before+1 {
				t.Fatalf("partner bookings %d -> %d, want one more", before, after)
			}
		})
	}
}

// TestExampleChainPartnerDiesBeforeFulfilment cuts the partner off right
// after POST /bookings: the reply is a retryable NegativeReply that names
// the booking, and the partner holds no provisional booking the reply
// does not name.
func TestExampleChainPartnerDiesBeforeFulfilment(t *testing.T) {
	c := startExampleChain(t)
	book := func(t *testing.T, f legacy.Format, step string) *legacy.NegativeReply {
		status, r := c.send(t, "alpine", f, &legacy.BookingRequest{
			Header: legacy.Header{MessageID: harness.MsgID(t, f, step)}, Journey: journeyOn("9203"),
			Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
		})
		nr, ok := r.(*legacy.NegativeReply)
		if !ok || status < 500 || !nr.Retryable || nr.BookingRef == "" {
			t.Fatalf("got %d %+v, want a retryable 5xx NegativeReply naming the booking", status, r)
		}
		return nr
	}
	statusOf := func(t *testing.T, id string) string {
		for _, b := range c.alpine.sandboxBookings(t) {
			if b.ID == id {
				return b.Status
			}
		}
		return ""
	}
	for _, f := range testFormats {
		t.Run(f.String()+"/back for the rollback", func(t *testing.T) {
			c.alpine.setFail(func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/fulfillments") })
			defer c.alpine.setFail(nil)
			nr := book(t, f, "rollback")
			if nr.Code != legacy.CodeBookingRolledBack {
				t.Fatalf("code %s, want %s", nr.Code, legacy.CodeBookingRolledBack)
			}
			if st := statusOf(t, nr.BookingRef); st != "" && !strings.Contains(strings.ToUpper(st), "CANCEL") && !strings.Contains(strings.ToUpper(st), "DELETE") {
				t.Fatalf("rolled-back booking %s is still %s at the partner", nr.BookingRef, st)
			}
		})
		t.Run(f.String()+"/gone for good", func(t *testing.T) {
			var booked bool
			var mu sync.Mutex
			c.alpine.setFail(func(r *http.Request) bool {
				mu.Lock()
				defer mu.Unlock()
				if booked {
					return true
				}
				booked = r.Method == http.MethodPost && r.URL.Path == "/bookings"
				return false
			})
			defer c.alpine.setFail(nil)
			nr := book(t, f, "gone")
			c.alpine.setFail(nil)
			// The booking the partner still holds is the one the reply names.
			if st := statusOf(t, nr.BookingRef); st == "" {
				t.Fatalf("reply names booking %s the partner does not have", nr.BookingRef)
			}
			for _, b := range c.alpine.sandboxBookings(t) {
				if strings.EqualFold(b.Status, "PREBOOKED") && b.ID != nr.BookingRef {
					t.Errorf("partner holds provisional booking %s nobody was told about", b.ID)
				}
			}
			// Cancelling it once the partner is back leaves nothing behind.
			status, r := c.send(t, "alpine", f, &legacy.CancelRequest{Header: legacy.Header{MessageID: harness.MsgID(t, f, "cleanup")}, BookingRef: nr.BookingRef})
			if cr := must[*legacy.CancelReply](t, status, r, http.StatusOK); cr.Status != legacy.StatusCancelled {
				t.Fatalf("cancel of the provisional booking: %+v", cr)
			}
		})
	}
}

// exampleLogBlock is the start of Caddyfile.example's global log block
// (Caddy's default log, with the filter that redacts Authenticate).
const exampleLogBlock = "\tlog {\n\t\tformat filter {\n"

// exampleLog is what replaces exampleLogBlock so that Caddy's default log
// goes, as JSON, to file, at level ("" for Caddy's default), keeping the
// example's filter.
func exampleLog(file, level string) string {
	opt := "\tlog {\n\t\toutput file " + file + "\n"
	if level != "" {
		opt += "\t\tlevel " + level + "\n"
	}
	return opt + "\t\tformat filter {\n\t\t\twrap json\n"
}
