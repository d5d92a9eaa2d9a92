package osdmlegacy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store/storetest"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// The booking tests run the façade against the legacysandbox package as
// the legacy system, through faultyLegacy, which can lose, refuse or
// garble any message; after each, the legacy system's bookings and the
// store are checked to agree.

// bookStart is the booking tests' clock start: dates derive from it.
var bookStart = time.Date(2030, 3, 10, 8, 0, 0, 0, time.UTC)

// fault is what faultyLegacy does to the next message of its kind.
type fault struct {
	kind legacy.Kind
	// what: "slow" (never delivered, times out), "down" (never delivered,
	// 503), "lost" (delivered, the answer times out), "down-after"
	// (delivered, then a 5xx), "garbage" (delivered, the answer unreadable),
	// "negative" (answered with a NegativeReply of code, not delivered).
	what string
	code legacy.Code
}

// faultyLegacy is the legacy system as the façade's Sender sees it: the
// sandbox behind the wire codec (each message and reply is encoded and
// decoded as on HTTP), with faults injected on demand.
type faultyLegacy struct {
	sb *legacysandbox.Sandbox

	mu     sync.Mutex
	faults []fault
	sent   []legacy.Request // every message that reached the sandbox
	tried  int              // every Send
	// rewrite, when set, changes the sandbox's reply to a request (a
	// legacy system answering other than the sandbox does).
	rewrite func(req legacy.Request, reply legacy.Reply) legacy.Reply
}

func (l *faultyLegacy) inject(fs ...fault) {
	l.mu.Lock()
	l.faults = append(l.faults, fs...)
	l.mu.Unlock()
}

func (l *faultyLegacy) delivered() []legacy.Request {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]legacy.Request(nil), l.sent...)
}

func (l *faultyLegacy) attempts() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tried
}

// Send implements Sender.
func (l *faultyLegacy) Send(ctx context.Context, req legacy.Request) (legacy.Reply, error) {
	body, err := legacy.Encode(legacy.XML, req)
	if err != nil {
		return nil, err
	}
	wire, err := legacy.Decode(legacy.XML, body)
	if err != nil {
		return nil, &SendError{Kind: ErrLegacyGarbage, Err: err}
	}
	l.mu.Lock()
	l.tried++
	var ft *fault
	for i, x := range l.faults {
		if x.kind == req.Kind() {
			ft = &x
			l.faults = append(l.faults[:i:i], l.faults[i+1:]...)
			break
		}
	}
	if ft == nil || ft.what != "slow" && ft.what != "down" && ft.what != "negative" {
		l.sent = append(l.sent, wire)
	}
	l.mu.Unlock()
	if ft != nil {
		switch ft.what {
		case "slow":
			return nil, &SendError{Kind: ErrLegacySlow, Err: context.DeadlineExceeded}
		case "down":
			return nil, &SendError{Kind: ErrLegacyDown, Status: 503, Err: errors.New("503 from upstream")}
		case "negative":
			return legacy.NewNegativeReply(legacy.ReplyTo(req, time.Now()), ft.code, "injected"), nil
		}
	}
	reply := l.sb.Handle(ctx, wire)
	l.mu.Lock()
	rewrite := l.rewrite
	l.mu.Unlock()
	if rewrite != nil {
		reply = rewrite(wire, reply)
	}
	if ft != nil {
		switch ft.what {
		case "lost":
			return nil, &SendError{Kind: ErrLegacySlow, Err: context.DeadlineExceeded}
		case "down-after":
			return nil, &SendError{Kind: ErrLegacyDown, Status: 502, Err: errors.New("502 from upstream")}
		case "garbage":
			return nil, &SendError{Kind: ErrLegacyGarbage, Status: 200, Err: errors.New("<html>")}
		}
	}
	rb, err := legacy.Encode(legacy.XML, reply)
	if err != nil {
		return nil, err
	}
	back, err := legacy.DecodeReply(legacy.XML, rb)
	if err != nil {
		return nil, &SendError{Kind: ErrLegacyGarbage, Err: err}
	}
	return back, nil
}

// bookEnv is a façade, its store, the sandbox and one clock for all.
type bookEnv struct {
	t      testing.TB
	clock  *testclock.Clock
	sb     *legacysandbox.Sandbox
	legacy *faultyLegacy
	st     store.Store
	f      *Facade
	cfg    Config
	// redisPrefix is the Redis store's key prefix ("" for other engines).
	redisPrefix string
}

// storeKind selects the store engine of a test.
type storeKind string

const (
	memKind   storeKind = "memory"
	boltKind  storeKind = "bolt"
	redisKind storeKind = "redis"
)

// openStore opens a store of kind on clock (Redis: skipped without
// OSDM_TEST_REDIS; a random key prefix per test).
func openStore(t testing.TB, kind storeKind, clock *testclock.Clock) (store.Store, string) {
	t.Helper()
	switch kind {
	case boltKind:
		st, err := store.OpenBolt(filepath.Join(t.TempDir(), "osdm-legacy.db"), store.WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, ""
	case redisKind:
		prefix := randomPrefix()
		return openRedisStore(t, prefix), prefix
	}
	m := storetest.NewMemory()
	m.Now = clock.Now
	return m, ""
}

func randomPrefix() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "osdm-legacy-test/" + hex.EncodeToString(b[:]) + "/"
}

// openRedisStore opens Redis under prefix, or skips the test.
func openRedisStore(t testing.TB, prefix string) store.Store {
	t.Helper()
	addr := redistest.Shared(t)
	st, err := store.OpenRedis(context.Background(), store.RedisOptions{Address: addr, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background()
		var keys []string
		_ = st.Scan(ctx, "", func(k string, _ []byte) error { keys = append(keys, k); return nil })
		for _, k := range keys {
			_ = st.Delete(ctx, k)
		}
		st.Close()
	})
	return st
}

func newBookEnv(t testing.TB, kind storeKind, mod func(*Config)) *bookEnv {
	t.Helper()
	return newBookEnvWith(t, kind, mod, legacysandbox.Config{})
}

// newBookEnvWith is newBookEnv with the legacy sandbox of sbcfg (its
// clock the env's).
func newBookEnvWith(t testing.TB, kind storeKind, mod func(*Config), sbcfg legacysandbox.Config) *bookEnv {
	t.Helper()
	clock := testclock.New(bookStart)
	sbcfg.Now = clock.Now
	sb, err := legacysandbox.New(sbcfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &bookEnv{t: t, clock: clock, sb: sb, legacy: &faultyLegacy{sb: sb}}
	e.st, e.redisPrefix = openStore(t, kind, clock)
	e.cfg = Config{Partner: "hermes-test", RefundFee: Fee{BasisPoints: 1000}, Timeout: 5 * time.Second}
	if mod != nil {
		mod(&e.cfg)
	}
	e.f = e.facade(e.st)
	return e
}

// facade makes a façade of the env's config on st (another instance, or
// this one after a restart).
func (e *bookEnv) facade(st store.Store) *Facade {
	e.t.Helper()
	f, err := New(e.cfg, Deps{Store: st, Now: e.clock.Now, Sender: e.legacy})
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

// otherInstance is the façade that settles after a fault: on Redis
// another instance on the same store, on bolt this one after a restart
// (a new façade on the same file), in memory this one.
func (e *bookEnv) otherInstance() *Facade {
	e.t.Helper()
	if e.redisPrefix == "" && e.st == nil {
		return e.f
	}
	return e.facade(e.st)
}

// tomorrow is the day after the clock's start.
func tomorrow() string { return bookStart.AddDate(0, 0, 1).Format(time.DateOnly) }

// offerPax is a passenger of a test offer.
type offerPax struct {
	ref    string
	typ    osdm.PassengerType
	age    int
	tariff int
}

var (
	adult = offerPax{"p-adult", osdm.PassengerAdult, 30, 1}
	child = offerPax{"p-child", osdm.PassengerChild, 8, 2}
)

// offer asks the sandbox for train's availability (2nd class seats, as
// the offer search would) and seals the offer record it would make into
// its id.
func (e *bookEnv) offer(train string, pax ...offerPax) *offerRecord {
	e.t.Helper()
	if len(pax) == 0 {
		pax = []offerPax{adult}
	}
	rec := &offerRecord{
		Partner: e.cfg.Partner, Train: train, ServiceDate: tomorrow(),
		Origin: "8500010", Destination: "8503000", OriginName: "Basel SBB", DestinationName: "Zürich HB",
		TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat,
		TripID: "trip-1", LegID: "leg-1", PartID: "part-1", ProductID: "product-1",
		CreatedOn: e.clock.Now(), ExpiresAt: e.clock.Now().Add(15 * time.Minute),
	}
	for _, p := range pax {
		age := p.age
		rec.Passengers = append(rec.Passengers, offerPassenger{Ref: p.ref, Type: p.typ, Age: &age, Tariff: p.tariff})
	}
	reply := e.sb.Handle(context.Background(), &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: newID("avail-")}, Journey: rec.Journey(), Places: rec.PlaceRequest(),
	})
	ar, ok := reply.(*legacy.AvailabilityReply)
	if !ok || len(ar.Offers) != 1 {
		e.t.Fatalf("sandbox availability of train %s: %#v", train, reply)
	}
	o := ar.Offers[0]
	rec.LegacyOfferRef, rec.Price = o.OfferRef, *o.Price
	price, err := decimalPrice(o.Price.Amount, o.Price.Currency)
	if err != nil {
		e.t.Fatal(err)
	}
	rec.OSDMPrice = price
	dep, _ := time.Parse("2006-01-02 15:04", rec.ServiceDate+" "+ar.Journey.DepartureTime)
	arr, _ := time.Parse("2006-01-02 15:04", rec.ServiceDate+" "+ar.Journey.ArrivalTime)
	rec.Departure, rec.Arrival, rec.DepartureClock = dep, arr, ar.Journey.DepartureTime
	if err := e.f.offers.sealOffer(context.Background(), rec); err != nil {
		e.t.Fatal(err)
	}
	return rec
}

// bookingBody is the POST /bookings of offer for all its passengers, with
// names.
func bookingBodyOf(o *offerRecord) map[string]any {
	var refs []string
	var specs []map[string]any
	for i, p := range o.Passengers {
		refs = append(refs, p.Ref)
		specs = append(specs, map[string]any{
			"externalRef": p.Ref, "type": p.Type, "age": *p.Age,
			"detail": map[string]any{"firstName": "Ada" + strings.Repeat("x", i), "lastName": "Lovelace"},
		})
	}
	return map[string]any{
		"offers":                  []any{map[string]any{"offerId": o.ID, "passengerRefs": refs}},
		"passengerSpecifications": specs,
	}
}

// callOpt changes a test call.
type callOpt func(h http.Header)

func withKey(k string) callOpt { return func(h http.Header) { h.Set("Idempotency-Key", k) } }

// call runs one OSDM call on f, validates the answer against the spec
// (OSDM 3.9; the request too when it is one the spec takes) and returns it.
func (e *bookEnv) call(f *Facade, method, path string, body any, opts ...callOpt) *Answer {
	e.t.Helper()
	h, b := testrig.JSONRequest(e.t, body)
	for _, o := range opts {
		o(h)
	}
	a := f.serve(context.Background(), e.legacy, method, path, h, b)
	if a.Status != http.StatusNoContent {
		osdmspec.ValidateResponse(e.t, osdmspec.V39, method, path, a.Status, a.Header, a.Body)
		osdmspec.ValidateResponse(e.t, osdmspec.V310, method, path, a.Status, a.Header, a.Body)
	}
	return a
}

// decode unmarshals a 2xx answer into v.
func decodeOK[T any](t testing.TB, a *Answer, want int) T {
	t.Helper()
	var v T
	if a.Status != want {
		t.Fatalf("status %d, want %d: %s", a.Status, want, a.Body)
	}
	if err := json.Unmarshal(a.Body, &v); err != nil {
		t.Fatalf("answer body: %v: %s", err, a.Body)
	}
	return v
}

// book books offer and returns the booking.
func (e *bookEnv) book(o *offerRecord, opts ...callOpt) *osdm.Booking {
	e.t.Helper()
	a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o), opts...)
	r := decodeOK[osdm.BookingResponse](e.t, a, 200)
	return r.Booking
}

// records lists the booking records of the store.
func (e *bookEnv) records() map[string]*bookingRecord {
	e.t.Helper()
	out := map[string]*bookingRecord{}
	err := e.st.Scan(context.Background(), storeKey(e.cfg.Partner, kindBooking, ""), func(_ string, v []byte) error {
		var r bookingRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return err
		}
		out[r.ID] = &r
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

// settle runs settlement on f past every lease.
func (e *bookEnv) settle(f *Facade) SettleReport {
	e.t.Helper()
	e.clock.Advance(e.cfg.Timeout + time.Second)
	rep, err := f.Settle(context.Background())
	if err != nil {
		e.t.Fatalf("Settle: %v (%+v)", err, rep)
	}
	return rep
}

// assertAgree checks that the legacy system and the store agree: every
// booking the legacy system holds has a record that holds places, and
// every record that says it holds places is held by the legacy system.
// With settled, no intent may be left either.
func (e *bookEnv) assertAgree(settled bool) {
	e.t.Helper()
	recs := e.records()
	held := map[string]legacysandbox.BookingInfo{}
	for _, b := range e.sb.Bookings() {
		if b.Status != legacy.StatusConfirmed {
			continue
		}
		held[b.BookingRef] = b
		id, _, _ := strings.Cut(b.MessageIDs[0], ".")
		r, ok := recs[id]
		switch {
		case !ok:
			e.t.Errorf("legacy booking %s (message %s) has no record in the store", b.BookingRef, b.MessageIDs[0])
		case !r.State.holdsPlaces():
			e.t.Errorf("legacy booking %s is held, but record %s says %s", b.BookingRef, id, r.State)
		case r.Exchange.holds() && strings.Contains(b.MessageIDs[0], "."+stepExchangeBook+".") &&
			(r.Exchange.Legacy == nil || r.Exchange.Legacy.BookingRef == b.BookingRef):
			// the new places of an exchange under way (its BookingRequest
			// an intent while Legacy is nil)
		case r.Legacy != nil && r.Legacy.BookingRef != b.BookingRef:
			e.t.Errorf("record %s names legacy booking %s, the legacy system holds %s", id, r.Legacy.BookingRef, b.BookingRef)
		}
	}
	for id, r := range recs {
		switch r.State {
		case stateBooking, stateCancelling, stateUpdating, stateExchanging:
			if settled {
				e.t.Errorf("record %s still has an intent (%s %s) after settlement", id, r.State, r.Pending.MessageID)
			}
		case statePrebooked, stateFulfilled:
			if r.Legacy == nil {
				e.t.Errorf("record %s is %s without a legacy booking", id, r.State)
			} else if _, ok := held[r.Legacy.BookingRef]; !ok {
				e.t.Errorf("record %s is %s, but the legacy system holds no booking %s", id, r.State, r.Legacy.BookingRef)
			}
			if x := r.Exchange; x != nil && x.State == exchangePrebooked {
				if _, ok := held[x.Legacy.BookingRef]; !ok {
					e.t.Errorf("record %s has exchange %s PREBOOKED, but the legacy system holds no booking %s", id, x.ID, x.Legacy.BookingRef)
				}
			}
		}
	}
}
