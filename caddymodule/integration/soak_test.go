//go:build soak

package integration

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httputil"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// The soak test is not part of the default run:
//
//	go test -race -tags soak -run TestSoak -timeout 30m ./caddymodule/integration/ -v
//
// with -soak.duration, -soak.clients and -soak.faults to change its size.
var (
	soakDuration = flag.Duration("soak.duration", 3*time.Minute, "soak: how long the measured load runs (after warm-up)")
	soakWarmup   = flag.Duration("soak.warmup", 30*time.Second, "soak: warm-up before the first measurement")
	soakClients  = flag.Int("soak.clients", 200, "soak: concurrent legacy clients")
	soakFaults   = flag.Float64("soak.faults", 0.03, "soak: share of the partner's calls that fail")
	soakStore    = flag.String("soak.store", "bolt", "soak: osdm_convert's journal store: bolt (a file of this run) or redis (at OSDM_TEST_REDIS)")
)

// soakEdit sizes Caddyfile.example for minutes of load: Caddy's log into
// logFile (one line per legacy exchange), bounded reply
// caches that fill during warm-up, access tokens of 30 s (so osdm_token
// logs in again a few times under load), short-lived offers and finished
// bookings at the partners, and no cap on the bookings they hold, so that
// every booking can be reconciled at the end.
func soakEdit(logFile string) func(string) string {
	return func(cf string) string { return soakReplacer(logFile).Replace(cf) }
}

func soakReplacer(logFile string) *strings.Replacer {
	sandbox := "\n\t\t\toffer_ttl 30s\n\t\t\tretention 1s\n\t\t\tmax_entries 1000000"
	journal := "\n\t\t\tstore " + soakStoreArgs(logFile)
	app := ""
	if *soakStore == "redis" {
		// A store of the osdm app: the test Redis need not persist.
		app = "\tosdm {\n\t\tstore soak redis " + os.Getenv("OSDM_TEST_REDIS") + " {\n\t\t\tprefix " +
			fmt.Sprintf("soak-%d:", time.Now().UnixNano()) + "\n\t\t\taccept_volatile\n\t\t}\n\t}\n"
		journal = "\n\t\t\tstore soak"
	}
	return strings.NewReplacer(
		exampleLogBlock, app+exampleLog(logFile, ""),
		"timeout 20s", "timeout 20s\n\t\t\treply_cache 2000 2m"+journal,
		"offer_search trip-offers", "offer_search trip-offers\n\t\t\treply_cache 2000 2m"+journal,
		"token_lifetime 15m", "token_lifetime 30s",
		"audience http://127.0.0.1:9442/oauth/token", "audience http://127.0.0.1:9442/oauth/token\n\t\t\ttoken_lifetime 30s",
		"capacity 40\n\t\t\toffer_ttl 15m", "capacity 40"+sandbox,
		"external_inventory 462 80 1080", "external_inventory 462 80 1080"+sandbox,
	)
}

// soakStoreArgs are the arguments of osdm_convert's store subdirective
// that -soak.store selects: a bolt file beside the log, or a Redis key
// prefix of this run.
func soakStoreArgs(logFile string) string {
	if *soakStore == "redis" {
		if os.Getenv("OSDM_TEST_REDIS") == "" {
			panic("-soak.store redis needs OSDM_TEST_REDIS")
		}
		return "soak" // the osdm app's store, soakReplacer's
	}
	return "bolt " + filepath.Join(filepath.Dir(logFile), "journal.db")
}

// soakBooking is what the legacy side was told about one booking.
type soakBooking struct {
	partner string
	// told is the last reply naming it: "booked" (BookingReply),
	// "refunded", "cancelled" (CancelReply), "rolled_back", or "named"
	// (another NegativeReply naming it: its state is whatever the partner
	// says, but the legacy side knows the booking).
	told string
}

// soakStats are the test's counters.
type soakStats struct {
	mu         sync.Mutex
	served     map[string]int // kind/outcome -> count
	unexpected []string
	bookings   map[string]*soakBooking // partner/id
	latencies  []time.Duration
}

func (s *soakStats) count(kind, outcome string, d time.Duration) {
	s.mu.Lock()
	s.served[kind+" "+outcome]++
	s.latencies = append(s.latencies, d)
	s.mu.Unlock()
}

func (s *soakStats) fail(format string, args ...any) {
	s.mu.Lock()
	if len(s.unexpected) < 1000 {
		s.unexpected = append(s.unexpected, fmt.Sprintf(format, args...))
	}
	s.mu.Unlock()
}

func (s *soakStats) tell(partner, id, told string) {
	s.mu.Lock()
	b := s.bookings[partner+"/"+id]
	if b == nil {
		b = &soakBooking{partner: partner}
		s.bookings[partner+"/"+id] = b
	}
	b.told = told
	s.mu.Unlock()
}

// soakClient is one legacy reservation system sending messages one after
// another.
type soakClient struct {
	n      int
	rng    *mrand.Rand
	http   *http.Client
	base   string
	faults map[string]*faultInjector
	stats  *soakStats
	// own are the bookings this client may cancel: partner/id -> told.
	own map[string]string
	seq int
}

// journey is a journey on a random train and day: enough train runs that
// 40 places each do not run out.
func (c *soakClient) journey() legacy.Journey {
	return legacy.Journey{
		TrainNumber:   strconv.Itoa(100 + c.rng.IntN(9000)),
		DepartureDate: time.Now().AddDate(0, 0, 2+c.rng.IntN(60)).Format("2006-01-02"),
		DepartureTime: "07:56", From: "8727100", To: "8500010",
	}
}

// send posts one message with a traceparent of its own and returns the
// reply and whether the partner failed a call of this exchange.
func (c *soakClient) send(partner string, msg legacy.Message) (legacy.Reply, bool, error) {
	f := legacy.XML
	if c.rng.IntN(2) == 0 {
		f = legacy.JSON
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	trace := hex.EncodeToString(id[:])
	start := time.Now()
	a, err := harness.LegacyClient{URL: c.base + partner, Format: f, HTTP: c.http,
		Header: http.Header{"Traceparent": {"00-" + trace + "-00f067aa0ba902b7-01"}}}.Try(msg)
	if err != nil {
		return nil, false, err
	}
	r := a.Reply
	_, faulted := c.faults[partner].faultOfTrace(trace)
	kind := strings.TrimSuffix(fmt.Sprintf("%T", msg), "Request")
	outcome := fmt.Sprintf("%T", r)
	if nr, ok := r.(*legacy.NegativeReply); ok {
		outcome = string(nr.Code)
		if nr.Code.HTTPStatus() != a.Status {
			c.stats.fail("%s answered %d for %s", nr.Code, a.Status, kind)
		}
	}
	c.stats.count(strings.TrimPrefix(kind, "*legacy."), strings.TrimPrefix(outcome, "*legacy."), time.Since(start))
	return r, faulted, nil
}

func (c *soakClient) id(what string) string {
	c.seq++
	return fmt.Sprintf("soak-%d-%d-%s", c.n, c.seq, what)
}

// step sends one message of the mix and checks its reply.
func (c *soakClient) step() {
	partner := "alpine"
	if c.rng.IntN(10) == 0 {
		partner = "coastal"
	}
	places := legacy.PlaceRequest{TravelClass: 1 + c.rng.IntN(2), ServiceCode: legacy.ServiceSeat,
		Tariffs: []legacy.Tariff{{Code: 1, Count: 1 + c.rng.IntN(2)}}}
	if c.rng.IntN(3) == 0 {
		places.Tariffs = append(places.Tariffs, legacy.Tariff{Code: 2, Count: 1})
	}
	roll := c.rng.IntN(100)
	var cancelable []string
	for k, told := range c.own {
		if strings.HasPrefix(k, partner+"/") && (told == "booked" || told == "named") {
			cancelable = append(cancelable, k)
		}
	}
	sort.Strings(cancelable)
	switch {
	case roll < 30 && len(cancelable) > 0:
		c.cancel(partner, cancelable[c.rng.IntN(len(cancelable))])
	case roll < 45:
		c.book(partner, places, true)
	case roll < 65:
		c.book(partner, places, false)
	case roll < 70:
		r, faulted, err := c.send(partner, &legacy.BookingRequest{Header: legacy.Header{MessageID: c.id("info")},
			InformationOnly: true, Journey: c.journey(), Places: places})
		c.expectSearch(partner, r, faulted, err)
	default:
		j := c.journey()
		if partner == "coastal" && c.rng.IntN(10) == 0 {
			j.TrainNumber = "462"
		}
		r, faulted, err := c.send(partner, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: c.id("avail")}, Journey: j, Places: places})
		c.expectSearch(partner, r, faulted, err)
	}
}

// expectSearch checks the reply to a search: offers, a replacement for
// train 462, or a partner failure when the partner failed a call.
func (c *soakClient) expectSearch(partner string, r legacy.Reply, faulted bool, err error) *legacy.AvailabilityReply {
	switch r := r.(type) {
	case *legacy.AvailabilityReply:
		return r
	case *legacy.ReplacementProposal:
		return nil
	case *legacy.NegativeReply:
		if faulted && partnerFailure(r.Code) {
			return nil
		}
		c.stats.fail("%s search: %s %s", partner, r.Code, r.Text)
	default:
		c.stats.fail("%s search: %T %v", partner, r, err)
	}
	return nil
}

// partnerFailure: the codes a call the partner failed may end in.
func partnerFailure(code legacy.Code) bool {
	return code == legacy.CodePartnerUnavailable || code == legacy.CodePartnerTimeout || code == legacy.CodeBookingRolledBack
}

func (c *soakClient) book(partner string, places legacy.PlaceRequest, withOffer bool) {
	j := c.journey()
	offerRef := ""
	if withOffer {
		r, faulted, err := c.send(partner, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: c.id("offer")}, Journey: j, Places: places})
		avail := c.expectSearch(partner, r, faulted, err)
		if avail == nil {
			return
		}
		if len(avail.Offers) == 0 {
			c.stats.fail("%s: no offer for %d places on train %s", partner, len(places.Tariffs), j.TrainNumber)
			return
		}
		offerRef = avail.Offers[0].OfferRef
	}
	r, faulted, err := c.send(partner, &legacy.BookingRequest{Header: legacy.Header{MessageID: c.id("book")},
		Journey: j, Places: places, OfferRef: offerRef,
		Passengers: []legacy.Passenger{{FirstName: "Soak", LastName: "Client" + strconv.Itoa(c.n)}}})
	switch r := r.(type) {
	case *legacy.BookingReply:
		if r.Status != legacy.StatusFulfilled || r.BookingRef == "" {
			c.stats.fail("%s booking: %+v", partner, r)
			return
		}
		c.own[partner+"/"+r.BookingRef] = "booked"
		c.stats.tell(partner, r.BookingRef, "booked")
	case *legacy.NegativeReply:
		if !faulted || !partnerFailure(r.Code) {
			c.stats.fail("%s booking (partner failed: %v): %s %s", partner, faulted, r.Code, r.Text)
		}
		if r.BookingRef == "" {
			return
		}
		told := "named"
		if r.Code == legacy.CodeBookingRolledBack {
			told = "rolled_back"
		}
		c.own[partner+"/"+r.BookingRef] = told
		c.stats.tell(partner, r.BookingRef, told)
	default:
		c.stats.fail("%s booking: %T %v", partner, r, err)
	}
}

func (c *soakClient) cancel(partner, key string) {
	id := strings.TrimPrefix(key, partner+"/")
	var reason *int
	if c.rng.IntN(2) == 0 {
		one := 1
		reason = &one
	}
	r, faulted, err := c.send(partner, &legacy.CancelRequest{Header: legacy.Header{MessageID: c.id("cancel")}, BookingRef: id, ReasonCode: reason})
	switch r := r.(type) {
	case *legacy.CancelReply:
		told := "refunded"
		if r.Status == legacy.StatusCancelled {
			told = "cancelled"
		}
		if c.own[key] == "booked" && told != "refunded" {
			c.stats.fail("%s cancel of fulfilled %s: %+v", partner, id, r)
		}
		c.own[key] = told
		c.stats.tell(partner, id, told)
	case *legacy.NegativeReply:
		// A booking named after a failure may have been rolled back or
		// released since; otherwise only a partner failure explains it.
		if !(faulted && partnerFailure(r.Code)) && !(c.own[key] == "named" && r.Code == legacy.CodeAlreadyCancelled) {
			c.stats.fail("%s cancel of %s %s (partner failed: %v): %s %s", partner, c.own[key], id, faulted, r.Code, r.Text)
		}
		if r.Code == legacy.CodeAlreadyCancelled {
			c.own[key] = "cancelled"
			c.stats.tell(partner, id, "cancelled")
		}
	default:
		c.stats.fail("%s cancel: %T %v", partner, r, err)
	}
}

// soakMemory is a measurement of the process.
type soakMemory struct {
	goroutines int
	heap       uint64
}

func measure() soakMemory {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return soakMemory{goroutines: runtime.NumGoroutine(), heap: m.HeapAlloc}
}

// TestSoak runs -soak.clients legacy clients against Caddyfile.example
// for -soak.warmup plus -soak.duration, with partners failing
// -soak.faults of their calls (503 problems and connection resets before
// acting, unreadable fulfilment answers after acting), and reports what
// matters: requests served, unexpected errors (must be 0), bookings
// reconciled with the partners (must match exactly), goroutines and heap
// after warm-up and at the end (no growth beyond the bookings the
// partners keep).
func TestSoak(t *testing.T) {
	warmSpec(t)
	c := startExampleChainWith(t, chainOptions{edit: soakEdit(filepath.Join(t.TempDir(), "caddy.log")), settle: true})
	faults := map[string]*faultInjector{}
	for name, tap := range map[string]*partnerTap{"alpine": c.alpine, "coastal": c.coastal} {
		tap.mu.Lock()
		tap.quiet = true
		tap.exchanges = nil
		tap.mu.Unlock()
		// The default transport keeps two idle connections per host: too
		// few for 200 clients, every call would open a connection.
		tap.rp.(*httputil.ReverseProxy).Transport = &http.Transport{MaxIdleConnsPerHost: 512, IdleConnTimeout: time.Minute}
		inj := injectFaults(t, tap)
		rate := *soakFaults
		var rules []faultRule
		for _, step := range []converter.Step{converter.StepOffers, converter.StepTripOffers, converter.StepBooking,
			converter.StepFulfillments, converter.StepReadBooking, converter.StepDeleteBooking, converter.StepRefundOffers, converter.StepRefundOffer} {
			rules = append(rules, faultRule{step: step, kind: fault5xx, rate: rate / 2})
			rules = append(rules, faultRule{step: step, kind: faultReset, rate: rate / 2})
		}
		rules = append(rules, faultRule{step: converter.StepFulfillments, kind: faultGarbage, rate: rate / 3})
		inj.set(rules...)
		faults[name] = inj
	}

	stats := &soakStats{served: map[string]int{}, bookings: map[string]*soakBooking{}}
	transport := &http.Transport{MaxIdleConnsPerHost: *soakClients + 10, IdleConnTimeout: time.Minute}
	client := &http.Client{Transport: transport, Timeout: time.Minute}
	var (
		pause   sync.RWMutex // clients hold it for reading while they send
		stop    atomic.Bool
		wg      sync.WaitGroup
		clients = make([]*soakClient, *soakClients)
	)
	for i := range clients {
		clients[i] = &soakClient{n: i, rng: mrand.New(mrand.NewPCG(uint64(i), uint64(time.Now().UnixNano()))), http: client,
			base: c.legacyBase, faults: faults, stats: stats, own: map[string]string{}}
		wg.Add(1)
		go func(cl *soakClient) {
			defer wg.Done()
			for {
				pause.RLock()
				if stop.Load() {
					pause.RUnlock()
					return
				}
				cl.step()
				pause.RUnlock()
			}
		}(clients[i])
	}
	// quiesce waits for the clients between two messages and measures.
	quiesce := func(label string) soakMemory {
		pause.Lock()
		// Idle keep-alive connections hold goroutines at both ends, as
		// many as the load happened to open: close them all, so that the
		// two measurements count the same things.
		transport.CloseIdleConnections()
		for _, tap := range []*partnerTap{c.alpine, c.coastal} {
			tap.srv.CloseClientConnections()
			tap.rp.(*httputil.ReverseProxy).Transport.(*http.Transport).CloseIdleConnections()
		}
		var m soakMemory
		for range 20 {
			time.Sleep(250 * time.Millisecond)
			if m2 := measure(); m2.goroutines == m.goroutines {
				break
			} else {
				m = m2
			}
		}
		m = measure()
		stats.mu.Lock()
		n := 0
		for _, v := range stats.served {
			n += v
		}
		stats.mu.Unlock()
		t.Logf("%s: %d requests served, %d goroutines, heap %.1f MiB", label, n, m.goroutines, float64(m.heap)/(1<<20))
		return m
	}
	time.Sleep(*soakWarmup)
	base := quiesce("after warm-up")
	baseBookings := soakPartnerBookings(t, c)
	pause.Unlock()
	start := time.Now()
	time.Sleep(*soakDuration)
	end := quiesce("at the end")
	elapsed := time.Since(start)
	stop.Store(true)
	pause.Unlock()
	wg.Wait()

	// Reconcile: every booking the legacy side was told about has the
	// partner state the reply implies, and the partners hold no live
	// booking the legacy side was not told about.
	held := soakPartnerBookings(t, c)
	stats.mu.Lock()
	defer stats.mu.Unlock()
	var mismatches []string
	liveTold := 0
	for key, b := range stats.bookings {
		st, present := held[key]
		var ok bool
		switch b.told {
		case "booked":
			ok, liveTold = st == "FULFILLED", liveTold+1
		case "refunded":
			ok = !present || st == "REFUNDED"
		case "cancelled", "rolled_back":
			ok = !present || st == "DELETED" || st == "REFUNDED"
		case "named":
			ok = true
			if present && (st == "PREBOOKED" || st == "FULFILLED") {
				liveTold++
			}
		}
		if !ok {
			mismatches = append(mismatches, fmt.Sprintf("%s told %s, partner says %q", key, b.told, st))
		}
	}
	liveHeld, fulfilledHeld := 0, 0
	for key, st := range held {
		if st != "PREBOOKED" && st != "FULFILLED" {
			continue
		}
		liveHeld++
		if st == "FULFILLED" {
			fulfilledHeld++
		}
		if stats.bookings[key] == nil {
			mismatches = append(mismatches, fmt.Sprintf("%s is %s at the partner, but no reply named it", key, st))
		}
	}
	if liveHeld != liveTold {
		mismatches = append(mismatches, fmt.Sprintf("partners hold %d live bookings, the legacy side knows %d", liveHeld, liveTold))
	}

	total := 0
	var lines []string
	for k, v := range stats.served {
		total += v
		lines = append(lines, fmt.Sprintf("  %-40s %d", k, v))
	}
	slices.Sort(lines)
	slices.Sort(stats.latencies)
	pct := func(p float64) time.Duration { return stats.latencies[int(p*float64(len(stats.latencies)-1))] }
	injected := 0
	for _, inj := range faults {
		inj.mu.Lock()
		injected += len(inj.traces)
		inj.mu.Unlock()
	}
	baseLive := 0
	for _, st := range baseBookings {
		if st == "FULFILLED" {
			baseLive++
		}
	}
	t.Logf("soak: %d clients, %s warm-up + %s measured; %d requests served (%.0f/s overall), %d exchanges met an injected fault",
		*soakClients, *soakWarmup, elapsed.Round(time.Second), total, float64(total)/(elapsed+*soakWarmup).Seconds(), injected)
	t.Logf("latency p50 %s p99 %s max %s", pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), pct(1).Round(time.Millisecond))
	t.Logf("replies by message kind and outcome:\n%s", strings.Join(lines, "\n"))
	t.Logf("bookings: %d told to the legacy side, %d live at the partners (%d fulfilled), %d mismatches",
		len(stats.bookings), liveHeld, fulfilledHeld, len(mismatches))
	t.Logf("goroutines %d -> %d, heap %.1f MiB -> %.1f MiB; fulfilled bookings held %d -> %d",
		base.goroutines, end.goroutines, float64(base.heap)/(1<<20), float64(end.heap)/(1<<20), baseLive, fulfilledHeld)
	t.Logf("unexpected errors: %d", len(stats.unexpected))
	for i, u := range stats.unexpected {
		if i == 20 {
			break
		}
		t.Errorf("unexpected: %s", u)
	}
	for i, m := range mismatches {
		if i == 20 {
			break
		}
		t.Errorf("reconciliation: %s", m)
	}
	if end.goroutines > base.goroutines+20 {
		t.Errorf("goroutines grew from %d to %d", base.goroutines, end.goroutines)
	}
	// What may grow is what the partners keep: the fulfilled bookings,
	// kept until the trains have run (a few KiB each with their offer
	// data), plus 16 MiB of slack for the collector's timing.
	allowance := uint64(max(0, fulfilledHeld-baseLive))*4<<10 + 16<<20
	if end.heap > base.heap+allowance {
		t.Errorf("heap grew from %.1f to %.1f MiB, more than the %d more bookings held explain",
			float64(base.heap)/(1<<20), float64(end.heap)/(1<<20), fulfilledHeld-baseLive)
	}
}

// soakPartnerBookings reads both partners' bookings: partner/id -> status.
func soakPartnerBookings(t *testing.T, c *exampleChain) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, tap := range map[string]*partnerTap{"alpine": c.alpine, "coastal": c.coastal} {
		// A search first, so that the tap has a current access token.
		c.send(t, name, legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: fmt.Sprintf("soak-read-%d", time.Now().UnixNano())},
			Journey: journeyOn("9203"), Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1})})
		for _, b := range tap.sandboxBookings(t) {
			out[name+"/"+b.ID] = b.Status
		}
	}
	return out
}
