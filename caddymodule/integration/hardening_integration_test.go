package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// recordingPartner is an OSDM partner that records every request and
// answers 500: a test that expects no OSDM call fails if it gets one.
type recordingPartner struct {
	mu    sync.Mutex
	calls []string
}

func (p *recordingPartner) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.calls = append(p.calls, r.Method+" "+r.URL.RawPath+" "+r.URL.Path)
	p.mu.Unlock()
	http.Error(w, "recorded", http.StatusInternalServerError)
}

func (p *recordingPartner) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// TestHardeningConverterIntegration runs osdm_convert in a real Caddy:
// BookingRefs that are not one path segment and departures already past
// are refused before any OSDM call; an
// unreachable partner gets a reply text for a person, with the Go error in
// the log line only; a legacy body dribbled slowly is cut off at
// the route's timeout with a 408 NegativeReply; osdm_sandbox
// refuses a past departure with OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS and
// splits its path before decoding it.
func TestHardeningConverterIntegration(t *testing.T) {
	partner := &recordingPartner{}
	rec := httptest.NewServer(partner)
	t.Cleanup(rec.Close)
	logFile := filepath.Join(t.TempDir(), "caddy.log")
	down := harness.FreePort(t)
	base := harness.ServeSite(t, harness.Options(harness.LogOption(logFile, "")), func(port int) string {
		return fmt.Sprintf(`
	route /down {
		osdm_convert {
			partner alpine-down
			timeout 3s
		}
		reverse_proxy 127.0.0.1:%[1]d
	}
	route /rec {
		osdm_convert {
			partner recorder
		}
		reverse_proxy %[2]s
	}
	route /slow {
		osdm_convert {
			partner slow
			timeout 1s
		}
		reverse_proxy %[2]s
	}
	route /sandbox/* {
		uri strip_prefix /sandbox
		osdm_sandbox
	}
`, down, rec.Listener.Addr())
	})
	paris, _ := time.LoadLocation("Europe/Paris")
	today := time.Now().In(paris)
	journey := func(days int, clock string) legacy.Journey {
		return legacy.Journey{TrainNumber: "9203", DepartureDate: today.AddDate(0, 0, days).Format(time.DateOnly), DepartureTime: clock,
			From: "8727100", To: "8500010"}
	}
	seats := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}}

	t.Run("dot segments", func(t *testing.T) {
		for i, ref := range []string{"..", ".", "%2e%2e", "b-X%2F", "../refund-offers", `..\x`} {
			status, r := harness.LegacyClient{URL: base + "/rec"}.Send(t, &legacy.CancelRequest{Header: legacy.Header{MessageID: fmt.Sprintf("dot-%d", i)}, BookingRef: ref})
			nr, ok := r.(*legacy.NegativeReply)
			if status != http.StatusBadRequest || !ok || nr.Code != legacy.CodeInvalidMessage || !strings.Contains(nr.Text, "BookingRef") {
				t.Errorf("BookingRef %q: %d %+v", ref, status, r)
			}
		}
		if n := partner.count(); n != 0 {
			t.Fatalf("the partner got %d calls: %v", n, partner.calls)
		}
	})

	t.Run("past departures", func(t *testing.T) {
		for i, msg := range []legacy.Message{
			&legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "past-1"}, Journey: journey(-1, "09:00"), Places: seats},
			&legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "past-2"}, Journey: journey(-5, ""), Places: seats},
			&legacy.BookingRequest{Header: legacy.Header{MessageID: "past-3"}, Journey: journey(-2, "07:56"), Places: seats, OfferRef: "o-1",
				Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Muster"}}},
		} {
			status, r := harness.LegacyClient{URL: base + "/rec"}.Send(t, msg)
			nr, ok := r.(*legacy.NegativeReply)
			if status != http.StatusBadRequest || !ok || nr.Code != legacy.CodeInvalidMessage || !strings.Contains(nr.Text, "before today") {
				t.Errorf("message %d: %d %+v", i, status, r)
			}
		}
		if n := partner.count(); n != 0 {
			t.Fatalf("the partner got %d calls: %v", n, partner.calls)
		}
		// osdm_sandbox, as a partner, refuses a search for yesterday.
		dep := time.Now().Add(-24 * time.Hour)
		body, _ := json.Marshal(osdm.OfferCollectionRequest{
			TripSearchCriteria: &osdm.TripSearchCriteria{DepartureTime: &dep, Origin: osdm.NewStopPlaceRef("urn:uic:stn:8500010"),
				Destination: osdm.NewStopPlaceRef("urn:uic:stn:8503000"), Parameters: osdm.OnlyVehicles("IC1")},
			AnonymousPassengerSpecifications: []osdm.AnonymousPassengerSpecification{{ExternalRef: "p1", Type: osdm.PassengerAdult}},
		})
		status, answer, h := harness.Do(t, http.MethodPost, base+"/sandbox/offers", osdm.ContentTypeJSON, string(body), nil)
		if status != http.StatusBadRequest || h.Get("Content-Type") != osdm.ContentTypeProblem || !strings.Contains(answer, osdm.CodeOfferOutOfBounds) {
			t.Fatalf("sandbox, yesterday: %d %s", status, answer)
		}
	})

	t.Run("sandbox splits its path before decoding", func(t *testing.T) {
		status, answer, _ := harness.Do(t, http.MethodGet, base+"/sandbox/bookings/b-X%2F", "", "", nil)
		if status != http.StatusNotFound || !strings.Contains(answer, osdm.CodeResourceNotFound) {
			t.Fatalf("GET /bookings/b-X%%2F: %d %s", status, answer)
		}
	})

	t.Run("unreachable partner", func(t *testing.T) {
		status, r := harness.LegacyClient{URL: base + "/down"}.Send(t, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "down-1"}, Journey: journey(7, "09:00"), Places: seats})
		nr, ok := r.(*legacy.NegativeReply)
		if !ok || nr.Code != legacy.CodePartnerUnavailable || !nr.Retryable || status != http.StatusBadGateway {
			t.Fatalf("%d %+v", status, r)
		}
		for _, bad := range []string{"reverseproxy", ".go:", "{id=", "statusError", "dial tcp", "127.0.0.1"} {
			if strings.Contains(nr.Text, bad) {
				t.Errorf("text %q holds %q", nr.Text, bad)
			}
		}
		for _, want := range []string{"alpine-down", "POST /offers", "could not be reached", "try again later"} {
			if !strings.Contains(nr.Text, want) {
				t.Errorf("text %q lacks %q", nr.Text, want)
			}
		}
		// The technical detail is in the exchange's log line.
		logs := harness.ReadFiles(t, logFile)
		found := false
		for _, line := range strings.Split(string(logs), "\n") {
			if strings.Contains(line, `"message_id":"down-1"`) && strings.Contains(line, "connection refused") {
				found = true
			}
		}
		if !found {
			t.Fatalf("no log line of down-1 with the transport error:\n%s", logs)
		}
	})

	t.Run("slow body", func(t *testing.T) {
		body, err := legacy.Encode(legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "slow-1"}, Journey: journey(7, "09:00"), Places: seats})
		if err != nil {
			t.Fatal(err)
		}
		if len(body)*50*int(time.Millisecond) < int(5*time.Second) {
			t.Fatalf("the body (%d bytes) is too short to dribble for long", len(body))
		}
		// One byte every 50 ms: the whole body would take over 10 s.
		a := harness.Dribble(t, base, "/slow", "application/xml", body, 50*time.Millisecond, 15*time.Second)
		if a.Status != http.StatusRequestTimeout || a.Took > 4*time.Second {
			t.Fatalf("answered %d after %s: %s", a.Status, a.Took, a.Body)
		}
		r, err := legacy.DecodeReply(legacy.XML, a.Body)
		nr, ok := r.(*legacy.NegativeReply)
		if err != nil || !ok || nr.Code != legacy.CodeInvalidMessage || !nr.Retryable || !strings.Contains(nr.Text, "timeout of 1s") {
			t.Fatalf("reply %s: %v %+v", a.Body, err, r)
		}
		if n := partner.count(); n != 0 {
			t.Fatalf("the partner got %d calls", n)
		}
	})
}

// TestHardeningProviderIntegration runs osdm_login and osdm_access in a
// real Caddy: an identity token sent in the URL is refused and spent, so
// that the same token posted properly afterwards is refused too; a crit
// header or a NumericDate written as a string is refused at both; osdm_access refuses access tokens for another
// audience or none.
func TestHardeningProviderIntegration(t *testing.T) {
	f := harness.NewProvFixture(t)
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return f.LoginRoute(f.AlpineClient()) + fmt.Sprintf(`
	route /osdm/* {
		osdm_access {
			key_file %s
			issuer %s
			audience %s
		}
		respond "hello {osdm.client}" 200
	}
`, f.LoginPub, harness.ProvIssuer, harness.ProvIssuer)
	})
	tokenURL := base + "/oauth/token"
	form := func(assertion string) string { return harness.BearerForm(assertion).Encode() }
	oauthError := func(body string) string {
		var m map[string]any
		_ = json.Unmarshal([]byte(body), &m)
		s, _ := m["error"].(string)
		return s
	}

	t.Run("identity token in the URL is spent", func(t *testing.T) {
		token := f.AlpineToken(time.Now())
		status, body, _ := harness.Do(t, http.MethodPost, tokenURL+"?assertion="+url.QueryEscape(token), harness.FormType, form(token), nil)
		if status != http.StatusBadRequest || oauthError(body) != "invalid_request" || !strings.Contains(body, "spent") {
			t.Fatalf("token in the URL: %d %s", status, body)
		}
		status, body, _ = harness.Do(t, http.MethodPost, tokenURL, harness.FormType, form(token), nil)
		if status != http.StatusBadRequest || oauthError(body) != "invalid_grant" || !strings.Contains(body, "already used") {
			t.Fatalf("the same token posted properly afterwards: %d %s", status, body)
		}
		if status, body, _ := harness.Do(t, http.MethodPost, tokenURL, harness.FormType, form(f.AlpineToken(time.Now())), nil); status != http.StatusOK {
			t.Fatalf("a fresh token: %d %s", status, body)
		}
	})

	t.Run("crit and string NumericDate at the login", func(t *testing.T) {
		now := time.Now()
		sign := func(header map[string]any, edit func(jwt.MapClaims)) string {
			return f.IdentityWithHeader(header, jwt.SigningMethodRS256, f.Alpine, "alpine", "alp-1", now, edit)
		}
		for name, token := range map[string]string{
			"crit":          sign(map[string]any{"crit": []string{"x-something"}, "x-something": true}, nil),
			"exp as string": sign(nil, func(c jwt.MapClaims) { c["exp"] = fmt.Sprint(now.Add(5 * time.Minute).Unix()) }),
		} {
			status, body, _ := harness.Do(t, http.MethodPost, tokenURL, harness.FormType, form(token), nil)
			if status != http.StatusBadRequest || oauthError(body) != "invalid_grant" {
				t.Errorf("%s: %d %s", name, status, body)
			}
		}
		if status, body, _ := harness.Do(t, http.MethodPost, tokenURL, harness.FormType, form(sign(nil, nil)), nil); status != http.StatusOK {
			t.Fatalf("control token: %d %s", status, body)
		}
	})

	t.Run("access tokens: crit, string exp, audience", func(t *testing.T) {
		now := time.Now()
		access := func(header map[string]any, edit func(jwt.MapClaims)) string {
			c := jwt.MapClaims{"iss": harness.ProvIssuer, "sub": "alpine", "aud": []string{harness.ProvIssuer}, "exp": now.Add(5 * time.Minute).Unix(),
				"iat": now.Unix(), "jti": uuid.NewString(), "scope": "uic_osdm", "client_id": "alpine"}
			if edit != nil {
				edit(c)
			}
			tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
			tok.Header["typ"] = tokenauth.AccessTokenType
			for k, v := range header {
				tok.Header[k] = v
			}
			s, err := tok.SignedString(f.Login)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		call := func(token string) (int, string) {
			status, body, _ := harness.Do(t, http.MethodGet, base+"/osdm/offers", "", "", http.Header{"Authenticate": {token}})
			return status, body
		}
		if status, body := call(access(nil, nil)); status != http.StatusOK || body != "hello alpine" {
			t.Fatalf("control access token: %d %s", status, body)
		}
		for name, token := range map[string]string{
			"crit":            access(map[string]any{"crit": []string{"x-something"}}, nil),
			"exp as string":   access(nil, func(c jwt.MapClaims) { c["exp"] = fmt.Sprint(now.Add(5 * time.Minute).Unix()) }),
			"foreign aud":     access(nil, func(c jwt.MapClaims) { c["aud"] = []string{"https://api.elsewhere.example"} }),
			"no aud":          access(nil, func(c jwt.MapClaims) { delete(c, "aud") }),
			"aud of an other": access(nil, func(c jwt.MapClaims) { c["aud"] = harness.ProvAudience }),
		} {
			if status, body := call(token); status != http.StatusUnauthorized || !strings.Contains(body, "INVALID_TOKEN") {
				t.Errorf("%s: %d %s", name, status, body)
			}
		}
	})
}

// TestExampleChainTokenPartnerLabels: Caddyfile.example with the partner
// lines of its osdm_token blocks removed: each osdm_token takes the label
// of its route's osdm_convert, so the token metrics tell the two partners
// apart although both login services are on 127.0.0.1.
func TestExampleChainTokenPartnerLabels(t *testing.T) {
	c := startExampleChainWith(t, chainOptions{edit: func(cf string) string {
		out := strings.NewReplacer(
			"\t\t\tsubject example-railway\n\t\t\tpartner alpine\n", "\t\t\tsubject example-railway\n",
			"\t\t\tgrant client_assertion\n\t\t\tpartner coastal\n", "\t\t\tgrant client_assertion\n",
			"\trespond \"unknown partner route", "\troute /metrics {\n\t\tmetrics\n\t}\n\n\trespond \"unknown partner route",
		).Replace(cf)
		if strings.Count(out, "partner alpine") != 1 || strings.Count(out, "partner coastal") != 1 || !strings.Contains(out, "route /metrics") {
			t.Fatalf("Caddyfile.example no longer has the lines this test edits")
		}
		return out
	}})
	_, metrics, _ := harness.Do(t, http.MethodGet, strings.TrimSuffix(c.legacyBase, "partners/")+"metrics", "", "", nil)
	for _, want := range []string{
		`caddy_osdm_token_requests_total{partner="alpine",result="ok"} 1`,
		`caddy_osdm_token_requests_total{partner="coastal",result="ok"} 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(metrics, `caddy_osdm_token_requests_total{partner="127.0.0.1"`) {
		t.Error("a token metric is labelled with the login service's host")
	}
}

// TestClientAssertionFormsIntegration: osdm_token with grant
// client_assertion gets an access token from osdm_login both with iss =
// sub (RFC 7523) and in OSDM's form (iss the consumer's issuer URL, sub
// its user name); a client block that names an issuer accepts exactly
// that one.
func TestClientAssertionFormsIntegration(t *testing.T) {
	dir := t.TempDir()
	login, err := tokenauth.GenerateKey("ES256")
	if err != nil {
		t.Fatal(err)
	}
	loginPEM, _, err := tokenauth.WriteKeyPair(dir, "login", login)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][2]string{}
	for _, sub := range []string{"rail-s", "rail-o"} {
		k, err := tokenauth.GenerateKey("ES256")
		if err != nil {
			t.Fatal(err)
		}
		pem, pub, err := tokenauth.WriteKeyPair(dir, sub, k)
		if err != nil {
			t.Fatal(err)
		}
		keys[sub] = [2]string{pem, pub}
	}
	const issuer = "https://login.forms.example"
	const osdmIss = "https://reservations.rail-o.example"
	base := harness.Serve(t, func(port int) string {
		provider := fmt.Sprintf("127.0.0.1:%d", port)
		token := func(sub, iss, partner string) string {
			extra := ""
			if iss != "" {
				extra = "\n\t\t\tissuer " + iss
			}
			return fmt.Sprintf(`osdm_token {
			token_url http://%s/oauth/token
			key_file %s
			kid %s-1
			subject %s%s
			grant client_assertion
			partner %s
		}`, provider, keys[sub][0], sub, sub, extra, partner)
		}
		return harness.Options() + harness.Site(port, fmt.Sprintf(`
	route /oauth/token {
		osdm_login {
			signing_key_file %[1]s
			issuer %[2]s
			audience http://%[3]s/oauth/token
			client rail-s {
				key rail-s-1 %[4]s
			}
			client rail-o {
				key rail-o-1 %[5]s
				issuer %[6]s
			}
		}
	}
	route /osdm/* {
		osdm_access {
			issuer %[2]s
			audience %[2]s
		}
		respond "ok {osdm.client}" 200
	}
	route /s/* {
		uri strip_prefix /s
		%[7]s
		rewrite * /osdm{uri}
		reverse_proxy %[3]s {
			transport osdm
		}
	}
	route /o/* {
		uri strip_prefix /o
		%[8]s
		rewrite * /osdm{uri}
		reverse_proxy %[3]s {
			transport osdm
		}
	}
	route /w/* {
		uri strip_prefix /w
		%[9]s
		rewrite * /osdm{uri}
		reverse_proxy %[3]s {
			transport osdm
		}
	}
`, loginPEM, issuer, provider, keys["rail-s"][1], keys["rail-o"][1], osdmIss, token("rail-s", "", "forms-s"), token("rail-o", osdmIss, "forms-o"), token("rail-o", "https://wrong.example", "forms-w")))
	})
	for route, want := range map[string]string{"s": "ok rail-s", "o": "ok rail-o"} {
		status, body, _ := harness.Do(t, http.MethodPost, base+"/"+route+"/offers", "application/json", "{}", nil)
		if status != http.StatusOK || body != want {
			t.Errorf("/%s: %d %q, want 200 %q", route, status, body, want)
		}
	}
	if status, body, _ := harness.Do(t, http.MethodPost, base+"/w/offers", "application/json", "{}", nil); status == http.StatusOK {
		t.Errorf("/w (iss not the registered issuer): %d %q, want a refusal", status, body)
	}
}
