package integration

import (
	"bytes"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// secretsLogs are the log files of a chain run for the secrets test.
type secretsLogs struct {
	debug, access, providerAccess string
}

// secretsEdit turns on Caddy's debug logging into a file (Caddyfile.example's
// default log, with its filter), and access logs on every site: the legacy
// site logs requests as they are, the partner sites (where consumers send
// Authenticate) into a file of their own with the same filter, as
// docs/operations.md says a site log with its own output must.
func secretsEdit(logs secretsLogs) func(string) string {
	providerLog := fmt.Sprintf("\n\tlog {\n\t\toutput file %s\n\t\tformat filter {\n\t\t\twrap json\n\t\t\trequest>headers>Authenticate replace REDACTED\n\t\t}\n\t}", logs.providerAccess)
	return func(cf string) string {
		return strings.NewReplacer(
			exampleLogBlock, "\tdebug\n"+exampleLog(logs.debug, "DEBUG"),
			"http://:8080 {", fmt.Sprintf("http://:8080 {\n\tlog {\n\t\toutput file %s\n\t\tformat json\n\t}", logs.access),
			"http://127.0.0.1:9441 {", "http://127.0.0.1:9441 {"+providerLog,
			"http://127.0.0.1:9442 {", "http://127.0.0.1:9442 {"+providerLog,
		).Replace(cf)
	}
}

// secretsRun is a chain with debug logs and login taps, and what the
// legacy side got back.
type secretsRun struct {
	c       *exampleChain
	logs    secretsLogs
	mu      sync.Mutex
	replies [][]byte // every legacy reply body, with its headers
	n       int
}

func startSecretsRun(t *testing.T) *secretsRun {
	dir := t.TempDir()
	s := &secretsRun{logs: secretsLogs{
		debug: filepath.Join(dir, "debug.log"), access: filepath.Join(dir, "access.log"), providerAccess: filepath.Join(dir, "provider-access.log"),
	}}
	warmSpec(t)
	s.c = startExampleChainWith(t, chainOptions{edit: secretsEdit(s.logs), loginTaps: true})
	return s
}

// send posts msg and keeps the raw reply for the search.
func (s *secretsRun) send(t *testing.T, partner string, f legacy.Format, msg legacy.Message) legacy.Reply {
	t.Helper()
	body, err := legacy.Encode(f, msg)
	if err != nil {
		t.Fatal(err)
	}
	return s.post(t, partner, f, body)
}

func (s *secretsRun) post(t *testing.T, partner string, f legacy.Format, body []byte) legacy.Reply {
	t.Helper()
	a, err := harness.LegacyClient{URL: s.c.legacyBase + partner, Format: f}.Post(f.ContentType(), body)
	if err != nil {
		t.Fatal(err)
	}
	var h bytes.Buffer
	_ = a.Header.Write(&h)
	s.mu.Lock()
	s.replies = append(s.replies, append(h.Bytes(), a.Body...))
	s.mu.Unlock()
	r, err := legacy.DecodeReply(f, a.Body)
	if err != nil {
		t.Fatalf("reply %d %s: %v", a.Status, a.Body, err)
	}
	return r
}

func (s *secretsRun) id(what string) string {
	s.n++
	return fmt.Sprintf("S%d-%s", s.n, what)
}

// driveEverything sends every message kind, in both formats, to both
// partners, and makes osdm_token log in again after a 401 (the replay),
// and fail to log in (the login service refuses a replayed identity
// token, then is unreachable).
func (s *secretsRun) driveEverything(t *testing.T) {
	seats := secondClassSeats(legacy.Tariff{Code: 1, Count: 1})
	for _, partner := range []string{"alpine", "coastal"} {
		for _, f := range testFormats {
			avail, ok := s.send(t, partner, f, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: s.id("avail")},
				Journey: journeyOn("9203"), Places: seats}).(*legacy.AvailabilityReply)
			if !ok || len(avail.Offers) == 0 {
				t.Fatalf("%s availability: %+v", partner, avail)
			}
			s.send(t, partner, f, &legacy.BookingRequest{Header: legacy.Header{MessageID: s.id("info")}, InformationOnly: true,
				Journey: journeyOn("9203"), Places: seats})
			var refs []string
			for _, offerRef := range []string{avail.Offers[0].OfferRef, ""} {
				br, ok := s.send(t, partner, f, &legacy.BookingRequest{Header: legacy.Header{MessageID: s.id("book")},
					Journey: journeyOn("9203"), Places: seats, OfferRef: offerRef,
					Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Müller"}}}).(*legacy.BookingReply)
				if !ok {
					t.Fatalf("%s booking: %+v", partner, br)
				}
				refs = append(refs, br.BookingRef)
			}
			one := 1
			s.send(t, partner, f, &legacy.CancelRequest{Header: legacy.Header{MessageID: s.id("cancel")}, BookingRef: refs[0], ReasonCode: &one})
			s.send(t, partner, f, &legacy.CancelRequest{Header: legacy.Header{MessageID: s.id("refund")}, BookingRef: refs[1]})
			s.send(t, partner, f, &legacy.CancelRequest{Header: legacy.Header{MessageID: s.id("again")}, BookingRef: refs[1]})
			s.send(t, partner, f, &legacy.CancelRequest{Header: legacy.Header{MessageID: s.id("nobooking")}, BookingRef: "b-unknown"})
			s.send(t, partner, f, &legacy.BookingRequest{Header: legacy.Header{MessageID: s.id("exch")}, Journey: journeyOn("9203"),
				Places: seats, ExchangeOf: refs[0]})
		}
		s.post(t, partner, legacy.XML, []byte(`<AvailabilityRequest messageId="bad"><Journey>`))
	}
	s.send(t, "coastal", legacy.JSON, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: s.id("ext")},
		Journey: journeyOn("462"), Places: seats})

	// A 401: osdm_token drops the token, logs in again, replays the call.
	for _, partner := range []string{"alpine", "coastal"} {
		tap := map[string]*partnerTap{"alpine": s.c.alpine, "coastal": s.c.coastal}[partner]
		inj := injectFaults(t, tap)
		inj.set(faultRule{step: converter.StepOffers, kind: faultUnauthorized, times: 1},
			faultRule{step: converter.StepTripOffers, kind: faultUnauthorized, times: 1})
		if _, ok := s.send(t, partner, legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: s.id("401")},
			Journey: journeyOn("9203"), Places: seats}).(*legacy.AvailabilityReply); !ok {
			t.Fatalf("%s: no availability after the 401 replay", partner)
		}
		if len(inj.clear()) != 1 {
			t.Fatalf("%s: the 401 was not injected", partner)
		}

		// The partner refuses the access token again, and the login
		// service refuses the new login (at alpine: the tap sends it an
		// identity token it has seen before, a replay) or cannot be
		// reached (at coastal: the connection is reset).
		login := map[string]*partnerTap{"alpine": s.c.alpineLogin, "coastal": s.c.coastalLogin}[partner]
		// The reply says which side failed; the login service's own words
		// go to the log line only.
		want, wantCode := "retrying will not fix", legacy.CodeAuthenticationFailed
		if partner == "alpine" {
			replayOldAssertion(t, login)
		} else {
			injectFaults(t, login).set(faultRule{step: stepLogin, kind: faultReset})
			want, wantCode = "login service failed", legacy.CodePartnerUnavailable
		}
		inj.set(faultRule{step: converter.StepOffers, kind: faultUnauthorized, times: 1},
			faultRule{step: converter.StepTripOffers, kind: faultUnauthorized, times: 1})
		nr, ok := s.send(t, partner, legacy.JSON, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: s.id("refused")},
			Journey: journeyOn("9203"), Places: seats}).(*legacy.NegativeReply)
		if !ok || nr.Code != wantCode || !strings.Contains(nr.Text, want) {
			t.Fatalf("%s: login failure: %+v", partner, nr)
		}
		inj.clear()
	}
}

// replayOldAssertion makes the login tap send the login service the
// first identity token it saw instead of the new one.
func replayOldAssertion(t *testing.T, login *partnerTap) {
	t.Helper()
	var first string
	login.mu.Lock()
	for _, ex := range login.exchanges {
		if a := assertionOf(ex.ReqBody); a != "" && first == "" {
			first = a
		}
	}
	login.mu.Unlock()
	if first == "" {
		t.Fatal("the login tap saw no identity token yet")
	}
	login.mu.Lock()
	login.intercept = func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return false
		}
		for _, k := range []string{"assertion", "client_assertion"} {
			if form.Has(k) {
				form.Set(k, first)
			}
		}
		replayed := []byte(form.Encode())
		r.ContentLength = int64(len(replayed))
		ex := login.forward(t, r, replayed)
		for k, v := range ex.RespHeader {
			w.Header()[k] = v
		}
		w.WriteHeader(ex.Status)
		_, _ = w.Write(ex.RespBody)
		return true
	}
	login.mu.Unlock()
}

// assertionOf is the identity token of a token request form body.
func assertionOf(body []byte) string {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return ""
	}
	return form.Get("assertion") + form.Get("client_assertion")
}

// secretsOf collects what must never be printed: the identity tokens and
// access tokens the login taps saw, the Authenticate values the partner
// taps saw, and the private keys of the chain (each PEM line, and chunks
// of the base64 and hex of the key's DER bytes).
func secretsOf(t *testing.T, s *secretsRun, keyDir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(kind, v string) {
		if len(v) >= 16 {
			out[v] = kind
		}
	}
	jwtParts := func(kind, tok string) {
		add(kind, tok)
		if i := strings.LastIndexByte(tok, '.'); i > 0 {
			add(kind+" signature", tok[i+1:])
		}
	}
	var assertions, accessTokens int
	for _, login := range []*partnerTap{s.c.alpineLogin, s.c.coastalLogin} {
		login.mu.Lock()
		exchanges := append([]tappedExchange(nil), login.exchanges...)
		login.mu.Unlock()
		for _, ex := range exchanges {
			if a := assertionOf(ex.ReqBody); a != "" {
				jwtParts("identity token", a)
				assertions++
			}
			var ans struct {
				AccessToken string `json:"access_token"`
			}
			if json.Unmarshal(ex.RespBody, &ans) == nil && ans.AccessToken != "" {
				jwtParts("access token", ans.AccessToken)
				accessTokens++
			}
		}
	}
	var authenticate int
	for _, tap := range []*partnerTap{s.c.alpine, s.c.coastal} {
		tap.mu.Lock()
		exchanges := append([]tappedExchange(nil), tap.exchanges...)
		tap.mu.Unlock()
		for _, ex := range exchanges {
			if v := ex.ReqHeader.Get("Authenticate"); v != "" {
				add("Authenticate value", v)
				jwtParts("access token", strings.TrimPrefix(v, "Bearer "))
				authenticate++
			}
		}
	}
	if assertions < 4 || accessTokens < 4 || authenticate < 10 {
		t.Fatalf("too little to search for: %d identity tokens, %d access tokens, %d Authenticate values", assertions, accessTokens, authenticate)
	}
	keys, _ := filepath.Glob(filepath.Join(keyDir, "*.pem"))
	if len(keys) < 3 {
		t.Fatalf("private keys in %s: %v", keyDir, keys)
	}
	for _, k := range keys {
		data, err := os.ReadFile(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "-----") {
				add("private key PEM line of "+filepath.Base(k), strings.TrimSpace(line))
			}
		}
		block, _ := pem.Decode(data)
		if block == nil {
			t.Fatalf("%s is not PEM", k)
		}
		if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
			if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
				if _, err := x509.ParseECPrivateKey(block.Bytes); err != nil {
					t.Fatalf("%s: not a private key", k)
				}
			}
		}
		for _, enc := range []string{
			base64.StdEncoding.EncodeToString(block.Bytes), base64.RawURLEncoding.EncodeToString(block.Bytes), hex.EncodeToString(block.Bytes),
		} {
			for i := 0; i+40 <= len(enc); i += 20 {
				add("private key bytes of "+filepath.Base(k), enc[i:i+40])
			}
		}
	}
	return out
}

// searchSecrets fails for every secret found in where.
func searchSecrets(t *testing.T, secrets map[string]string, name string, where []byte) {
	t.Helper()
	found := 0
	for v, kind := range secrets {
		if bytes.Contains(where, []byte(v)) {
			if found++; found <= 5 {
				i := bytes.Index(where, []byte(v))
				start := max(0, bytes.LastIndexByte(where[:i], '\n')+1)
				t.Errorf("%s (%.12s...) found in %s: %.300s", kind, v, name, where[start:])
			}
		}
	}
	if found > 5 {
		t.Errorf("... and %d more secrets in %s", found-5, name)
	}
}

// TestSecretsNeverLogged runs the whole example chain (osdm_convert,
// osdm_token, osdm_login, osdm_access, osdm_sandbox) with Caddy's debug
// logging, reverse_proxy's debug entries and access logs on every site,
// drives every message kind and the failures (401 and replay, a login
// refused, bad input), and searches every log line and every legacy reply
// for the private keys, identity tokens, access tokens and Authenticate
// values of the run.
func TestSecretsNeverLogged(t *testing.T) {
	s := startSecretsRun(t)
	s.driveEverything(t)
	secrets := secretsOf(t, s, keyDirOf(t, s))
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	debug := harness.ReadFiles(t, s.logs.debug)
	access := harness.ReadFiles(t, s.logs.access)
	provider := harness.ReadFiles(t, s.logs.providerAccess)
	// The search proves something only if the logs hold what could leak.
	for _, want := range []struct {
		log  []byte
		name string
		text string
	}{
		{debug, "debug log", `"upstream roundtrip"`},
		{debug, "debug log", `"legacy exchange"`},
		{debug, "debug log", `"access token issued"`},
		{debug, "debug log", `"token request refused"`},
		{debug, "debug log", `login at partner`},
		{debug, "debug log", `partner answered 401`},
		{access, "legacy access log", `"uri":"/partners/alpine"`},
		{provider, "provider access log", `"uri":"/oauth/token"`},
		{provider, "provider access log", `"Authenticate":"REDACTED"`},
	} {
		if !bytes.Contains(want.log, []byte(want.text)) {
			t.Errorf("the %s has no %s: the search would prove nothing; it begins:\n%.800s", want.name, want.text, want.log)
		}
	}
	searchSecrets(t, secrets, "the debug log", debug)
	searchSecrets(t, secrets, "the legacy access log", access)
	searchSecrets(t, secrets, "the provider access log", provider)
	s.mu.Lock()
	searchSecrets(t, secrets, "the legacy replies", bytes.Join(s.replies, []byte("\n")))
	s.mu.Unlock()
	if bytes.Contains(debug, []byte("Bearer ey")) || bytes.Contains(access, []byte("Bearer ey")) || bytes.Contains(provider, []byte("Bearer ey")) {
		t.Error("a bearer token is in the logs")
	}
}

// keyDirOf is the directory of the chain's demo keys.
func keyDirOf(t *testing.T, s *secretsRun) string {
	t.Helper()
	if s.c.keyDir == "" {
		t.Fatal("the chain does not say where its keys are")
	}
	return s.c.keyDir
}
