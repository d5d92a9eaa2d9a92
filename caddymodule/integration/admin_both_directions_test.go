package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

// The tests of this file ask every admin endpoint of admin.api.osdm,
// over and over, while bookings run in both directions at once, on the
// instances of one deployment:
//
//   - legacy -> OSDM: a legacy client books at partner alpine (an
//     osdm_sandbox behind its own osdm_login) through osdm_convert;
//   - both: a legacy client books at partner hermes through osdm_convert,
//     whose OSDM partner is the deployment's own osdm_legacy (any
//     instance's: reverse_proxy balances over them), in front of a
//     legacy system (legacy_sandbox);
//   - OSDM -> legacy: an OSDM client books at osdm_legacy directly,
//     searching on one instance and booking on another.
//
// osdm_convert's journal, osdm_legacy's bookings and the login service's
// replay store are one store of the osdm app: a bolt file (one instance)
// or a Redis (two instances sharing it). The partner and the legacy
// system run in a Caddy process of their own; the first instance runs in
// the test process (so the race detector sees its handlers and the admin
// API), the second in a child process.

// Names the travellers of these tests have: no admin answer may show
// them unmasked.
var adminTravellers = []string{"Philippa", "Quennell", "Ottoline", "Wexford"}

// adminRig is the deployment of these tests.
type adminRig struct {
	t              *testing.T
	keys           string
	alpine, legacy int // the partner's and the legacy system's ports
	fronts         []adminFront
	engine         string // of the shared store: bolt or redis
}

// adminFront is one instance: its legacy side, its OSDM provider site
// (osdm_login, osdm_legacy) and its admin endpoint.
type adminFront struct {
	legacyPort, hermesPort, adminPort int
}

// legacyURL is the instance's route to partner, for legacy messages.
func (f adminFront) legacyURL(partner string) string {
	return fmt.Sprintf("http://127.0.0.1:%d/partners/%s", f.legacyPort, partner)
}

// hermesBase is the instance's OSDM provider site (login, /osdm/...).
func (f adminFront) hermesBase() string { return fmt.Sprintf("http://127.0.0.1:%d", f.hermesPort) }

// admin is the instance's admin endpoint.
func (f adminFront) admin() string { return fmt.Sprintf("http://127.0.0.1:%d", f.adminPort) }

// adminBackendCaddyfile is the partner alpine (login, access check,
// sandbox) and the legacy system.
func adminBackendCaddyfile(keys string, alpine, legacyPort int) string {
	return `{
	admin off
	persist_config off
}
` + partnerSite(keys, "alpine", alpine, "", "RS256", "", "\t\tosdm_sandbox {\n\t\t\tcapacity 1000\n\t\t}\n") + fmt.Sprintf(`
http://127.0.0.1:%d {
	bind 127.0.0.1
	legacy_sandbox {
		system 9999
		capacity 1000
	}
}
`, legacyPort)
}

// partnerSite is the OSDM provider site of partner on port, with the
// demo keys in keys: at /oauth/token osdm_login, issuer
// https://login.<partner>.example, with login (more subdirectives, each
// after "\n\t\t\t") and client example-railway's key <partner>.pub
// (of alg) named <partner>-demo-1; and a route (on match, with its
// leading space, or "" for all) where osdm_access checks the tokens it
// issues before handlers (lines indented by two tabs).
func partnerSite(keys, partner string, port int, login, alg, match, handlers string) string {
	return fmt.Sprintf(`
http://127.0.0.1:%[3]d {
	bind 127.0.0.1
	route /oauth/token {
		osdm_login {
			signing_key_file %[1]s/login.pem
			issuer https://login.%[2]s.example
			audience http://127.0.0.1:%[3]d/oauth/token%[4]s
			client example-railway {
				alg %[5]s
				key %[2]s-demo-1 %[1]s/%[2]s.pub
				scope uic_osdm
			}
		}
	}
	route%[6]s {
		osdm_access {
			key_file %[1]s/login.pub
			issuer https://login.%[2]s.example
			audience https://login.%[2]s.example
		}
%[7]s	}
}
`, keys, partner, port, login, alg, match, handlers)
}

// frontCaddyfile is instance f of the rig: store is the osdm app's
// "store shared ..." line (with its block); osdm_convert's hermes route
// balances over every instance's osdm_legacy. Settlement runs only when
// asked for (POST /osdm/settle).
func (rig *adminRig) frontCaddyfile(f adminFront, store string) string {
	var hermes []string
	for _, o := range rig.fronts {
		hermes = append(hermes, fmt.Sprintf("127.0.0.1:%d", o.hermesPort))
	}
	return fmt.Sprintf(`{
	admin 127.0.0.1:%[1]d
	persist_config off
	osdm {
		%[2]s
		settle_interval 1h
	}
}

http://127.0.0.1:%[3]d {
	bind 127.0.0.1
%[4]s%[5]s}
`, f.adminPort, store, f.legacyPort,
		rig.convertRoute("alpine", rig.alpine, fmt.Sprintf("127.0.0.1:%d", rig.alpine), "", ""),
		rig.convertRoute("hermes", f.hermesPort, strings.Join(hermes, " "), "\n\t\t\tpath_prefix /osdm", "\n\t\t\tlb_policy round_robin")) +
		partnerSite(rig.keys, "hermes", f.hermesPort, "\n\t\t\treplay_store shared", "ES256", " /osdm/*", fmt.Sprintf(`		uri strip_prefix /osdm
		osdm_legacy {
			partner hermes
			store shared
			hold 20m
			settle_interval 1h
		}
		reverse_proxy 127.0.0.1:%d {
			transport osdm
			header_up Host {upstream_hostport}
		}
`, rig.legacy))
}

// convertRoute is an instance's route to partner: osdm_convert on the
// shared store, settling only when asked, with more subdirectives (each
// after "\n\t\t\t"); osdm_token logging in at the partner's login on
// loginPort with the demo key <partner>.pem named <partner>-demo-1; and
// reverse_proxy to upstreams over transport osdm, with balance (its
// lb_policy line, or "").
func (rig *adminRig) convertRoute(partner string, loginPort int, upstreams, more, balance string) string {
	return fmt.Sprintf(`	route /partners/%[1]s {
		osdm_convert {
			partner %[1]s%[5]s
			store shared
			settle_interval 1h
		}
		osdm_token {
			token_url http://127.0.0.1:%[2]d/oauth/token
			key_file %[3]s/%[1]s.pem
			kid %[1]s-demo-1
			issuer https://reservations.example-railway.eu
			subject example-railway
			partner %[1]s
		}
		reverse_proxy %[4]s {%[6]s
			transport osdm
			header_up Host {upstream_hostport}
		}
	}
`, partner, loginPort, rig.keys, upstreams, more, balance)
}

// startAdminRig starts the backend and n instances on the store that
// store (an osdm app "store shared ..." line) names.
func startAdminRig(t *testing.T, n int, engine, store string) *adminRig {
	t.Helper()
	warmSpec(t)
	keys := t.TempDir()
	if err := command.WriteDemoKeys(keys, io.Discard); err != nil {
		t.Fatal(err)
	}
	rig := &adminRig{t: t, keys: keys, alpine: harness.FreePort(t), legacy: harness.FreePort(t), engine: engine}
	dir := t.TempDir()
	harness.StartCaddy(t, dir, "backend", adminBackendCaddyfile(keys, rig.alpine, rig.legacy))
	for range n {
		rig.fronts = append(rig.fronts, adminFront{legacyPort: harness.FreePort(t), hermesPort: harness.FreePort(t), adminPort: harness.FreePort(t)})
	}
	for i, f := range rig.fronts {
		cf := rig.frontCaddyfile(f, store)
		if i == 0 {
			harness.LoadNamed(t, "front", cf)
		} else {
			harness.StartCaddy(t, dir, fmt.Sprintf("front%d", i), cf)
		}
	}
	return rig
}

// adminBooking is one booking the run made, by its references.
type adminBooking struct {
	kind string // "alpine", "hermes" (through osdm_convert), "osdm" (an OSDM client at osdm_legacy)
	// message is osdm_convert's BookingRequest messageId; ref its
	// BookingRef (the OSDM booking id at the partner).
	message, ref string
	// booking is osdm_legacy's booking id and legacyRef the legacy
	// system's BookingRef (hermes and osdm kinds).
	booking, legacyRef string
}

// adminRun is the shared state of one run: the bookings made so far, as
// the poller reads them.
type adminRun struct {
	mu       sync.Mutex
	bookings []adminBooking
	inFlight atomic.Int64
}

func (r *adminRun) add(b adminBooking) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bookings = append(r.bookings, b)
}

func (r *adminRun) all() []adminBooking {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bookings)
}

// adminHTTP is the client of the run's goroutines (no t.Fatal there).
var adminHTTP = &http.Client{Timeout: 60 * time.Second}

// call makes one request and returns its answer.
func call(method, url, contentType, body string, header http.Header) (int, []byte, http.Header, error) {
	req, err := harness.NewRequest(method, url, contentType, body, header)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := adminHTTP.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header, err
}

// bookLegacy books train 9203 at partner through instance f's
// osdm_convert (an availability, then the booking of its first offer).
func (rig *adminRig) bookLegacy(f adminFront, partner, id string) (adminBooking, error) {
	c := harness.LegacyClient{URL: f.legacyURL(partner), HTTP: adminHTTP}
	journey, places := journeyOn("9203"), secondClassSeats(legacy.Tariff{Code: 1, Count: 1})
	a, err := c.Try(&legacy.AvailabilityRequest{Header: legacy.Header{MessageID: id + "-a"}, Journey: journey, Places: places})
	av, ok := a.Reply.(*legacy.AvailabilityReply)
	if err != nil || !ok || len(av.Offers) == 0 {
		return adminBooking{}, fmt.Errorf("%s availability %s: %v %d %s", partner, id, err, a.Status, a.Body)
	}
	a, err = c.Try(&legacy.BookingRequest{Header: legacy.Header{MessageID: id + "-b"}, Journey: journey, Places: places,
		OfferRef: av.Offers[0].OfferRef, Passengers: []legacy.Passenger{{FirstName: "Philippa", LastName: "Quennell"}}})
	br, ok := a.Reply.(*legacy.BookingReply)
	if err != nil || !ok || br.BookingRef == "" {
		return adminBooking{}, fmt.Errorf("%s booking %s: %v %d %s", partner, id, err, a.Status, a.Body)
	}
	return adminBooking{kind: partner, message: id + "-b", ref: br.BookingRef}, nil
}

// bookOSDM books train 9203 at osdm_legacy as an OSDM client: it logs in
// at instance f, searches there, books at instance g and fulfils at f.
func (rig *adminRig) bookOSDM(f, g adminFront) (adminBooking, error) {
	var tok strings.Builder
	if err := command.RunToken(context.Background(), command.TokenOptions{
		TokenURL: f.hermesBase() + "/oauth/token", KeyFile: filepath.Join(rig.keys, "hermes.pem"), Kid: "hermes-demo-1",
		Issuer: "https://reservations.example-railway.eu", Subject: "example-railway",
	}, &tok); err != nil {
		return adminBooking{}, err
	}
	h := http.Header{"Authenticate": {"Bearer " + strings.TrimSpace(tok.String())}}
	search := `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "departureTime": "` + journeyOn("9203").DepartureDate + `T06:00:00+01:00",
	  "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["9203"]}}}},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`
	status, b, _, err := call(http.MethodPost, f.hermesBase()+"/osdm/offers", "application/json", search, h)
	var offers struct {
		Offers []struct {
			OfferID string `json:"offerId"`
		} `json:"offers"`
	}
	if err != nil || status != http.StatusOK || json.Unmarshal(b, &offers) != nil || len(offers.Offers) == 0 {
		return adminBooking{}, fmt.Errorf("offers: %v %d %s", err, status, b)
	}
	key := http.Header{"Idempotency-Key": {uuid.NewString()}, "Authenticate": h["Authenticate"]}
	status, b, _, err = call(http.MethodPost, g.hermesBase()+"/osdm/bookings", "application/json", `{"offers": [{"offerId": "`+offers.Offers[0].OfferID+`", "passengerRefs": ["p1"]}],
	  "passengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40, "detail": {"firstName": "Ottoline", "lastName": "Wexford"}}]}`, key)
	var booked struct {
		Booking struct {
			ID string `json:"id"`
		} `json:"booking"`
	}
	if err != nil || status != http.StatusOK || json.Unmarshal(b, &booked) != nil || booked.Booking.ID == "" {
		return adminBooking{}, fmt.Errorf("booking: %v %d %s", err, status, b)
	}
	key = http.Header{"Idempotency-Key": {uuid.NewString()}, "Authenticate": h["Authenticate"]}
	status, b, _, err = call(http.MethodPost, f.hermesBase()+"/osdm/bookings/"+booked.Booking.ID+"/fulfillments", "application/json", "{}", key)
	if err != nil || status != http.StatusOK {
		return adminBooking{}, fmt.Errorf("fulfilment of %s: %v %d %s", booked.Booking.ID, err, status, b)
	}
	return adminBooking{kind: "osdm", booking: booked.Booking.ID}, nil
}

// checkAnswer is what every admin answer must be: 200, JSON, complete
// (no Osdm-Partial), with no token, key or unmasked name.
func checkAnswer(what string, status int, body []byte, h http.Header, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("%s: %v", what, err)
	case status != http.StatusOK:
		return fmt.Errorf("%s: %d %s", what, status, body)
	case !strings.HasPrefix(h.Get("Content-Type"), "application/json"):
		return fmt.Errorf("%s: Content-Type %q", what, h.Get("Content-Type"))
	case h.Get("Osdm-Partial") != "":
		return fmt.Errorf("%s: partial answer: %s", what, h.Get("Osdm-Partial"))
	}
	// A JWT (an access or identity token) starts with the base64url of
	// `{"`; a key file with its PEM armour.
	for _, secret := range []string{"eyJ", "PRIVATE KEY", "BEGIN "} {
		if bytes.Contains(body, []byte(secret)) {
			return fmt.Errorf("%s: the answer holds %q: %s", what, secret, body)
		}
	}
	for _, name := range adminTravellers {
		if bytes.Contains(body, []byte(name)) {
			return fmt.Errorf("%s: the answer shows the name %s: %s", what, name, body)
		}
	}
	return nil
}

// wellFormed decodes an admin answer strictly into the type of its
// endpoint and checks the fields an operator reads are there.
func (rig *adminRig) wellFormed(endpoint string, body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	direction := func(d string) bool { return d == opstatus.LegacyToOSDM || d == opstatus.OSDMToLegacy }
	switch endpoint {
	case "partners":
		var ps []opstatus.Partner
		if err := dec.Decode(&ps); err != nil {
			return err
		}
		names := map[string]bool{}
		for _, p := range ps {
			names[p.Partner] = true
			if p.Token == nil || p.Token.TokenURL == "" || p.Calls == nil || p.Calls.InFlight < 0 {
				return fmt.Errorf("partner %+v", p)
			}
		}
		if !names["alpine"] || !names["hermes"] {
			return fmt.Errorf("partners %v, want alpine and hermes", names)
		}
	case "pending":
		var ps []opstatus.Pending
		if err := dec.Decode(&ps); err != nil {
			return err
		}
		for _, p := range ps {
			if !direction(p.Direction) || p.Kind == "" || p.Ref == "" || p.Since.IsZero() || p.Age < 0 {
				return fmt.Errorf("pending %+v", p)
			}
		}
	case "stores":
		var ss []struct {
			Name, Engine, Where, Check string
			Open                       bool
		}
		if err := dec.Decode(&ss); err != nil {
			return err
		}
		if len(ss) != 1 || ss[0].Name != "shared" || ss[0].Engine != rig.engine || !ss[0].Open || ss[0].Check != "ok" || ss[0].Where == "" {
			return fmt.Errorf("stores %+v", ss)
		}
	case "settle":
		var s struct {
			Ran []struct {
				Job     string
				Seconds float64
			}
			PendingBefore int `json:"pending_before"`
			PendingAfter  int `json:"pending_after"`
			Error         string
		}
		if err := dec.Decode(&s); err != nil {
			return err
		}
		if len(s.Ran) == 0 || s.Error != "" {
			return fmt.Errorf("settle %+v", s)
		}
	case "booking":
		var recs []opstatus.Record
		if err := dec.Decode(&recs); err != nil {
			return err
		}
		if len(recs) == 0 {
			return fmt.Errorf("no record")
		}
		for _, r := range recs {
			if !direction(r.Direction) || r.Partner == "" || len(r.Refs) == 0 || r.State == "" {
				return fmt.Errorf("record %+v", r)
			}
		}
	}
	return nil
}

// adminEndpoints are the endpoints the pollers ask; "booking" stands
// for GET /osdm/bookings/{ref} of every reference known so far.
var adminEndpoints = []struct{ method, path, kind string }{
	{http.MethodGet, "/osdm/partners", "partners"},
	{http.MethodGet, "/osdm/pending", "pending"},
	{http.MethodGet, "/osdm/stores", "stores"},
	{http.MethodPost, "/osdm/settle", "settle"},
	{http.MethodGet, "/osdm/bookings/", "booking"},
}

// poll asks one endpoint of instance f once (for "booking": for each
// reference of each booking made so far) and checks the answers; calls
// that started and ended while bookings were under way count as
// overlapped.
func (rig *adminRig) poll(run *adminRun, f adminFront, method, path, kind string) (overlapped int, err error) {
	urls := []string{f.admin() + path}
	if kind == "booking" {
		urls = nil
		for _, bk := range run.all() {
			for _, ref := range bk.refs() {
				urls = append(urls, f.admin()+path+ref)
			}
		}
		if len(urls) == 0 {
			time.Sleep(10 * time.Millisecond) // no booking yet
		}
	}
	for _, url := range urls {
		busy := run.inFlight.Load() > 0
		status, b, h, err := call(method, url, "", "", nil)
		what := method + " " + url
		if err := checkAnswer(what, status, b, h, err); err != nil {
			return overlapped, err
		}
		if err := rig.wellFormed(kind, b); err != nil {
			return overlapped, fmt.Errorf("%s: %v in %s", what, err, b)
		}
		if busy && run.inFlight.Load() > 0 {
			overlapped++
		}
	}
	return overlapped, nil
}

// refs are the references the booking is known by so far.
func (b adminBooking) refs() []string {
	var out []string
	for _, r := range []string{b.message, b.ref, b.booking, b.legacyRef} {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}

// runBothDirections makes perWorker bookings on each of workers
// goroutines per kind and instance, while one goroutine polls the admin
// API; then it checks each booking is found by each of its references on
// every instance, with its final state.
func (rig *adminRig) runBothDirections(workers, perWorker int) {
	t := rig.t
	run := &adminRun{}
	stop := make(chan struct{})
	// One poller per endpoint and instance, from before the first
	// booking to after the last.
	type polled struct {
		kind              string
		calls, overlapped int
	}
	results := make(chan polled)
	pollers := 0
	for _, f := range rig.fronts {
		for _, e := range adminEndpoints {
			pollers++
			go func() {
				p := polled{kind: e.kind}
				defer func() { results <- p }()
				for {
					n, err := rig.poll(run, f, e.method, e.path, e.kind)
					p.calls++
					p.overlapped += n
					if err != nil {
						t.Error(err)
						return
					}
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond): // a breath for the machine
					}
				}
			}()
		}
	}

	var wg sync.WaitGroup
	for i, f := range rig.fronts {
		g := rig.fronts[(i+1)%len(rig.fronts)]
		for w := range workers {
			for _, kind := range []string{"alpine", "hermes", "osdm"} {
				wg.Go(func() {
					for n := range perWorker {
						run.inFlight.Add(1)
						var b adminBooking
						var err error
						if kind == "osdm" {
							b, err = rig.bookOSDM(f, g)
						} else {
							b, err = rig.bookLegacy(f, kind, fmt.Sprintf("adm2-%s-%d-%d-%d-%s", kind, i, w, n, harness.RandomHex(3)))
						}
						run.inFlight.Add(-1)
						if err != nil {
							t.Error(err)
							return
						}
						run.add(b)
					}
				})
			}
		}
	}
	wg.Wait()
	close(stop)
	overlapped := map[string]int{}
	calls := map[string]int{}
	for range pollers {
		p := <-results
		overlapped[p.kind] += p.overlapped
		calls[p.kind] += p.calls
	}
	if t.Failed() {
		t.FailNow()
	}
	bookings := run.all()
	if want := len(rig.fronts) * workers * 3 * perWorker; len(bookings) != want {
		t.Fatalf("%d bookings made, want %d", len(bookings), want)
	}
	for _, e := range adminEndpoints {
		if overlapped[e.kind] == 0 {
			t.Errorf("no call of %s %s answered while bookings ran (%d rounds in all)", e.method, e.path, calls[e.kind])
		}
	}
	t.Logf("%d bookings; rounds of admin calls by endpoint %v, calls answered while bookings ran %v", len(bookings), calls, overlapped)

	// After the run: every booking by each of its references, on every
	// instance, in its final state.
	for _, f := range rig.fronts {
		for _, b := range bookings {
			rig.checkFinal(f, b)
		}
	}
	// Nothing left to settle: every booking ended.
	for _, f := range rig.fronts {
		var pending []opstatus.Pending
		if body := adminGet(t, f.admin()+"/osdm/pending", http.StatusOK, &pending); len(pending) != 0 {
			t.Errorf("pending after the run: %s", body)
		}
	}
}

// find asks instance f for ref, checking the answer as the poller does.
func (rig *adminRig) find(f adminFront, ref string) []opstatus.Record {
	t := rig.t
	t.Helper()
	status, b, h, err := call(http.MethodGet, f.admin()+"/osdm/bookings/"+ref, "", "", nil)
	if err := checkAnswer("GET /osdm/bookings/"+ref, status, b, h, err); err != nil {
		t.Fatal(err)
	}
	if err := rig.wellFormed("booking", b); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	var recs []opstatus.Record
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// byDirection indexes records by direction; a direction twice is a
// failure.
func byDirection(t *testing.T, ref string, recs []opstatus.Record) map[string]opstatus.Record {
	t.Helper()
	out := map[string]opstatus.Record{}
	for _, r := range recs {
		if _, dup := out[r.Direction]; dup {
			t.Fatalf("%s: two records %s: %+v", ref, r.Direction, recs)
		}
		out[r.Direction] = r
	}
	return out
}

// checkFinal finds b on instance f by each of its references and checks
// each answer names the same booking, in its final state.
func (rig *adminRig) checkFinal(f adminFront, b adminBooking) {
	t := rig.t
	t.Helper()
	convertDone := func(ref string, r opstatus.Record, partner string) {
		t.Helper()
		if r.Partner != partner || r.State != converter.OutcomeOK || !slices.Contains(r.Refs["message"], b.message) ||
			!slices.Equal(r.Refs["booking_ref"], []string{b.ref}) {
			t.Fatalf("%s at %s: osdm_convert's record %+v, want %s's booking %s (message %s) ended %q", ref, f.admin(), r, partner, b.ref, b.message, converter.OutcomeOK)
		}
	}
	legacyDone := func(ref string, r opstatus.Record, booking string) string {
		t.Helper()
		if r.Partner != "hermes" || r.State != "FULFILLED" || !slices.Equal(r.Refs["booking"], []string{booking}) ||
			len(r.Refs["booking_ref"]) != 1 || r.Refs["booking_ref"][0] == "" || !slices.Equal(r.Passengers, []string{map[string]string{
			"hermes": opstatus.MaskName("Philippa Quennell"), "osdm": opstatus.MaskName("Ottoline Wexford")}[b.kind]}) {
			t.Fatalf("%s at %s: osdm_legacy's record %+v, want booking %s FULFILLED with its legacy BookingRef", ref, f.admin(), r, booking)
		}
		return r.Refs["booking_ref"][0]
	}
	switch b.kind {
	case "alpine":
		for _, ref := range []string{b.ref, b.message} {
			d := byDirection(t, ref, rig.find(f, ref))
			if len(d) != 1 {
				t.Fatalf("%s: %+v, want osdm_convert's record only", ref, d)
			}
			convertDone(ref, d[opstatus.LegacyToOSDM], "alpine")
		}
	case "hermes":
		// By the BookingRef osdm_convert answered, which is
		// osdm_legacy's booking id: both directions' records.
		d := byDirection(t, b.ref, rig.find(f, b.ref))
		if len(d) != 2 {
			t.Fatalf("%s: %+v, want both directions' records", b.ref, d)
		}
		convertDone(b.ref, d[opstatus.LegacyToOSDM], "hermes")
		legacyRef := legacyDone(b.ref, d[opstatus.OSDMToLegacy], b.ref)
		// By the legacy client's messageId: osdm_convert's record.
		d = byDirection(t, b.message, rig.find(f, b.message))
		if len(d) != 1 {
			t.Fatalf("%s: %+v, want osdm_convert's record only", b.message, d)
		}
		convertDone(b.message, d[opstatus.LegacyToOSDM], "hermes")
		// By the legacy system's BookingRef: osdm_legacy's record.
		d = byDirection(t, legacyRef, rig.find(f, legacyRef))
		if len(d) != 1 {
			t.Fatalf("%s: %+v, want osdm_legacy's record only", legacyRef, d)
		}
		legacyDone(legacyRef, d[opstatus.OSDMToLegacy], b.ref)
	case "osdm":
		d := byDirection(t, b.booking, rig.find(f, b.booking))
		if len(d) != 1 {
			t.Fatalf("%s: %+v, want osdm_legacy's record only", b.booking, d)
		}
		legacyRef := legacyDone(b.booking, d[opstatus.OSDMToLegacy], b.booking)
		d = byDirection(t, legacyRef, rig.find(f, legacyRef))
		if len(d) != 1 {
			t.Fatalf("%s: %+v, want osdm_legacy's record only", legacyRef, d)
		}
		legacyDone(legacyRef, d[opstatus.OSDMToLegacy], b.booking)
	}
}

// TestAdminAPIBothDirectionsBolt: one instance, everything in one bolt
// file of the osdm app.
func TestAdminAPIBothDirectionsBolt(t *testing.T) {
	store := "store shared bolt " + filepath.Join(t.TempDir(), "osdm.db")
	rig := startAdminRig(t, 1, "bolt", store)
	rig.runBothDirections(2, 3)
}

// TestAdminAPIBothDirectionsRedisTwoInstances: two instances sharing a
// Redis: osdm_convert's journal, osdm_legacy's bookings and the login
// replay store. Each instance's admin API answers for the bookings the
// other made too.
func TestAdminAPIBothDirectionsRedisTwoInstances(t *testing.T) {
	addr := redistest.Shared(t)
	store := fmt.Sprintf("store shared redis %s {\n\t\t\tprefix osdm-admin2/%s/\n\t\t}", addr, harness.RandomHex(6))
	rig := startAdminRig(t, 2, "redis", store)
	rig.runBothDirections(1, 3)
}
