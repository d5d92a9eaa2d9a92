package legacyprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

// legacyServer is the legacy reservation system of the integration tests:
// a legacy sandbox on a real HTTP server on 127.0.0.1, with a fault mode
// and a record of what reached it.
type legacyServer struct {
	sb   *legacysandbox.Sandbox
	addr string
	// mode: "" (the sandbox answers), "slow", "500", "garbage", "abort".
	mode atomic.Value
	mu   sync.Mutex
	seen []seenRequest
}

// seenRequest is what the legacy system received.
type seenRequest struct {
	method, path string
	header       http.Header
	length       int64
	body         []byte
}

func startLegacyServer(t *testing.T, cfg legacysandbox.Config) *legacyServer {
	t.Helper()
	ls := &legacyServer{sb: newSandbox(t, cfg)}
	ls.mode.Store("")
	ls.addr = harness.ServeLocal(t, ls)
	return ls
}

func (ls *legacyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	ls.mu.Lock()
	ls.seen = append(ls.seen, seenRequest{method: r.Method, path: r.URL.Path, header: r.Header.Clone(), length: r.ContentLength, body: body})
	ls.mu.Unlock()
	mode := ls.mode.Load().(string)
	if code, ok := strings.CutPrefix(mode, "nr:"); ok {
		// A NegativeReply of that code to the message, with its status.
		req, err := legacy.Decode(legacy.XML, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		nr := legacy.NewNegativeReply(legacy.ReplyTo(req, time.Now()), legacy.Code(code), "internal detail from db7.hermes.local")
		out, _ := legacy.Encode(legacy.XML, nr)
		w.Header().Set("Content-Type", legacy.XML.ContentType())
		w.WriteHeader(legacy.Code(code).HTTPStatus())
		_, _ = w.Write(out)
		return
	}
	switch mode {
	case "slow":
		time.Sleep(1500 * time.Millisecond)
	case "500":
		http.Error(w, "internal error in db7.hermes.local", http.StatusInternalServerError)
		return
	case "garbage":
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write([]byte("<AvailabilityReply correlationId="))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	ls.sb.ServeHTTP(w, r)
}

func (ls *legacyServer) requests() []seenRequest {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return append([]seenRequest(nil), ls.seen...)
}

func (ls *legacyServer) reset() {
	ls.mu.Lock()
	ls.seen = nil
	ls.mu.Unlock()
}

// legacyChain is a Caddy with osdm_legacy at /osdm/ in front of a legacy
// server, and its log file.
type legacyChain struct {
	base string
	ls   *legacyServer
	log  string
}

// startLegacyChain is a legacyChain over harness.LegacyGTFS, with
// osdm_legacy's timeout at 1s and extra added to its subdirectives.
func startLegacyChain(t *testing.T, extra string, sbcfg legacysandbox.Config) *legacyChain {
	t.Helper()
	return startChainOver(t, func(dir string) string { return harness.LegacyGTFS(t, dir) }, "1s", extra, sbcfg)
}

// startChainOver starts a legacy server of sbcfg and a legacyChain in
// front of it whose osdm_legacy reads the timetable gtfs writes into a
// directory of the test's, with concurrency 4, the call timeout given and
// extra added to its subdirectives.
func startChainOver(t *testing.T, gtfs func(dir string) string, timeout, extra string, sbcfg legacysandbox.Config) *legacyChain {
	t.Helper()
	dir := t.TempDir()
	timetable := gtfs(dir)
	ls := startLegacyServer(t, sbcfg)
	logFile := filepath.Join(dir, "caddy.log")
	base := harness.ServeSite(t, harness.Options(harness.LogOption(logFile, "DEBUG")), func(port int) string {
		return harness.LegacyRoute("/osdm", ls.addr,
			"partner hermes-test", "timetable "+timetable, "concurrency 4", "timeout "+timeout, "store bolt "+filepath.Join(dir, "legacy.db")+extra)
	})
	return &legacyChain{base: base + "/osdm", ls: ls, log: logFile}
}

// post sends an OSDM request (checked against the spec) and returns the
// answer (checked too).
func (lc *legacyChain) post(t *testing.T, path string, body string, version osdmspec.Version) (int, http.Header, []byte) {
	t.Helper()
	c := harness.OSDMClient{Base: lc.base, Version: version, Header: harness.SecretHeader()}
	a := c.Do(t, http.MethodPost, path, body, nil)
	return a.Status, a.Header, a.Body
}

func TestOSDMLegacyIntegrationOfferSearch(t *testing.T) {
	lc := startLegacyChain(t, "\n\t\t\twindow 6h", legacysandbox.Config{Foreign: []legacysandbox.Foreign{{Train: "9308", System: 80, Operator: "1080"}}})

	// A named train, both classes: two legacy messages through reverse_proxy.
	status, h, body := lc.post(t, "/offers", harness.OfferSearch(`"9303"`, harness.TravelDay+"T06:00:00+01:00", `"ANY_CLASS"`), osdmspec.V39)
	var resp osdm.OfferCollectionResponse
	if err := json.Unmarshal(body, &resp); err != nil || status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	if len(resp.Offers) != 2 || len(resp.Trips) != 1 || h.Get("Content-Type") != "application/json" {
		t.Fatalf("offers %d trips %d: %s", len(resp.Offers), len(resp.Trips), body)
	}
	if got := resp.Trips[0].StartTime.Format("15:04"); got != "08:10" {
		t.Errorf("9303 departs %s in the answer, want 08:10 from the timetable", got)
	}
	seen := lc.ls.requests()
	if len(seen) != 2 {
		t.Fatalf("%d legacy messages, want 2", len(seen))
	}
	for _, s := range seen {
		if s.method != http.MethodPost || s.path != "/" || !strings.HasPrefix(s.header.Get("Content-Type"), "application/xml") {
			t.Errorf("legacy request %s %s %q", s.method, s.path, s.header.Get("Content-Type"))
		}
		if s.length != int64(len(s.body)) || s.length == 0 {
			t.Errorf("Content-Length %d for a body of %d bytes", s.length, len(s.body))
		}
		for _, h := range []string{"Authorization", "Cookie"} {
			if v := s.header.Get(h); v != "" {
				t.Errorf("the legacy system got the client's %s: %q", h, v)
			}
		}
		// Go's transport adds its own "gzip"; the client's "br, gzip" must not pass.
		if v := s.header.Get("Accept-Encoding"); v != "" && v != "gzip" {
			t.Errorf("the legacy system got the client's Accept-Encoding: %q", v)
		}
		req, err := legacy.Decode(legacy.XML, s.body)
		if err != nil {
			t.Fatalf("legacy body: %v\n%s", err, s.body)
		}
		ar := req.(*legacy.AvailabilityRequest)
		if ar.Journey.TrainNumber != "9303" || ar.Journey.DepartureTime != "08:10" || ar.Places.Places() != 2 {
			t.Errorf("legacy request %+v %+v", ar.Journey, ar.Places)
		}
	}

	// The timetable's trains from 06:00, max_trains 8 (default), second
	// class: 8 messages; 9308 is another system's (ALTERNATIVE_SYSTEM_PROPOSAL,
	// valid against 3.10).
	lc.ls.reset()
	status, _, body = lc.post(t, "/offers", harness.OfferSearch("", harness.TravelDay+"T06:00:00", `"SECOND"`), osdmspec.V310)
	resp = osdm.OfferCollectionResponse{}
	if err := json.Unmarshal(body, &resp); err != nil || status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	if n := len(lc.ls.requests()); n != 5 {
		// numberOfResultsAfter defaults to 5 in the spec.
		t.Errorf("%d legacy messages, want 5 (06:10..10:10)", n)
	}
	lc.ls.reset()
	tt := strings.Replace(harness.OfferSearch("", harness.TravelDay+"T06:00:00", `"SECOND"`), `"departureTime": "`+harness.TravelDay+`T06:00:00"`,
		`"departureTime": "`+harness.TravelDay+`T10:00:00", "parameters": {"numberOfResultsAfter": 10, "numberOfResultsBefore": 3}`, 1)
	status, _, body = lc.post(t, "/offers", tt, osdmspec.V310)
	resp = osdm.OfferCollectionResponse{}
	if err := json.Unmarshal(body, &resp); err != nil || status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	if n := len(lc.ls.requests()); n != 8 {
		t.Errorf("%d legacy messages, want 8 (max_trains)", n)
	}
	// From 10:00 within 6h, 3 before and 10 after are 07:10..15:10; the 8
	// nearest drop 15:10.
	if first, last := resp.Trips[0].StartTime.Format("15:04"), resp.Trips[len(resp.Trips)-1].StartTime.Format("15:04"); first != "07:10" || last != "14:10" {
		t.Errorf("trains %s..%s, want 07:10..14:10", first, last)
	}
	asp := 0
	for _, p := range resp.Problems {
		if p.IsAlternativeSystemProposal() {
			asp++
			if p.AlternativeSystemProposals[0].SystemOperatorCode != "urn:uic:rics:1080" {
				t.Errorf("proposal %+v", p.AlternativeSystemProposals)
			}
		}
	}
	if asp != 1 || len(resp.Offers) != 7 || len(resp.Trips) != 8 {
		t.Errorf("%d proposals, %d offers, %d trips; want 1, 7, 8", asp, len(resp.Offers), len(resp.Trips))
	}

	// Paths: not offered, unknown, wrong method.
	for _, tc := range []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodPost, "/bookings/x/release-offers", 501, osdm.CodeOperationNotPermitted},
		{http.MethodGet, "/nothing", 404, osdm.CodeResourceNotFound},
		{http.MethodGet, "/offers", 405, osdm.CodeOperationNotPermitted},
	} {
		req, _ := http.NewRequest(tc.method, lc.base+tc.path, nil)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		var p osdm.Problem
		_ = json.Unmarshal(b, &p)
		if r.StatusCode != tc.status || p.Code != tc.code || r.Header.Get("Content-Type") != osdm.ContentTypeProblem {
			t.Errorf("%s %s: %d %s", tc.method, tc.path, r.StatusCode, b)
		}
	}

	// One log line per OSDM call with its legacy messages; no token, no cookie.
	time.Sleep(100 * time.Millisecond)
	logs := harness.ReadFiles(t, lc.log)
	if bytes.Contains(logs, []byte("secret-access-token-xyz")) || bytes.Contains(logs, []byte("secret-cookie")) {
		t.Error("a token or cookie reached the log")
	}
	found := false
	for _, line := range bytes.Split(logs, []byte("\n")) {
		var entry struct {
			Msg       string `json:"msg"`
			Operation string `json:"operation"`
			FanOut    int    `json:"fan_out"`
			Messages  []struct {
				Kind, Outcome string
			} `json:"legacy_messages"`
		}
		if json.Unmarshal(line, &entry) == nil && entry.Msg == "osdm call" && entry.Operation == "POST /offers" && entry.FanOut == 2 {
			found = len(entry.Messages) == 2 && entry.Messages[0].Kind == "AvailabilityRequest" && entry.Messages[0].Outcome == "AvailabilityReply"
		}
	}
	if !found {
		t.Errorf("no log line for the first search with its 2 legacy messages:\n%s", logs)
	}
}

func TestOSDMLegacyIntegrationRestrictions(t *testing.T) {
	lc := startLegacyChain(t, "", legacysandbox.Config{})
	named := harness.OfferSearch(`"9303"`, harness.TravelDay+"T06:00:00+01:00", `"SECOND"`)
	cases := []struct {
		name, body, pointer string
		restriction         osdmlegacy.Restriction
	}{
		{"via", strings.Replace(named, `"departureTime"`, `"vias": [{"viaPlace": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8722326"}}], "departureTime"`, 1), "#/tripSearchCriteria/vias", osdmlegacy.RestrictDirect},
		{"return", strings.Replace(named, `"offerSearchCriteria": {`, `"offerSearchCriteria": {"inboundDate": "`+harness.ReturnDay+`T06:00:00Z", `, 1), "#/offerSearchCriteria/inboundDate", osdmlegacy.RestrictDirect},
		{"train over 5", strings.Replace(named, `"9303"`, `"930312"`, 1), "#/tripSearchCriteria/parameters/dataFilter/vehicleFilter/vehicleNumbers[0]", osdmlegacy.RestrictKnownTrain},
		{"non-UIC", strings.Replace(named, `"urn:uic:stn:8727100"`, `"urn:uic:stn:87271"`, 1), "#/tripSearchCriteria/origin/stopPlaceRef", osdmlegacy.RestrictUICStations},
		{"admission", strings.Replace(named, `"travelClasses": ["SECOND"]`, `"requestedOfferParts": ["ADMISSION"]`, 1), "#/offerSearchCriteria/requestedOfferParts", osdmlegacy.RestrictReservations},
		{"ten passengers", strings.Replace(named, `{"externalRef": "p2", "type": "CHILD", "age": 7}`,
			`{"externalRef": "p2", "type": "CHILD", "age": 7}`+strings.Repeat(`, {"externalRef": "q", "type": "ADULT", "age": 40}`, 1)+`, {"externalRef": "q3", "type": "ADULT", "age": 40}, {"externalRef": "q4", "type": "ADULT", "age": 40}, {"externalRef": "q5", "type": "ADULT", "age": 40}, {"externalRef": "q6", "type": "ADULT", "age": 40}, {"externalRef": "q7", "type": "ADULT", "age": 40}, {"externalRef": "q8", "type": "ADULT", "age": 40}, {"externalRef": "q9", "type": "ADULT", "age": 40}`, 1),
			"#/anonymousPassengerSpecifications[9]", osdmlegacy.RestrictPassengers},
		{"no tariff", strings.Replace(named, `"type": "CHILD", "age": 7`, `"type": "PRM", "age": 7`, 1), "#/anonymousPassengerSpecifications[1]/type", osdmlegacy.RestrictPassengers},
		{"individual", strings.Replace(named, `"travelClasses": ["SECOND"]`, `"offerMode": "INDIVIDUAL"`, 1), "#/offerSearchCriteria/offerMode", osdmlegacy.RestrictOneOffer},
	}
	for _, tc := range cases {
		status, _, body := lc.post(t, "/offers", tc.body, osdmspec.V39)
		var p osdm.Problem
		_ = json.Unmarshal(body, &p)
		if status != 422 || p.Type != tc.restriction.TypeURI() || len(p.Pointers) == 0 || p.Pointers[0].RequestPointer != tc.pointer {
			t.Errorf("%s: %d %s", tc.name, status, body)
		}
	}
	if n := len(lc.ls.requests()); n != 0 {
		t.Errorf("%d legacy messages sent for refused searches", n)
	}
}

func TestOSDMLegacyIntegrationLegacyFaults(t *testing.T) {
	lc := startLegacyChain(t, "", legacysandbox.Config{Capacity: 1})
	search := harness.OfferSearch(`"9303"`, harness.TravelDay+"T06:00:00+01:00", `"SECOND"`)
	for _, tc := range []struct {
		mode   string
		status int
		code   string
	}{
		{"slow", 504, osdm.CodeTimeout},
		{"500", 503, osdm.CodeServiceUnavailable},
		{"garbage", 502, osdm.CodeBadGateway},
		// Capacity 1, two passengers: the sandbox has no offer.
		{"", 409, osdm.CodeInsufficientAvailability},
	} {
		lc.ls.mode.Store(tc.mode)
		status, _, body := lc.post(t, "/offers", search, osdmspec.V39)
		var p osdm.Problem
		_ = json.Unmarshal(body, &p)
		if status != tc.status || p.Code != tc.code || bytes.Contains(body, []byte("db7")) {
			t.Errorf("mode %q: %d %s, want %d %s", tc.mode, status, body, tc.status, tc.code)
		}
	}
	// Every NegativeReply code, answered with its HTTP status.
	for _, code := range legacy.Codes {
		lc.ls.mode.Store("nr:" + string(code))
		status, _, body := lc.post(t, "/offers", search, osdmspec.V39)
		var p osdm.Problem
		_ = json.Unmarshal(body, &p)
		nr := osdmlegacy.NegativeProblem(&legacy.NegativeReply{Code: code}, "")
		if code == legacy.CodeTrainNotFound {
			nr = osdm.NewProblem(404, osdm.CodeOfferNoResults, "")
		}
		if status != nr.Status || p.Code != nr.Code || bytes.Contains(body, []byte("db7")) {
			t.Errorf("NegativeReply %s: %d %s, want %d %s", code, status, body, nr.Status, nr.Code)
		}
	}
	lc.ls.mode.Store("")
	// A train the legacy system does not run (000 never runs in the demo).
	status, _, body := lc.post(t, "/offers", harness.OfferSearch(`"000"`, harness.TravelDay+"T06:00:00+01:00", `"SECOND"`), osdmspec.V39)
	if status != 404 || !bytes.Contains(body, []byte(osdm.CodeOfferNoResults)) {
		t.Errorf("train not run: %d %s", status, body)
	}
}

func TestOSDMLegacyIntegrationLegacyDown(t *testing.T) {
	// reverse_proxy to a port nobody listens on.
	dir := t.TempDir()
	dead := harness.FreePort(t)
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return harness.LegacyRoute("/osdm", fmt.Sprintf("127.0.0.1:%d", dead), "partner hermes-down", "store bolt "+filepath.Join(dir, "x.db"))
	})
	lc := &legacyChain{base: base + "/osdm"}
	status, _, body := lc.post(t, "/offers", harness.OfferSearch(`"9303"`, harness.TravelDay+"T06:00:00+01:00", `"SECOND"`), osdmspec.V39)
	var p osdm.Problem
	_ = json.Unmarshal(body, &p)
	if status != 503 || p.Code != osdm.CodeServiceUnavailable || strings.Contains(string(body), "127.0.0.1") {
		t.Errorf("legacy down: %d %s", status, body)
	}
}
