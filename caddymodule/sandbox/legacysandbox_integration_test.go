package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// lsDate is a departure date days ahead of today, in the demo's zone:
// computed, never written down.
func lsDate(days int) string {
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		loc = time.FixedZone("CET", 3600)
	}
	return time.Now().In(loc).AddDate(0, 0, days).Format(time.DateOnly)
}

func lsJourney(train string) legacy.Journey {
	return legacy.Journey{TrainNumber: train, DepartureDate: lsDate(2), From: "8500010", To: "8503000"}
}

func lsSeats(n int) legacy.PlaceRequest {
	return legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: n}}}
}

// lsSend posts msg in form f to url with client and decodes the reply,
// which must come in f.
func lsSend(t *testing.T, client *http.Client, url string, f legacy.Format, msg legacy.Message) (int, legacy.Reply) {
	t.Helper()
	return harness.LegacyClient{URL: url, Format: f, HTTP: client, CheckContentType: true}.Send(t, msg)
}

func lsTrySend(client *http.Client, url string, f legacy.Format, msg legacy.Message) (int, legacy.Reply, error) {
	a, err := harness.LegacyClient{URL: url, Format: f, HTTP: client, CheckContentType: true}.Try(msg)
	return a.Status, a.Reply, err
}

// lsNegative asserts a NegativeReply with code and the code's status.
func lsNegative(t *testing.T, status int, reply legacy.Reply, code legacy.Code) *legacy.NegativeReply {
	t.Helper()
	nr, ok := reply.(*legacy.NegativeReply)
	if !ok || nr.Code != code || status != code.HTTPStatus() || nr.Text == "" {
		t.Fatalf("%d %T %+v, want NegativeReply %s (%d)", status, reply, reply, code, code.HTTPStatus())
	}
	return nr
}

// lsReply returns a check that a reply is a T with status 200, to take
// lsSend's results: lsReply[T](t)(lsSend(...)).
func lsReply[T legacy.Reply](t *testing.T) func(int, legacy.Reply) T {
	return func(status int, reply legacy.Reply) T {
		t.Helper()
		r, ok := reply.(T)
		if !ok || status != http.StatusOK {
			var want T
			t.Fatalf("%d %T %+v, want %T", status, reply, reply, want)
		}
		return r
	}
}

// lsBookings reads the debug listing.
func lsBookings(t *testing.T, url string) []legacysandbox.BookingInfo {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []legacysandbox.BookingInfo
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != 200 {
		t.Fatalf("listing: %d %v", resp.StatusCode, err)
	}
	return list
}

// TestLegacySandboxIntegration runs legacy_sandbox in a real Caddy behind
// a path prefix and sends every message kind in XML and in JSON, every
// refusal it can give, a resend and a foreign train.
func TestLegacySandboxIntegration(t *testing.T) {
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return `
	route /hermes/* {
		legacy_sandbox {
			system 85
			capacity 3
			foreign 462 80 1080
			max_body 4KiB
		}
	}
	respond "not the sandbox" 418
`
	})
	url := base + "/hermes/messages"
	c := http.DefaultClient
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		t.Run(f.String(), func(t *testing.T) {
			id := func(s string) legacy.Header { return legacy.Header{MessageID: f.String() + "-" + s, Sender: 87} }
			train := map[legacy.Format]string{legacy.XML: "708", legacy.JSON: "709"}[f]
			j := lsJourney(train)
			a := lsReply[*legacy.AvailabilityReply](t)(lsSend(t, c, url, f, &legacy.AvailabilityRequest{Header: id("A"), Journey: j, Places: lsSeats(2)}))
			if len(a.Offers) != 1 || *a.Offers[0].AvailablePlaces != 3 || a.Offers[0].Price.Amount != "24.00" || a.Journey.DepartureTime == "" {
				t.Fatalf("availability %+v", a)
			}
			info := lsReply[*legacy.AvailabilityReply](t)(lsSend(t, c, url, f, &legacy.BookingRequest{Header: id("I"), InformationOnly: true, Journey: j, Places: lsSeats(2)}))
			req := &legacy.BookingRequest{Header: id("B"), Journey: j, Places: lsSeats(2), OfferRef: info.Offers[0].OfferRef,
				Passengers: []legacy.Passenger{{LastName: "Muster"}}}
			b := lsReply[*legacy.BookingReply](t)(lsSend(t, c, url, f, req))
			if b.Status != legacy.StatusConfirmed || len(b.Places) != 2 || b.TicketControlNumber == "" || b.ReservationReference == "" ||
				!strings.HasPrefix(b.BookingRef, "85-") || b.Header.CorrelationID != req.Header.MessageID {
				t.Fatalf("booking %+v", b)
			}
			// The resend: the same booking, nothing booked again.
			again := lsReply[*legacy.BookingReply](t)(lsSend(t, c, url, f, req))
			if again.BookingRef != b.BookingRef || again.TicketControlNumber != b.TicketControlNumber {
				t.Errorf("resend %+v", again)
			}
			a = lsReply[*legacy.AvailabilityReply](t)(lsSend(t, c, url, f, &legacy.AvailabilityRequest{Header: id("A2"), Journey: j, Places: lsSeats(1)}))
			if *a.Offers[0].AvailablePlaces != 1 {
				t.Errorf("after booking 2 of 3: %d left", *a.Offers[0].AvailablePlaces)
			}
			changed := *req
			changed.Places = lsSeats(1)
			changed.OfferRef = ""
			status, r := lsSend(t, c, url, f, &changed)
			lsNegative(t, status, r, legacy.CodeInvalidMessage)

			// Every refusal of a decoded message.
			status, r = lsSend(t, c, url, f, &legacy.BookingRequest{Header: id("N1"), Journey: j, Places: lsSeats(2)})
			lsNegative(t, status, r, legacy.CodeNoAvailability)
			status, r = lsSend(t, c, url, f, &legacy.AvailabilityRequest{Header: id("N2"), Journey: lsJourney("0"), Places: lsSeats(1)})
			lsNegative(t, status, r, legacy.CodeTrainNotFound)
			past := j
			past.DepartureDate = lsDate(-1)
			status, r = lsSend(t, c, url, f, &legacy.BookingRequest{Header: id("N3"), Journey: past, Places: lsSeats(1)})
			lsNegative(t, status, r, legacy.CodeNoAvailability)
			status, r = lsSend(t, c, url, f, &legacy.BookingRequest{Header: id("N4"), Journey: j, Places: lsSeats(1), ExchangeOf: b.BookingRef})
			lsNegative(t, status, r, legacy.CodeExchangeNotSupported)
			status, r = lsSend(t, c, url, f, &legacy.AvailabilityRequest{Header: id("N5"), Journey: j,
				Places: legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 8, Count: 1}}}})
			if nr := lsNegative(t, status, r, legacy.CodeInvalidMessage); !strings.Contains(nr.Text, "tariff code 8") {
				t.Errorf("text %q", nr.Text)
			}
			forged := &legacy.BookingRequest{Header: id("N6"), Journey: j, Places: lsSeats(1), OfferRef: "OF-" + train + "-x-21-1-00"}
			status, r = lsSend(t, c, url, f, forged)
			lsNegative(t, status, r, legacy.CodeInvalidMessage)
			status, r = lsSend(t, c, url, f, &legacy.CancelRequest{Header: id("N7"), BookingRef: "85-0000-1"})
			lsNegative(t, status, r, legacy.CodeBookingNotFound)

			// Cancel, with a reason code: no fee; then ALREADY_CANCELLED.
			reason := 1
			cr := lsReply[*legacy.CancelReply](t)(lsSend(t, c, url, f, &legacy.CancelRequest{Header: id("C1"), BookingRef: b.BookingRef, ReasonCode: &reason}))
			if cr.Status != legacy.StatusRefunded || cr.RefundAmount.Amount != "24.00" || cr.Fee.Amount != "0.00" {
				t.Errorf("cancel %+v", cr)
			}
			status, r = lsSend(t, c, url, f, &legacy.CancelRequest{Header: id("C2"), BookingRef: b.BookingRef})
			if nr := lsNegative(t, status, r, legacy.CodeAlreadyCancelled); nr.BookingRef != b.BookingRef {
				t.Errorf("ALREADY_CANCELLED names %q", nr.BookingRef)
			}

			// A foreign train: a ReplacementProposal.
			rp := lsReply[*legacy.ReplacementProposal](t)(lsSend(t, c, url, f, &legacy.BookingRequest{Header: id("F"), Journey: lsJourney("462"), Places: lsSeats(1)}))
			if len(rp.Alternatives) != 1 || rp.Alternatives[0].ReservationSystem != 80 || rp.Alternatives[0].Operator != "1080" {
				t.Errorf("proposal %+v", rp)
			}
		})
	}

	// Bad input over HTTP: NegativeReplies, never a Go error text.
	for _, tc := range []struct {
		name, method, contentType, body string
		status                          int
		code                            legacy.Code
	}{
		{"malformed XML", "POST", "application/xml", "<BookingRequest", 400, legacy.CodeInvalidMessage},
		{"malformed JSON", "POST", "application/json", `{"type":`, 400, legacy.CodeInvalidMessage},
		{"unknown message", "POST", "application/json", `{"type":"RefundRequest","messageId":"U1"}`, 422, legacy.CodeUnsupportedMessage},
		{"wrong content type", "POST", "text/plain", `<CancelRequest messageId="U2"><BookingRef>x</BookingRef></CancelRequest>`, 415, legacy.CodeInvalidMessage},
		{"oversized body", "POST", "application/xml", `<CancelRequest messageId="U3"><BookingRef>` + strings.Repeat("x", 5000) + `</BookingRef></CancelRequest>`, 413, legacy.CodeInvalidMessage},
		{"DELETE", "DELETE", "", "", 405, legacy.CodeInvalidMessage},
	} {
		status, body, header := harness.Do(t, tc.method, url, tc.contentType, tc.body, nil)
		form := legacy.XML
		if strings.HasPrefix(header.Get("Content-Type"), "application/json") {
			form = legacy.JSON
		}
		r, err := legacy.DecodeReply(form, []byte(body))
		if err != nil {
			t.Errorf("%s: %d %s: %v", tc.name, status, body, err)
			continue
		}
		if nr, ok := r.(*legacy.NegativeReply); !ok || nr.Code != tc.code || status != tc.status || strings.Contains(nr.Text, "http:") {
			t.Errorf("%s: %d %+v", tc.name, status, r)
		}
	}

	list := lsBookings(t, base+"/hermes/_sandbox/bookings")
	if len(list) != 2 || list[0].Status != "CANCELLED" || list[1].Status != "CANCELLED" || list[0].Train != "708" {
		t.Errorf("listing %+v", list)
	}
	if status, body, _ := harness.Do(t, http.MethodGet, base+"/elsewhere", "", "", nil); status != http.StatusTeapot {
		t.Errorf("outside the route: %d %s", status, body)
	}
}

// 200 parallel BookingRequests for one train with 40 places, through a
// real Caddy: exactly 40 bookings on 40 distinct places and 160
// NO_AVAILABILITY, nothing else.
func TestLegacySandboxParallelBookings(t *testing.T) {
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return `
	legacy_sandbox {
		system 9001
		capacity 40
	}
`
	})
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 64, MaxIdleConnsPerHost: 64}, Timeout: time.Minute}
	defer client.CloseIdleConnections()
	var mu sync.Mutex
	counts := map[string]int{}
	refs := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			f := []legacy.Format{legacy.XML, legacy.JSON}[i%2]
			status, reply, err := lsTrySend(client, base+"/", f, &legacy.BookingRequest{
				Header: legacy.Header{MessageID: "PAR-" + strconv.Itoa(i)}, Journey: lsJourney("9203"), Places: lsSeats(1),
			})
			mu.Lock()
			defer mu.Unlock()
			switch r := reply.(type) {
			case *legacy.BookingReply:
				if status == 200 {
					counts["booked"]++
					refs[r.BookingRef] = true
					return
				}
			case *legacy.NegativeReply:
				if status == http.StatusConflict {
					counts[string(r.Code)]++
					return
				}
			}
			counts[fmt.Sprintf("other %d %T %v", status, reply, err)]++
		})
	}
	wg.Wait()
	if counts["booked"] != 40 || counts["NO_AVAILABILITY"] != 160 || len(counts) != 2 || len(refs) != 40 {
		t.Fatalf("counts %v, %d booking refs", counts, len(refs))
	}
	places := map[legacysandbox.PlaceInfo]bool{}
	list := lsBookings(t, base+"/_sandbox/bookings")
	for _, b := range list {
		for _, p := range b.Places {
			places[p] = true
		}
	}
	if len(list) != 40 || len(places) != 40 {
		t.Errorf("listing: %d bookings on %d distinct places", len(list), len(places))
	}
}

// latency delays every answer; a client that gives up earlier gets
// nothing, but the booking was made: its resend gets it.
func TestLegacySandboxLatency(t *testing.T) {
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return `
	legacy_sandbox {
		system 9002
		latency 300ms
		offer_ttl 1s
	}
`
	})
	req := &legacy.BookingRequest{Header: legacy.Header{MessageID: "LAT-1"}, Journey: lsJourney("708"), Places: lsSeats(1)}
	impatient := &http.Client{Timeout: 50 * time.Millisecond}
	if _, _, err := lsTrySend(impatient, base+"/", legacy.JSON, req); err == nil || !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "Timeout") {
		t.Fatalf("a 50ms client got an answer: %v", err)
	}
	begin := time.Now()
	b := lsReply[*legacy.BookingReply](t)(lsSend(t, http.DefaultClient, base+"/", legacy.JSON, req))
	if d := time.Since(begin); d < 300*time.Millisecond {
		t.Errorf("answered after %s with latency 300ms", d)
	}
	if list := lsBookings(t, base+"/_sandbox/bookings"); len(list) != 1 || list[0].BookingRef != b.BookingRef {
		t.Errorf("listing %+v, booked %s", list, b.BookingRef)
	}
	// An OfferRef past its ValidUntil: OFFER_EXPIRED.
	a := lsReply[*legacy.AvailabilityReply](t)(lsSend(t, http.DefaultClient, base+"/", legacy.XML, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: "LAT-2"}, Journey: lsJourney("708"), Places: lsSeats(1)}))
	time.Sleep(time.Until(a.Offers[0].ValidUntil) + 10*time.Millisecond)
	status, r := lsSend(t, http.DefaultClient, base+"/", legacy.XML, &legacy.BookingRequest{
		Header: legacy.Header{MessageID: "LAT-3"}, Journey: lsJourney("708"), Places: lsSeats(1), OfferRef: a.Offers[0].OfferRef})
	lsNegative(t, status, r, legacy.CodeOfferExpired)
	// Bad input is delayed too.
	begin = time.Now()
	if status, _, _ := harness.Do(t, http.MethodPost, base+"/", "text/plain", "x", nil); status != http.StatusUnsupportedMediaType {
		t.Errorf("status %d", status)
	}
	if d := time.Since(begin); d < 300*time.Millisecond {
		t.Errorf("refusal after %s with latency 300ms", d)
	}
}

// timetable: a GTFS feed decides which trains run where and when.
func TestLegacySandboxTimetable(t *testing.T) {
	dir := t.TempDir()
	loc, _ := time.LoadLocation("Europe/Paris")
	today := time.Now().In(loc)
	d := func(days int) string { return today.AddDate(0, 0, days).Format("20060102") }
	for name, body := range map[string]string{
		"agency.txt":     "agency_id,agency_name,agency_url,agency_timezone\nES,Eurostar,https://example.eu,Europe/Paris\n",
		"stops.txt":      "stop_id,stop_name\n8727100,Paris Nord\n8722326,Lille Europe\n8814001,Bruxelles-Midi\n",
		"routes.txt":     "route_id,agency_id,route_type\nR,ES,2\n",
		"trips.txt":      "route_id,service_id,trip_id,trip_short_name\nR,DAILY,T1,9315\n",
		"stop_times.txt": "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nT1,09:13:00,09:13:00,8727100,1\nT1,10:35:00,10:35:00,8814001,2\n",
		"calendar.txt": "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n" +
			"DAILY,1,1,1,1,1,1,1," + d(-5) + "," + d(30) + "\n",
		"calendar_dates.txt": "service_id,date,exception_type\nDAILY," + d(3) + ",2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return fmt.Sprintf(`
	legacy_sandbox {
		system 9003
		timetable %s stop_id
	}
`, dir)
	})
	j := legacy.Journey{TrainNumber: "9315", DepartureDate: lsDate(2), From: "8727100", To: "8814001"}
	a := lsReply[*legacy.AvailabilityReply](t)(lsSend(t, http.DefaultClient, base+"/", legacy.XML, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: "TT-1"}, Journey: j, Places: lsSeats(1)}))
	if a.Journey.DepartureTime != "09:13" || a.Journey.ArrivalTime != "10:35" || len(a.Offers) != 1 {
		t.Errorf("reply %+v", a)
	}
	for i, tc := range []struct {
		edit func(*legacy.Journey)
		text string
	}{
		{func(j *legacy.Journey) { j.DepartureDate = lsDate(3) }, "does not run on"},
		{func(j *legacy.Journey) { j.From = "8722326" }, "does not leave 8722326"},
		{func(j *legacy.Journey) { j.TrainNumber = "708" }, "not in the timetable"},
	} {
		jj := j
		tc.edit(&jj)
		status, r := lsSend(t, http.DefaultClient, base+"/", legacy.JSON, &legacy.AvailabilityRequest{
			Header: legacy.Header{MessageID: "TT-N" + strconv.Itoa(i)}, Journey: jj, Places: lsSeats(1)})
		if nr := lsNegative(t, status, r, legacy.CodeTrainNotFound); !strings.Contains(nr.Text, tc.text) {
			t.Errorf("text %q, want %q", nr.Text, tc.text)
		}
	}
}

// A JSON config (no Caddyfile) runs the handler with every field.
func TestLegacySandboxJSONConfig(t *testing.T) {
	port := harness.FreePort(t)
	cfg := fmt.Sprintf(`{
	"admin": {"disabled": true},
	"apps": {"http": {"servers": {"legacy": {
		"listen": ["127.0.0.1:%d"],
		"routes": [{"handle": [{
			"handler": "legacy_sandbox",
			"system": 86,
			"capacity": 5,
			"foreign": [{"train": "462", "system": 80, "operator": "1080"}],
			"tariffs": [{"code": 1, "percent": 100}, {"code": 5, "percent": 20}],
			"fares": [{"travel_class": 2, "service_code": 1, "cents": 2000}],
			"currency": "CHF",
			"cancel_fee_percent": 50,
			"offer_ttl": 600000000000,
			"max_entries": 100,
			"max_body": 8192
		}]}]
	}}}}
}`, port)
	harness.LoadJSON(t, []byte(cfg))
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	p := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 5, Count: 1}}}
	b := lsReply[*legacy.BookingReply](t)(lsSend(t, http.DefaultClient, url, legacy.JSON, &legacy.BookingRequest{
		Header: legacy.Header{MessageID: "J1"}, Journey: lsJourney("708"), Places: p}))
	if b.Price.Amount != "24.00" || b.Price.Currency != "CHF" || !strings.HasPrefix(b.BookingRef, "86-") {
		t.Errorf("booking %+v %+v", b, b.Price)
	}
	cr := lsReply[*legacy.CancelReply](t)(lsSend(t, http.DefaultClient, url, legacy.JSON, &legacy.CancelRequest{
		Header: legacy.Header{MessageID: "J2"}, BookingRef: b.BookingRef}))
	if cr.Fee.Amount != "12.00" || cr.RefundAmount.Amount != "12.00" {
		t.Errorf("cancel %+v %+v", cr.Fee, cr.RefundAmount)
	}
	status, r := lsSend(t, http.DefaultClient, url, legacy.XML, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: "J3"}, Journey: lsJourney("708"), Places: lsSeats(6)})
	if a := lsReply[*legacy.AvailabilityReply](t)(status, r); len(a.Offers) != 1 || *a.Offers[0].AvailablePlaces != 5 {
		t.Errorf("6 places of 5: %+v", a.Offers)
	}
	lsReply[*legacy.ReplacementProposal](t)(lsSend(t, http.DefaultClient, url, legacy.XML, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: "J4"}, Journey: lsJourney("462"), Places: lsSeats(1)}))
}

// TestLegacySandboxRollbackAfterChange: in a real Caddy, a SynchroRequest
// rollback of a BookingRequest whose booking was partly cancelled since is
// refused (INVALID_MESSAGE saying so) and frees nothing: the cancelled
// place's fee stands and the other place stays held. A rollback naming its
// own messageId is refused too.
func TestLegacySandboxRollbackAfterChange(t *testing.T) {
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return "\troute /hermes/* {\n\t\tlegacy_sandbox\n\t}\n"
	})
	url, c := base+"/hermes/messages", http.DefaultClient
	id := func(s string) legacy.Header { return legacy.Header{MessageID: "RB-" + s, Sender: 87} }
	br := lsReply[*legacy.BookingReply](t)(lsSend(t, c, url, legacy.XML, &legacy.BookingRequest{Header: id("B"), Journey: lsJourney("708"), Places: lsSeats(2)}))
	lsReply[*legacy.CancelReply](t)(lsSend(t, c, url, legacy.XML, &legacy.CancelRequest{Header: id("C"), BookingRef: br.BookingRef, Places: br.Places[:1]}))
	before := lsBookings(t, base+"/hermes/_sandbox/bookings")
	status, reply := lsSend(t, c, url, legacy.XML, &legacy.SynchroRequest{Header: id("S"), OriginalMessageID: "RB-B", Rollback: true})
	if nr := lsNegative(t, status, reply, legacy.CodeInvalidMessage); !strings.Contains(nr.Text, "partly cancelled since") {
		t.Errorf("rollback after a partial cancellation: %+v", nr)
	}
	after := lsBookings(t, base+"/hermes/_sandbox/bookings")
	if len(after) != 1 || after[0].Status != legacy.StatusConfirmed || after[0].Fee != before[0].Fee || after[0].Fee == "" || after[0].Refund != before[0].Refund {
		t.Errorf("the booking after the refused rollback: %+v (before %+v)", after, before)
	}
	status, reply = lsSend(t, c, url, legacy.JSON, &legacy.SynchroRequest{Header: id("S2"), OriginalMessageID: "RB-S2", Rollback: true})
	lsNegative(t, status, reply, legacy.CodeInvalidMessage)
}
