package harness

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// OSDMClient calls the OSDM routes under Base as a partner's client does,
// and checks what it sends and gets against the bundled spec.
type OSDMClient struct {
	// Base is the URL the OSDM paths follow, e.g.
	// http://127.0.0.1:1234/osdm.
	Base string
	// Version is the spec the answers (and requests) are checked
	// against.
	Version osdmspec.Version
	// Header is added to every request (credentials, say).
	Header http.Header
	// CheckRequests checks every request against the spec before it is
	// sent.
	CheckRequests bool
	// HTTP sends the requests (nil: http.DefaultClient).
	HTTP *http.Client
}

// OSDMAnswer is the HTTP answer to an OSDM call.
type OSDMAnswer struct {
	Status int
	Header http.Header
	Body   []byte
}

// Send makes the call method path with body (JSON; none if empty) and the
// headers of c and header, and returns the answer unchecked.
func (c *OSDMClient) Send(t testing.TB, method, path, body string, header http.Header) OSDMAnswer {
	t.Helper()
	h := http.Header{}
	for k, v := range c.Header {
		h[k] = v
	}
	for k, v := range header {
		h[k] = v
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
		if h.Get("Content-Type") == "" {
			h.Set("Content-Type", osdm.ContentTypeJSON)
		}
	}
	if c.CheckRequests {
		osdmspec.ValidateRequest(t, c.Version, method, path, h, []byte(body))
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return OSDMAnswer{Status: resp.StatusCode, Header: resp.Header, Body: got}
}

// Do is Send that checks the answer against the spec's operation of
// method path.
func (c *OSDMClient) Do(t testing.TB, method, path, body string, header http.Header) OSDMAnswer {
	t.Helper()
	a := c.Send(t, method, path, body, header)
	osdmspec.ValidateResponse(t, c.Version, method, path, a.Status, a.Header, a.Body)
	return a
}

// Decode fails the test unless the answer has status want, and decodes
// its body into v.
func (a OSDMAnswer) Decode(t testing.TB, want int, v any) {
	t.Helper()
	if a.Status != want {
		t.Fatalf("got %d %s, want %d", a.Status, a.Body, want)
	}
	if err := json.Unmarshal(a.Body, v); err != nil {
		t.Fatalf("%s: %v", a.Body, err)
	}
}

// Problem fails the test unless the answer is a problem (its Content-Type
// and body) with status want, and returns it.
func (a OSDMAnswer) Problem(t testing.TB, want int) osdm.Problem {
	t.Helper()
	var p osdm.Problem
	if a.Status != want || a.Header.Get("Content-Type") != osdm.ContentTypeProblem || json.Unmarshal(a.Body, &p) != nil {
		t.Fatalf("got %d %s %s, want a %d problem", a.Status, a.Header.Get("Content-Type"), a.Body, want)
	}
	return p
}

// SecretHeader is what a partner's client sends that no log may show, a
// bearer token and a session cookie, and an Accept-Encoding.
func SecretHeader() http.Header {
	return http.Header{
		"Authorization":   {"Bearer secret-access-token-xyz"},
		"Cookie":          {"session=secret-cookie"},
		"Accept-Encoding": {"br, gzip"},
	}
}

// OfferSearch is the body of an offer search from Paris Nord to
// Bruxelles-Midi at at, for two passengers, in classes (JSON strings),
// for the train numbers in train (JSON) if any.
func OfferSearch(train, at string, classes string) string {
	filter := ""
	if train != "" {
		filter = `, "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": [` + train + `]}}}`
	}
	return `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8814001"},
	  "departureTime": "` + at + `"` + filter + `},
	 "offerSearchCriteria": {"travelClasses": [` + classes + `]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}
