package osdmlegacy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

func testKey(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, offerKeyLen)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

var idNow = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)

// searchLikeOffer is a record as a search makes it (derived ids and
// price, whole seconds).
func searchLikeOffer() *offerRecord {
	paris := time.FixedZone("", 3600)
	five := 5
	age := 40
	rec := &offerRecord{
		Partner: "p1", Train: "9203", ServiceDate: "2026-12-01", Origin: "8727100", Destination: "8814001",
		OriginName: "Paris Nord", DestinationName: "Bruxelles-Midi",
		Departure: time.Date(2026, 12, 1, 8, 10, 0, 0, paris), Arrival: time.Date(2026, 12, 1, 9, 32, 0, 0, paris),
		DepartureClock: "08:10", Carrier: "1185", TravelClass: 2, ServiceCode: 1,
		Passengers: []offerPassenger{{Ref: "p1", Type: "ADULT", Age: &age, Tariff: 1}, {Ref: "p-child", Type: "CHILD", DateOfBirth: "2018-03-04", Tariff: 2}},
		Price:      legacy.Price{Amount: "18.00", Currency: "EUR"}, AvailablePlaces: &five,
		LegacyOfferRef: "OF-9203-20261201-21-tdlk40-AbCdEfGhIjKlMnOpQrStUv", TripID: "trip-1", LegID: "trip-1-leg-1",
		CreatedOn: idNow, ExpiresAt: idNow.Add(15 * time.Minute),
	}
	rec.OSDMPrice, _ = osdmPrice(rec.Price)
	rec.PartID, rec.ProductID = offerPartIDs(rec.TripID, rec.TravelClass, rec.ServiceCode)
	return rec
}

// oddOffer has every field in the form the compact encoding does not
// expect (text where numbers are usual, explicit ids, nanoseconds, named
// zones, a negative count), so the text paths are held too.
func oddOffer() *offerRecord {
	loc, err := time.LoadLocation("Europe/Zurich")
	if err != nil {
		loc = time.FixedZone("CET", 3600)
	}
	zero := 0
	return &offerRecord{
		Partner: "p1", Train: "IC 5", ServiceDate: "1 Dec", Origin: "0850001", Destination: "x",
		OriginName: "Zürich HB", DestinationName: strings.Repeat("é", 40),
		Departure: time.Date(2026, 12, 1, 8, 10, 7, 123456789, loc), Arrival: time.Time{},
		DepartureClock: "8h10", Carrier: "", TravelClass: 1, ServiceCode: 3, ServiceLevel: "DELUXE",
		Passengers: []offerPassenger{{Ref: "", Type: "PET", Tariff: -1}, {Ref: strings.Repeat("r", 300), Type: "DOG", Age: &zero, DateOfBirth: "03/04/2018"}},
		Price:      legacy.Price{Amount: "1.5", Currency: "CHF"}, OSDMPrice: osdm.Price{Currency: "XXX", Amount: -3},
		AvailablePlaces: &zero, TripID: "t", LegID: "l", PartID: "p", ProductID: "pr",
		CreatedOn: time.Date(2026, 12, 1, 5, 59, 59, 999999999, time.FixedZone("", -(3*3600+30*60))),
		ExpiresAt: idNow.Add(time.Minute),
	}
}

func recordJSON(t *testing.T, rec *offerRecord) string {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOfferIDRoundTripEveryField(t *testing.T) {
	key := testKey(t)
	odd := oddOffer()
	scale := 3
	odd2 := oddOffer()
	odd2.OSDMPrice.Scale = &scale
	odd2.AvailablePlaces = nil
	odd2.Passengers = nil
	odd2.ServiceDate, odd2.DepartureClock = "2026-02-30", "24:00" // the forms, not real: kept as text
	for name, rec := range map[string]*offerRecord{"search-like": searchLikeOffer(), "odd": odd, "odd without lists": odd2} {
		t.Run(name, func(t *testing.T) {
			id := sealFreshOfferID(key, "p1", rec)
			if !strings.HasPrefix(id, offerIDPrefix) || !base64URLOnly(id[len(offerIDPrefix):]) {
				t.Fatalf("id %q", id)
			}
			got, err := openOfferID(key, "p1", id, idNow)
			if err != nil {
				t.Fatal(err)
			}
			want := *rec
			want.ID = id
			if a, b := recordJSON(t, got), recordJSON(t, &want); a != b {
				t.Errorf("round trip changed the record:\n got %s\nwant %s", a, b)
			}
			// Offsets survive (JSON shows them) and instants too.
			for _, pair := range [][2]time.Time{{got.CreatedOn, rec.CreatedOn}, {got.ExpiresAt, rec.ExpiresAt}, {got.Departure, rec.Departure}, {got.Arrival, rec.Arrival}} {
				_, o1 := pair[0].Zone()
				_, o2 := pair[1].Zone()
				if !pair[0].Equal(pair[1]) || o1 != o2 {
					t.Errorf("time %s, want %s", pair[0], pair[1])
				}
			}
			if again := sealFreshOfferID(key, "p1", rec); again == id {
				t.Error("two seals of one record gave one id: an offer must book once")
			}
		})
	}
	id := sealFreshOfferID(key, "p1", searchLikeOffer())
	t.Logf("a one-train search's offer id (2 passengers): %d characters", len(id))
	if len(id) > 250 {
		t.Errorf("offer id of %d characters: the encoding grew", len(id))
	}
}

func base64URLOnly(s string) bool {
	_, err := base64.RawURLEncoding.Strict().DecodeString(s)
	return err == nil
}

// rawOf and idOf convert an id to its bytes and back.
func rawOf(t *testing.T, id string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(id, offerIDPrefix))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func idOf(raw []byte) string { return offerIDPrefix + base64.RawURLEncoding.EncodeToString(raw) }

// tamperedIDs are ids made from two good ones of partner p1 under key,
// each of which must be refused at idNow.
// Their nonces and the other key are fixed, so that every process of a
// fuzzing run makes the same ids.
func tamperedIDs(t *testing.T, key []byte) map[string]string {
	t.Helper()
	seal := func(k []byte, partner string, rec *offerRecord, n byte) string {
		return sealOfferID(k, partner, rec, [offerNonceLen]byte{n, 1, 2, 3, 4, n})
	}
	a, b := searchLikeOffer(), searchLikeOffer()
	b.Train, b.TravelClass = "9205", 1
	b.PartID, b.ProductID = offerPartIDs(b.TripID, b.TravelClass, b.ServiceCode)
	idA, idB := seal(key, "p1", a, 1), seal(key, "p1", b, 2)
	rawA, rawB := rawOf(t, idA), rawOf(t, idB)
	out := map[string]string{}
	// A bit flipped anywhere: version, payload, tag.
	for i := range rawA {
		for _, bit := range []byte{1, 0x80} {
			r := bytes.Clone(rawA)
			r[i] ^= bit
			out["bit flip at byte "+itoa(i)+" mask "+itoa(int(bit))] = idOf(r)
		}
	}
	// B's payload under A's tag, and A's under B's.
	body := len(rawA) - offerTagLen
	if len(rawB) == len(rawA) {
		out["swapped payload A/B"] = idOf(append(bytes.Clone(rawB[:body]), rawA[body:]...))
		out["swapped payload B/A"] = idOf(append(bytes.Clone(rawA[:body]), rawB[body:]...))
	} else {
		t.Fatalf("ids of %d and %d bytes", len(rawA), len(rawB))
	}
	// Cut anywhere, or longer.
	for n := 0; n < len(rawA); n++ {
		out["truncated to "+itoa(n)+" bytes"] = idOf(rawA[:n])
	}
	out["truncated text"] = idA[:len(idA)-1]
	out["one byte more"] = idOf(append(bytes.Clone(rawA), 0))
	out["padding"] = idA + "=="
	// Another partner's id, the same id under another key, an expired one.
	out["other partner"] = seal(key, "p2", a, 1)
	out["other key"] = seal(bytes.Repeat([]byte{9}, offerKeyLen), "p1", a, 1)
	old := searchLikeOffer()
	old.CreatedOn, old.ExpiresAt = idNow.Add(-15*time.Minute), idNow
	out["expired"] = seal(key, "p1", old, 3)
	// A well signed id of another version.
	v2 := bytes.Clone(rawA[:body])
	v2[0] = offerIDVersion + 1
	out["version 2, signed"] = idOf(append(v2, offerTag(key, "p1", v2)...))
	// Garbage.
	for i, g := range []string{"", "of-", "of", "xx-" + idA[3:], "OF-" + idA[3:], "of-!!!!", "of-" + strings.Repeat("A", 5000),
		"of-AAAAAAAAAAAAAAAAAAAAAA", "../offer/" + idA, idA + "\n", " " + idA, strings.ToUpper(idA)} {
		out["garbage "+itoa(i)] = g
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestOfferIDRefusesEveryTampering(t *testing.T) {
	key := testKey(t)
	good := sealFreshOfferID(key, "p1", searchLikeOffer())
	if _, err := openOfferID(key, "p1", good, idNow); err != nil {
		t.Fatal(err)
	}
	cases := tamperedIDs(t, key)
	if len(cases) < 100 {
		t.Fatalf("%d cases", len(cases))
	}
	for name, id := range cases {
		if rec, err := openOfferID(key, "p1", id, idNow); !errors.Is(err, errOfferNotFound) || rec != nil {
			t.Errorf("%s (%q): %v %+v, want ErrOfferNotFound", name, shorten(id, 60), err, rec)
		}
	}
	// Expiry is ExpiresAt itself: a second before, the offer opens.
	if _, err := openOfferID(key, "p1", cases["expired"], idNow.Add(-time.Second)); err != nil {
		t.Errorf("an offer a second before its end: %v", err)
	}
}

// TestOfferIDTamperingSendsNothing: through the façade, every tampered id
// of a real offer is the OFFER_NOT_FOUND problem on its pointer and no
// legacy message leaves; the untouched offer then books.
func TestOfferIDTamperingSendsNothing(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult, child)
	raw := rawOf(t, o.ID)
	body := len(raw) - offerTagLen
	other := e.offer("9205", adult, child)
	rawOther := rawOf(t, other.ID)
	cfg2 := e.cfg
	cfg2.Partner = "another-partner"
	f2, err := New(cfg2, Deps{Store: e.st, Now: e.clock.Now, Sender: e.legacy})
	if err != nil {
		t.Fatal(err)
	}
	rec2 := *o
	if err := f2.offers.sealOffer(context.Background(), &rec2); err != nil {
		t.Fatal(err)
	}
	flip := func(i int) string { r := bytes.Clone(raw); r[i] ^= 4; return idOf(r) }
	ids := map[string]string{
		"bit flip in payload":    flip(body / 2),
		"bit flip in tag":        flip(len(raw) - 1),
		"bit flip in version":    flip(0),
		"swapped payload":        idOf(append(bytes.Clone(rawOther[:len(rawOther)-offerTagLen]), raw[body:]...)),
		"other partner":          rec2.ID,
		"truncated":              idOf(raw[:len(raw)-1]),
		"garbage":                "of-" + strings.Repeat("x", 200),
		"wrong version (signed)": idOf(append(append([]byte{offerIDVersion + 1}, raw[1:body]...), offerTag(mustKey(t, e.f), e.cfg.Partner, append([]byte{offerIDVersion + 1}, raw[1:body]...))...)),
	}
	for name, id := range ids {
		m := bookingBodyOf(o)
		m["offers"].([]any)[0].(map[string]any)["offerId"] = id
		a := e.call(e.f, "POST", "/bookings", m)
		p := decodeProblem(t, a)
		if a.Status != 404 || p.Code != osdm.CodeOfferNotFound || len(p.Pointers) == 0 || p.Pointers[0].RequestPointer != "#/offers/0/offerId" {
			t.Errorf("%s: %d %+v", name, a.Status, p)
		}
	}
	if n := e.legacy.attempts(); n != 0 {
		t.Errorf("tampered ids sent %d legacy messages", n)
	}
	// The untouched offer books; then, expired, another is refused.
	e.book(o)
	sent := e.legacy.attempts()
	later := e.offer("9207")
	e.clock.Advance(15 * time.Minute)
	if a := e.call(e.f, "POST", "/bookings", bookingBodyOf(later)); a.Status != 404 || e.legacy.attempts() != sent {
		t.Errorf("expired offer: %d, %d messages", a.Status, e.legacy.attempts()-sent)
	}
}

func mustKey(t *testing.T, f *Facade) []byte {
	t.Helper()
	if _, err := f.offers.offerSigner(context.Background()); err != nil {
		t.Fatal(err)
	}
	k, err := loadOfferKey(context.Background(), f.store, f.cfg.Partner)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// countingStore counts the writes that reach a store.
type countingStore struct {
	store.Store
	writes atomic.Int64
	reads  atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.reads.Add(1)
	return s.Store.Get(ctx, key)
}

func (s *countingStore) Put(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	s.writes.Add(1)
	return s.Store.Put(ctx, key, value, ttl)
}

func (s *countingStore) PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	s.writes.Add(1)
	return s.Store.PutIfAbsent(ctx, key, value, ttl)
}

func (s *countingStore) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	s.writes.Add(1)
	return s.Store.CompareAndSet(ctx, key, old, value, ttl)
}

func (s *countingStore) Delete(ctx context.Context, key string) error {
	s.writes.Add(1)
	return s.Store.Delete(ctx, key)
}

func (s *countingStore) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	s.writes.Add(1)
	return s.Store.CompareAndDelete(ctx, key, old)
}

// TestSearchWritesNothing: the first search of a fresh store writes its
// offer key once; every search after it, and every search of a second
// façade sharing the store, writes nothing and reads only the key; an
// offer of one façade books on the other.
func TestSearchWritesNothing(t *testing.T) {
	mem := storetest.NewMemory()
	mem.Now = func() time.Time { return testNow }
	st := &countingStore{Store: mem}
	f1 := newTestFacade(t, Config{}, Deps{Store: st, Now: func() time.Time { return testNow }})
	f2 := newTestFacade(t, Config{}, Deps{Store: st, Now: func() time.Time { return testNow }})
	ss := &sandboxSender{sb: newSandbox(t, legacysandbox.Config{}), format: legacy.XML}
	a := search(f1, ss.sender(), namedTrainSearch)
	first := validOffers(t, a)
	if w := st.writes.Load(); w != 1 {
		t.Errorf("first search: %d store writes, want 1 (the offer key)", w)
	}
	st.writes.Store(0)
	st.reads.Store(0)
	var last osdm.OfferCollectionResponse
	for i := 0; i < 5; i++ {
		for _, f := range []*Facade{f1, f2} {
			last = validOffers(t, search(f, ss.sender(), namedTrainSearch))
			if len(last.Offers) != 2 {
				t.Fatalf("%d offers", len(last.Offers))
			}
		}
	}
	if w, r := st.writes.Load(), st.reads.Load(); w != 0 || r != 10 {
		t.Errorf("10 searches on two façades: %d writes, %d reads; want 0 and 10 (the key, once a search)", w, r)
	}
	// The offers of one open on the other, the same.
	for _, o := range append(first.Offers, last.Offers...) {
		r1, err1 := f1.offers.openOffer(context.Background(), o.OfferID, testNow)
		r2, err2 := f2.offers.openOffer(context.Background(), o.OfferID, testNow)
		if err1 != nil || err2 != nil || recordJSON(t, r1) != recordJSON(t, r2) || r1.Train != "9203" {
			t.Errorf("offer %s: %v %v", shorten(o.OfferID, 20), err1, err2)
		}
	}
}

// TestOfferKeyIsShared: two façades racing on an empty store end with
// one key; a stored key of the wrong length is an error that does not
// show it, and no key is replaced.
func TestOfferKeyIsShared(t *testing.T) {
	st := storetest.NewMemory()
	keys := make(chan []byte, 8)
	for i := 0; i < 8; i++ {
		go func() {
			k, err := loadOfferKey(context.Background(), st, "p1")
			if err != nil {
				t.Error(err)
			}
			keys <- k
		}()
	}
	first := <-keys
	for i := 1; i < 8; i++ {
		if k := <-keys; !bytes.Equal(k, first) || len(k) != offerKeyLen {
			t.Fatal("façades sharing a store got different offer keys")
		}
	}
	other, _ := loadOfferKey(context.Background(), st, "p2")
	if bytes.Equal(other, first) {
		t.Error("two partners share an offer key")
	}
	secret := []byte("short-secret-value")
	_ = st.Put(context.Background(), OfferKeyKey("p3"), secret, 0)
	_, err := loadOfferKey(context.Background(), st, "p3")
	if err == nil || strings.Contains(err.Error(), string(secret)) {
		t.Errorf("a short key: %v", err)
	}
	if got, _ := st.Get(context.Background(), OfferKeyKey("p3")); !bytes.Equal(got, secret) {
		t.Error("a stored key was replaced")
	}
}

// TestOfferIDFitsALegacyOfferRef: osdm_convert carries an offer id as a
// legacy OfferRef, at most 512 characters; its searches name passengers
// p1..p9. Nine of them, long station names and a long legacy OfferRef
// still fit.
func TestOfferIDFitsALegacyOfferRef(t *testing.T) {
	key := testKey(t)
	one := searchLikeOffer()
	one.Passengers = one.Passengers[:1]
	t.Logf("one passenger: %d characters", len(sealFreshOfferID(key, "hermes", one)))
	rec := searchLikeOffer()
	rec.OriginName, rec.DestinationName = strings.Repeat("Saint-Jean", 3), strings.Repeat("Bahnhof-Nord", 3)
	rec.LegacyOfferRef = strings.Repeat("R", 64)
	rec.Passengers = nil
	for i := 1; i <= 9; i++ {
		age := 20 + i
		rec.Passengers = append(rec.Passengers, offerPassenger{Ref: "p" + strconv.Itoa(i), Type: "ADULT", Age: &age, Tariff: 1})
	}
	id := sealFreshOfferID(key, "a-partner-label", rec)
	t.Logf("nine passengers, long names: %d characters", len(id))
	if len(id) > 512 {
		t.Errorf("an id of %d characters: osdm_convert could not carry it as an OfferRef", len(id))
	}
}

// keyDownStore fails every call on the offer key while down is set.
type keyDownStore struct {
	store.Store
	down atomic.Bool
}

func (s *keyDownStore) Get(ctx context.Context, key string) ([]byte, error) {
	if s.down.Load() && strings.HasSuffix(key, "/offer-key") {
		return nil, errors.New("redis at 10.0.0.5:6379: connection refused")
	}
	return s.Store.Get(ctx, key)
}

// TestBookingKeyReadFailure: a façade that has not read the offer key
// yet, with the store failing at that moment, answers a booking 503
// (retryable, no internals) and sends nothing; the next call reads the
// key and books. An id without the form of one is refused without the
// key.
func TestBookingKeyReadFailure(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203", adult)
	st := &keyDownStore{Store: e.st}
	f2 := e.facade(st)
	st.down.Store(true)
	a := e.call(f2, "POST", "/bookings", bookingBodyOf(o))
	p := decodeProblem(t, a)
	if a.Status != 503 || p.Code != osdm.CodeServiceUnavailable || strings.Contains(string(a.Body), "10.0.0.5") || a.StoreErrors != 1 {
		t.Errorf("%d %s (store errors %d)", a.Status, a.Body, a.StoreErrors)
	}
	m := bookingBodyOf(o)
	m["offers"].([]any)[0].(map[string]any)["offerId"] = "not-an-offer-id"
	if a := e.call(f2, "POST", "/bookings", m); a.Status != 404 {
		t.Errorf("a malformed id with the key unread: %d %s", a.Status, a.Body)
	}
	if n := e.legacy.attempts(); n != 0 {
		t.Errorf("%d legacy messages sent without the key", n)
	}
	st.down.Store(false)
	if a := e.call(f2, "POST", "/bookings", bookingBodyOf(o)); a.Status != 200 {
		t.Errorf("after the store came back: %d %s", a.Status, a.Body)
	}
}

// TestOfferKeyDeletedEverywhere: two façades share a store and have
// signed offers; the key is deleted (or the store's data lost). From then
// on neither opens an offer made under the old key, a third façade
// started since makes the one new key, and the offers each of the three
// makes open on the others.
func TestOfferKeyDeletedEverywhere(t *testing.T) {
	mem := storetest.NewMemory()
	mem.Now = func() time.Time { return testNow }
	deps := Deps{Store: mem, Now: func() time.Time { return testNow }}
	f1 := newTestFacade(t, Config{}, deps)
	f2 := newTestFacade(t, Config{}, deps)
	ss := &sandboxSender{sb: newSandbox(t, legacysandbox.Config{}), format: legacy.XML}
	old1 := validOffers(t, search(f1, ss.sender(), namedTrainSearch)).Offers[0].OfferID
	old2 := validOffers(t, search(f2, ss.sender(), namedTrainSearch)).Offers[0].OfferID
	if err := mem.Delete(context.Background(), OfferKeyKey(f1.cfg.Partner)); err != nil {
		t.Fatal(err)
	}
	for _, f := range []*Facade{f1, f2} {
		for _, id := range []string{old1, old2} {
			if _, err := f.offers.openOffer(context.Background(), id, testNow); !errors.Is(err, errOfferNotFound) {
				t.Fatalf("an offer made under the deleted key opens: %v", err)
			}
		}
	}
	f3 := newTestFacade(t, Config{}, deps)
	all := []*Facade{f1, f2, f3}
	for _, maker := range []*Facade{f3, f1, f2} {
		id := validOffers(t, search(maker, ss.sender(), namedTrainSearch)).Offers[0].OfferID
		for _, f := range all {
			if _, err := f.offers.openOffer(context.Background(), id, testNow); err != nil {
				t.Fatalf("an offer made after the deletion does not open on every façade: %v", err)
			}
		}
	}
}

// journeyLikeOffer is a two-leg journey offer as a search makes it.
func journeyLikeOffer() *journeyOffer {
	first, second := searchLikeOffer(), searchLikeOffer()
	first.TripID, second.TripID = "trip-3", "trip-3"
	first.LegID, second.LegID = timedLegID("trip-3", 1), timedLegID("trip-3", 2)
	first.PartID, first.ProductID = "trip-3-res-21-1", "trip-3-product-21-1"
	second.PartID, second.ProductID = "trip-3-res-21-2", "trip-3-product-21-2"
	second.Train, second.Origin, second.Destination = "96003", "8814001", "8500010"
	second.Departure, second.Arrival = first.Arrival.Add(20*time.Minute), first.Arrival.Add(2*time.Hour)
	second.DepartureClock = second.Departure.Format("15:04")
	for _, l := range []*offerRecord{first, second} {
		l.Partner = ""
	}
	return &journeyOffer{Legs: []offerRecord{*first, *second}}
}

// A journey's offer id carries every leg, opens only as a journey's (a
// one-train booking refuses it, and a journey booking refuses a train's
// id), and refuses any change, another partner and expiry.
func TestJourneyOfferID(t *testing.T) {
	key := testKey(t)
	s := newOfferSigner(key, "p1")
	jo := journeyLikeOffer()
	id := s.sealJourney(jo, anonymousClient)
	if !isJourneyOfferID(id) {
		t.Fatalf("%s is not a journey's id", id)
	}
	got, err := s.openJourney(id, idNow, anonymousClient)
	if err != nil || len(got.Legs) != 2 {
		t.Fatalf("open: %v %+v", err, got)
	}
	for i := range jo.Legs {
		want := jo.Legs[i]
		want.ID, want.Partner = id, "p1"
		if a, b := recordJSON(t, &want), recordJSON(t, &got.Legs[i]); a != b {
			t.Errorf("leg %d:\n%s\nwant\n%s", i, b, a)
		}
	}
	if p := got.Price(); p.Amount != 2*jo.Legs[0].OSDMPrice.Amount {
		t.Errorf("price %+v", p)
	}
	if _, err := s.openJourney(id, idNow, "another-client"); !errors.Is(err, errOfferNotFound) {
		t.Errorf("a journey opened for a client that did not search it: %v", err)
	}
	if _, err := s.open(id, idNow, anonymousClient); !errors.Is(err, errOfferNotFound) {
		t.Errorf("a journey's id opened as one train's: %v", err)
	}
	single := s.seal(searchLikeOffer(), anonymousClient)
	if _, err := s.openJourney(single, idNow, anonymousClient); !errors.Is(err, errOfferNotFound) || isJourneyOfferID(single) {
		t.Errorf("a train's id opened as a journey's: %v", err)
	}
	if _, err := newOfferSigner(key, "p2").openJourney(id, idNow, anonymousClient); !errors.Is(err, errOfferNotFound) {
		t.Errorf("another partner's journey opened: %v", err)
	}
	if _, err := s.openJourney(id, jo.Legs[0].ExpiresAt, anonymousClient); !errors.Is(err, errOfferNotFound) {
		t.Errorf("an expired journey opened: %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(id[len(offerIDPrefix):])
	for i := range raw {
		for _, bit := range []byte{1, 0x80} {
			b := append([]byte(nil), raw...)
			b[i] ^= bit
			if _, err := s.openJourney(offerIDPrefix+base64.RawURLEncoding.EncodeToString(b), idNow, anonymousClient); !errors.Is(err, errOfferNotFound) {
				t.Fatalf("byte %d bit %x changed: opened (%v)", i, bit, err)
			}
		}
	}
}

// The largest journey offer (three trains, nine passengers with the
// longest refs a search takes) fits an offer id and opens.
func TestJourneyOfferIDLargest(t *testing.T) {
	s := newOfferSigner(testKey(t), "p1")
	jo := journeyLikeOffer()
	jo.Legs = append(jo.Legs, jo.Legs[1])
	jo.Legs[2].LegID, jo.Legs[2].PartID, jo.Legs[2].ProductID = "trip-3-leg-3", "trip-3-res-21-3", "trip-3-product-21-3"
	var pax []offerPassenger
	for i := range maxPassengers {
		age := 30 + i
		pax = append(pax, offerPassenger{Ref: strings.Repeat(string(rune('a'+i)), 64), Type: "ADULT", Age: &age, Tariff: 1})
	}
	for i := range jo.Legs {
		jo.Legs[i].Passengers = pax
	}
	id := s.sealJourney(jo, anonymousClient)
	got, err := s.openJourney(id, idNow, anonymousClient)
	if len(id) > maxOfferIDLen || err != nil || len(got.Legs) != 3 || len(got.Legs[2].Passengers) != maxPassengers {
		t.Fatalf("%d characters (at most %d): %v", len(id), maxOfferIDLen, err)
	}
	t.Logf("the largest journey offer id: %d characters", len(id))
}

// sealFreshOfferID returns the id of rec for partner under key (32 bytes): the
// record's fields (all but ID and Partner) encoded and signed. The caller
// sets rec.ID to it.
func sealFreshOfferID(key []byte, partner string, rec *offerRecord) string {
	return newOfferSigner(key, partner).seal(rec, anonymousClient)
}

// sealOfferID is sealFreshOfferID with a given nonce.
func sealOfferID(key []byte, partner string, rec *offerRecord, nonce [offerNonceLen]byte) string {
	return newOfferSigner(key, partner).sealWith(rec, nonce, anonymousClient)
}

// openOfferID returns the offer of id for partner under key, or
// errOfferNotFound when the id is malformed, its tag is not key's for
// partner, its version unknown, or the offer expired at now. The tag is
// compared in constant time, before the payload is decoded.
func openOfferID(key []byte, partner, id string, now time.Time) (*offerRecord, error) {
	return newOfferSigner(key, partner).open(id, now, anonymousClient)
}

// offerTag is the tag of body (version and payload) for partner under
// key.
func offerTag(key []byte, partner string, body []byte) []byte {
	return newOfferSigner(key, partner).appendTag(nil, body, anonymousClient)
}

// sealOffer sets rec.ID (and its Partner) to its self-verifying offer id
// under the façade's key, for the client of the call in ctx
// (anonymousClient outside a call).
func (o *offers) sealOffer(ctx context.Context, rec *offerRecord) error {
	s, err := o.offerSigner(ctx)
	if err != nil {
		return err
	}
	rec.Partner = o.cfg.Partner
	client, _ := callerOf(ctx)
	rec.ID = s.seal(rec, client)
	return nil
}
