package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// reloadConsumerCaddyfile is the legacy side of Caddyfile.example for one
// partner: osdm_convert, osdm_token signing with the key named kid, and
// reverse_proxy. Its access log shows every request a handler saw.
func reloadConsumerCaddyfile(legacyPort, partnerPort int, dir, accessLog, kid string) string {
	return harness.Options() + harness.Site(legacyPort, fmt.Sprintf(`
	log {
		output file %[1]s
		format json
	}

	route /partners/alpine {
		osdm_convert {
			partner alpine
			tariff 1 ADULT 30
			timeout 10s
		}
		osdm_token {
			token_url http://127.0.0.1:%[2]d/oauth/token
			key_file %[3]s/%[4]s.pem
			kid %[4]s
			issuer https://reservations.example-railway.eu
			subject example-railway
		}
		reverse_proxy 127.0.0.1:%[2]d {
			transport osdm
		}
	}
`, accessLog, partnerPort, dir, kid))
}

// reloadPartnerCaddyfile is the partner of Caddyfile.example with both of
// the consumer's keys registered, and probes writing to probeFile.
func reloadPartnerCaddyfile(partnerPort int, dir, probeFile string) string {
	return harness.Options() + harness.Site(partnerPort, fmt.Sprintf(`
	route /oauth/token {
		reload_probe {
			file %[1]s
		}
		osdm_login {
			signing_key_file %[2]s/login.pem
			issuer https://login.alpine.example
			audience http://127.0.0.1:%[3]d/oauth/token
			token_lifetime 15m
			client example-railway {
				key alpine-1 %[2]s/alpine-1.pub
				key alpine-2 %[2]s/alpine-2.pub
			}
		}
	}
	route {
		reload_probe {
			file %[1]s
		}
		osdm_access {
			key_file %[2]s/login.pub
			issuer https://login.alpine.example
			audience https://login.alpine.example
		}
		osdm_sandbox {
			max_entries 1000000
		}
	}
`, probeFile, dir, partnerPort))
}

// reloadStats are the legacy client's figures.
type reloadStats struct {
	sent, answered atomic.Int64 // messages, and those answered with offers
	duringReload   atomic.Int64 // messages sent while a reload ran or <1s after
	resent         atomic.Int64 // attempts whose connection dropped unanswered
	mu             sync.Mutex
	failures       []string
	dropped        []string       // X-Attempt of each dropped attempt
	dropKinds      map[string]int // by connection use and error
}

// TestReloadKeyRotationUnderLoad rotates the consumer's key and kid with a
// config reload while legacy clients keep sending AvailabilityRequests on
// the same listener: every message is answered with offers, the login
// service sees the new kid right after the reload and never the old one
// again, and the partner's calls carry tokens of the new key afterwards.
//
// A Hermes client resends a message (same messageId) whose connection
// dropped before any reply; the test does the same, and proves from the
// access log that no dropped attempt ever reached a handler.
func TestReloadKeyRotationUnderLoad(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"alpine-1", "alpine-2", "login"} {
		alg := "ES256"
		if name == "login" {
			alg = "EdDSA"
		}
		key, err := tokenauth.GenerateKey(alg)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := tokenauth.WriteKeyPair(dir, name, key); err != nil {
			t.Fatal(err)
		}
	}
	accessLog, probeFile := filepath.Join(dir, "access.log"), filepath.Join(dir, "probe.jsonl")
	legacyPort, partnerPort := harness.FreePort(t), harness.FreePort(t)
	// The partner runs in a child process: a reload restarts every server
	// of a Caddy, and the test reloads the consumer's configuration only,
	// as happens when the partner is another company's.
	harness.StartCaddy(t, dir, "partner", reloadPartnerCaddyfile(partnerPort, dir, probeFile))
	load := func(kid string) time.Duration {
		start := time.Now()
		harness.Load(t, reloadConsumerCaddyfile(legacyPort, partnerPort, dir, accessLog, kid))
		return time.Since(start)
	}
	load("alpine-1")
	t.Cleanup(func() { _ = caddy.Stop() })

	// Half the clients keep their connection alive between messages, half
	// open one per message: a reload treats the two differently.
	const clients = 8
	stats := &reloadStats{dropKinds: map[string]int{}}
	var reloading atomic.Int64 // unix nanos until which a message counts as sent during a reload
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			oneShot := c%2 == 1
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: oneShot}, Timeout: 10 * time.Second}
			conn := map[bool]string{false: "keep-alive", true: "one-shot"}[oneShot]
			for n := 0; ctx.Err() == nil; n++ {
				reloadSendOne(t, client, conn, legacyPort, fmt.Sprintf("rl-%d-%d", c, n), stats, &reloading)
			}
		}()
	}
	reload := func(kid string, settle time.Duration) time.Duration {
		reloading.Store(time.Now().Add(time.Hour).UnixNano())
		took := load(kid)
		reloading.Store(time.Now().Add(time.Second).UnixNano())
		time.Sleep(settle)
		return took
	}

	time.Sleep(time.Second)
	loginsBefore, callsBefore := readProbe(t, probeFile)
	// The rotation, then two reloads that change nothing: the token of the
	// new key is kept over them. Two seconds after the rotation the old
	// configuration's requests are long answered.
	reloadTimes := []time.Duration{reload("alpine-2", 1500*time.Millisecond), reload("alpine-2", 700*time.Millisecond)}
	_, callsSettled := readProbe(t, probeFile)
	reloadTimes = append(reloadTimes, reload("alpine-2", time.Second))
	stop()
	wg.Wait()
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}

	t.Logf("%d clients: %d messages, %d answered, %d sent during the %d reloads (from the reload until 1s after it; the reloads took %v), "+
		"%d attempts dropped unanswered and resent %v",
		clients, stats.sent.Load(), stats.answered.Load(), stats.duringReload.Load(), len(reloadTimes), reloadTimes,
		stats.resent.Load(), stats.dropKinds)
	for _, f := range stats.failures {
		t.Error(f)
	}
	if stats.duringReload.Load() < 100 {
		t.Errorf("only %d messages were sent during the reloads: the test proves little", stats.duringReload.Load())
	}

	// The login service saw the old kid before the rotation and only the
	// new one after it; the OSDM calls carried the new key's token once
	// the old configuration was gone.
	logins, calls := readProbe(t, probeFile)
	if !slices.Equal(loginsBefore, []string{"alpine-1"}) {
		t.Errorf("before the rotation the login service saw kids %v, want one login with alpine-1", loginsBefore)
	}
	if after := logins[len(loginsBefore):]; !slices.Equal(after, []string{"alpine-2"}) {
		t.Errorf("after the rotation the login service saw kids %v, want one login with alpine-2, kept over the unchanged reloads", after)
	}
	for _, k := range callsBefore {
		if k != "alpine-1" {
			t.Fatalf("before the rotation an OSDM call carried a token of kid %q", k)
		}
	}
	late := calls[len(callsSettled):]
	if len(late) == 0 {
		t.Fatal("no OSDM call after the rotation settled")
	}
	for _, k := range late {
		if k != "alpine-2" {
			t.Fatalf("after the rotation settled an OSDM call carried a token of kid %q", k)
		}
	}

	// No dropped attempt reached a handler: Caddy's access log has every
	// request a handler saw, and none of the dropped ones.
	handled := reloadHandledAttempts(t, accessLog)
	if int64(len(handled)) < stats.sent.Load() {
		t.Errorf("the access log has %d requests, fewer than the %d messages sent", len(handled), stats.sent.Load())
	}
	for _, id := range stats.dropped {
		if handled[id] {
			t.Errorf("attempt %s dropped unanswered but a handler saw it: resending it was not provably safe", id)
		}
	}
}

// reloadSendOne sends one AvailabilityRequest and resends it while its
// connection drops before any reply.
func reloadSendOne(t *testing.T, client *http.Client, conn string, port int, id string, stats *reloadStats, reloading *atomic.Int64) {
	body, err := legacy.Encode(legacy.XML, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: id}, Journey: journeyOn("9203"),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
	})
	if err != nil {
		t.Error(err)
		return
	}
	stats.sent.Add(1)
	if time.Now().UnixNano() < reloading.Load() {
		stats.duringReload.Add(1)
	}
	fail := func(format string, args ...any) {
		stats.mu.Lock()
		stats.failures = append(stats.failures, fmt.Sprintf("message %s: ", id)+fmt.Sprintf(format, args...))
		stats.mu.Unlock()
	}
	for attempt := 1; ; attempt++ {
		attemptID := fmt.Sprintf("%s/%d", id, attempt)
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("http://127.0.0.1:%d/partners/alpine", port), bytes.NewReader(body))
		req.Header.Set("Content-Type", legacy.XML.ContentType())
		req.Header.Set("X-Attempt", attemptID)
		resp, err := client.Do(req)
		if err != nil {
			kind, unanswered := harness.DroppedUnanswered(err)
			if !unanswered || attempt == 3 {
				fail("attempt %d: %v", attempt, err)
				return
			}
			stats.resent.Add(1)
			stats.mu.Lock()
			stats.dropped = append(stats.dropped, attemptID)
			stats.dropKinds[conn+" "+kind]++
			stats.mu.Unlock()
			continue
		}
		reply, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			fail("reading the reply: %v", err)
			return
		}
		r, err := legacy.DecodeReply(legacy.XML, reply)
		if ar, ok := r.(*legacy.AvailabilityReply); err != nil || !ok || resp.StatusCode != http.StatusOK || len(ar.Offers) == 0 {
			fail("%d %s", resp.StatusCode, reply)
			return
		}
		stats.answered.Add(1)
		return
	}
}

// reloadHandledAttempts reads the X-Attempt header of every request in a
// JSON access log.
func reloadHandledAttempts(t *testing.T, path string) map[string]bool {
	t.Helper()
	type entry struct {
		Request struct {
			Headers map[string][]string `json:"headers"`
		} `json:"request"`
	}
	handled := map[string]bool{}
	for _, e := range harness.JSONLines[entry](t, path) {
		for _, id := range e.Request.Headers["X-Attempt"] {
			handled[id] = true
		}
	}
	return handled
}
