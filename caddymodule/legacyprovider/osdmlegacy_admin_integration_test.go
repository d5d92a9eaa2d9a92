package legacyprovider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

// TestOSDMLegacyAdminAPIAfterSIGKILL: two Caddy processes on one Redis,
// each with its admin endpoint. Instance a is killed (SIGKILL) while its
// BookingRequest is at the legacy system; instance b's admin API lists
// the intent a left as pending and finds the booking by its id, and, once
// the intent's lease and the hold have run out, POST /osdm/settle settles
// it and releases the places: nothing pending is left, and the legacy
// system holds nothing.
func TestOSDMLegacyAdminAPIAfterSIGKILL(t *testing.T) {
	redis := redistest.Server(t)
	l := startBKLegacy(t)
	r := newBKRedis(t, l, "addresses "+redis)
	withApp := func(port, admin int) string {
		cf := r.caddyfile(port, "\n\t\t\thold 1s")
		cf = strings.Replace(cf, "settle_interval 200ms", "settle_interval 1h", 1) // settlement only when asked (and at start)
		return strings.Replace(cf, "\tadmin off\n", fmt.Sprintf("\tadmin 127.0.0.1:%d\n", admin), 1)
	}
	adminB := harness.FreePort(t)
	a, ca := r.start("a", func(port int) string { return withApp(port, harness.FreePort(t)) })
	r.start("b", func(port int) string { return withApp(port, adminB) })
	admin := fmt.Sprintf("http://127.0.0.1:%d", adminB)

	msgID := l.bookUnanswered(t, ca, ca.offer("708").OfferID)
	a.Kill()
	killed := time.Now()
	bookingID, _, _ := strings.Cut(msgID, ".")

	var pending []opstatus.Pending
	body := adminJSON(t, http.MethodGet, admin+"/osdm/pending", &pending)
	if len(pending) != 1 || pending[0].Kind != "intent" || pending[0].Ref != msgID || pending[0].Direction != opstatus.OSDMToLegacy {
		t.Fatalf("pending on the other instance after the SIGKILL: %s", body)
	}
	var recs []opstatus.Record
	body = adminJSON(t, http.MethodGet, admin+"/osdm/bookings/"+bookingID, &recs)
	if len(recs) != 1 || recs[0].State != "BOOKING" || !strings.Contains(body, msgID) {
		t.Fatalf("the booking the dead instance left: %s", body)
	}
	var stores []struct{ Engine, Check string }
	body = adminJSON(t, http.MethodGet, admin+"/osdm/stores", &stores)
	if len(stores) != 1 || stores[0].Engine != "redis" || stores[0].Check != "ok" {
		t.Fatalf("stores: %s", body)
	}

	// The intent's lease (the call's timeout, 2s) and the hold (1s) run
	// out; then one pass asked for settles the intent and releases the
	// places.
	time.Sleep(time.Until(killed.Add(2500 * time.Millisecond)))
	var settled struct {
		PendingBefore int `json:"pending_before"`
		PendingAfter  int `json:"pending_after"`
	}
	body = adminJSON(t, http.MethodPost, admin+"/osdm/settle", &settled)
	if settled.PendingBefore != 1 || settled.PendingAfter != 0 {
		t.Fatalf("settle: %s", body)
	}
	body = adminJSON(t, http.MethodGet, admin+"/osdm/pending", &pending)
	if len(pending) != 0 || len(l.held()) != 0 {
		t.Fatalf("after settling, pending %s and the legacy system holds %d bookings", body, len(l.held()))
	}
}

// adminJSON calls an admin endpoint, wants 200, and decodes the answer.
func adminJSON(t *testing.T, method, url string, v any) string {
	t.Helper()
	status, body, _ := harness.Do(t, method, url, "", "", nil)
	if status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", method, url, status, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%s %s: %v in %s", method, url, err, body)
	}
	return body
}
