package converter

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/google/uuid"
)

func TestNewDefaults(t *testing.T) {
	c, err := New(Config{Partner: "sncf"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Partner() != "sncf" || c.offerSearch != OfferSearchOffers || c.location.String() != "Europe/Paris" {
		t.Errorf("defaults: partner %q search %q location %v", c.Partner(), c.offerSearch, c.location)
	}
	if len(c.tariffs) != 4 || c.tariffs[2] != (PassengerTariff{Type: osdm.PassengerChild, Age: 8}) {
		t.Errorf("tariffs %v", c.tariffs)
	}
	if c.reasons[3] != osdm.OverruleDisruption || len(c.reasons) != 5 {
		t.Errorf("reasons %v", c.reasons)
	}
	if c.paths[StepRefundOffers] != "/bookings/{bookingId}/refund-offers" || c.paths[StepDeleteBooking] != "/bookings/{bookingId}" {
		t.Errorf("paths %v", c.paths)
	}
}

func TestNewPathOverride(t *testing.T) {
	c, err := New(Config{Partner: "p", Paths: map[Step]string{
		StepRefundOffers:  "/bookings/{bookingId}/refundOffers",
		StepFulfillments:  "/booking/{bookingId}/fulfillments",
		StepRefundOffer:   "/v2/bookings/{bookingId}/refundOffers/{refundOfferId}",
		StepOffers:        "/v2/offers",
		StepDeleteBooking: "/bookings/{bookingId}/cancel",
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c.paths[StepRefundOffers] != "/bookings/{bookingId}/refundOffers" || c.paths[StepReadBooking] != "/bookings/{bookingId}" {
		t.Errorf("paths %v", c.paths)
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no partner", Config{}, "partner: must not be empty"},
		{"offer search", Config{Partner: "p", OfferSearch: "post"}, `offer_search: "post" is neither "offers" nor "trip-offers"`},
		{"empty tariffs", Config{Partner: "p", Tariffs: map[int]PassengerTariff{}}, "tariff: the table is empty"},
		{"path with a dot segment", Config{Partner: "p", Paths: map[Step]string{StepRefundOffers: "/bookings/{bookingId}/../refund-offers"}}, `has a dot segment`},
		{"tariff type not in the spec", Config{Partner: "p", Tariffs: map[int]PassengerTariff{1: {Type: "ADLT", Age: 30}}}, `tariff 1: passenger type "ADLT" is not one of the OSDM passenger types`},
		{"tariff type", Config{Partner: "p", Tariffs: map[int]PassengerTariff{1: {Type: "adult", Age: 30}}}, `tariff 1: passenger type "adult" is not one of the OSDM passenger types (YOUNG_CHILD`},
		{"tariff age", Config{Partner: "p", Tariffs: map[int]PassengerTariff{1: {Type: "ADULT", Age: -1}}}, "tariff 1: age -1 must be 0..150"},
		{"tariff code", Config{Partner: "p", Tariffs: map[int]PassengerTariff{10000: {Type: "ADULT"}}}, "tariff 10000: code must be 0..9999"},
		{"reason code", Config{Partner: "p", Reasons: map[int]osdm.OverruleCode{10000: "STRIKE"}}, "reason 10000: code must be 0..9999"},
		{"reason", Config{Partner: "p", Reasons: map[int]osdm.OverruleCode{1: "strike"}}, `reason 1: overrule code "strike" must be an OSDM overrule code such as TECHNICAL_FAILURE`},
		{"unknown step", Config{Partner: "p", Paths: map[Step]string{"refunds": "/x"}}, "path refunds: unknown step (known: booking, bookings, delete_booking, delete_exchange_operation, delete_refund_offer, exchange_offers, exchange_operation, fulfillment, fulfillments, offers, passenger, read_exchange_operation, refund_offer, refund_offers, trip_offers)"},
		{"relative", Config{Partner: "p", Paths: map[Step]string{StepOffers: "offers"}}, `path offers: template "offers" must start with /`},
		{"query", Config{Partner: "p", Paths: map[Step]string{StepOffers: "/offers?x=1"}}, `path offers: template "/offers?x=1" must be a plain path`},
		{"missing id", Config{Partner: "p", Paths: map[Step]string{StepFulfillments: "/bookings/fulfillments"}}, `path fulfillments: template "/bookings/fulfillments" must hold {bookingId} exactly once`},
		{"twice", Config{Partner: "p", Paths: map[Step]string{StepReadBooking: "/b/{bookingId}/{bookingId}"}}, "must hold {bookingId} exactly once"},
		{"unknown placeholder", Config{Partner: "p", Paths: map[Step]string{StepRefundOffers: "/bookings/{id}/refund-offers"}}, "has {id}; it may only hold {bookingId}"},
		{"placeholder on a fixed path", Config{Partner: "p", Paths: map[Step]string{StepBooking: "/bookings/{bookingId}"}}, "it may only hold no placeholder"},
		{"refund offer id", Config{Partner: "p", Paths: map[Step]string{StepRefundOffer: "/bookings/{bookingId}/refund-offers"}}, "must hold {refundOfferId} exactly once"},
		{"unclosed", Config{Partner: "p", Paths: map[Step]string{StepReadBooking: "/bookings/{bookingId"}}, "has an unclosed {"},
		{"stray brace", Config{Partner: "p", Paths: map[Step]string{StepReadBooking: "/bookings/}{bookingId}"}}, "has a } without {"},
		{"relative prefix", Config{Partner: "p", PathPrefix: "osdm"}, `path_prefix "osdm" must start with /`},
		{"root prefix", Config{Partner: "p", PathPrefix: "/"}, `path_prefix "/" must start with / and name a folder`},
		{"prefix with a trailing slash", Config{Partner: "p", PathPrefix: "/osdm/"}, `path_prefix "/osdm/" must not end with /`},
		{"prefix with a dot segment", Config{Partner: "p", PathPrefix: "/osdm/../admin"}, `has an empty or dot segment`},
		{"prefix with an empty segment", Config{Partner: "p", PathPrefix: "/osdm//v3"}, `has an empty or dot segment`},
		{"prefix with a placeholder", Config{Partner: "p", PathPrefix: "/{bookingId}"}, `must be a plain path`},
		{"prefix with a query", Config{Partner: "p", PathPrefix: "/osdm?x=1"}, `must be a plain path`},
		{"negative max document", Config{Partner: "p", MaxDocument: -1}, "max_document: -1 must be 1..33554432 bytes"},
		{"max document too large", Config{Partner: "p", MaxDocument: MaxMaxDocument + 1}, "max_document: 33554433 must be 1..33554432 bytes"},
		{"fulfilment path without its id", Config{Partner: "p", Paths: map[Step]string{StepReadFulfillment: "/fulfillments"}}, "must hold {fulfillmentId} exactly once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

var uuidV5 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestIdempotencyKey(t *testing.T) {
	k := IdempotencyKey("sbb", "B-1", StepBooking)
	if !uuidV5.MatchString(k) {
		t.Fatalf("%q is not a version 5 UUID", k)
	}
	// Pinned: the key must not change between releases, or a resend
	// across an upgrade would book twice.
	if want := "f1b3ef61-f755-56ff-b564-989677467826"; IdempotencyKey("sbb", "B-20261201-0002", StepBooking) != want {
		t.Errorf("key changed: %s, want %s", IdempotencyKey("sbb", "B-20261201-0002", StepBooking), want)
	}
	if IdempotencyKey("sbb", "B-1", StepBooking) != k {
		t.Error("not stable")
	}
	for _, other := range []string{
		IdempotencyKey("sncf", "B-1", StepBooking),
		IdempotencyKey("sbb", "B-2", StepBooking),
		IdempotencyKey("sbb", "B-1", StepFulfillments),
		IdempotencyKey("sb", "b\x00B-1", StepBooking),
	} {
		if other == k {
			t.Errorf("two different calls share the key %s", k)
		}
	}
}

func TestDepartureTimeZones(t *testing.T) {
	c := testConverter(t, Config{Location: time.FixedZone("X", 3*3600)})
	for _, tc := range []struct{ from, date, clock, want string }{
		{"8727100", "2026-12-01", "07:56", "2026-12-01T07:56:00+01:00"}, // FR, winter
		{"8727100", "2026-07-01", "07:56", "2026-07-01T07:56:00+02:00"}, // FR, summer
		{"7015400", "2026-07-01", "09:30", "2026-07-01T09:30:00+01:00"}, // GB, BST
		{"7015400", "2026-12-01", "09:30", "2026-12-01T09:30:00Z"},      // GB, GMT
		{"1000001", "2026-12-01", "09:30", "2026-12-01T09:30:00+02:00"}, // FI
		{"9400001", "2026-12-01", "09:30", "2026-12-01T09:30:00Z"},      // PT
		{"8500010", "2026-12-01", "", "2026-12-01T00:00:00+01:00"},      // no time: start of day
		{"9900001", "2026-12-01", "10:00", "2026-12-01T10:00:00+03:00"}, // unknown country: Config.Location
		{"8727100", "2026-03-29", "02:30", "2026-03-29T03:30:00+02:00"}, // in the spring-forward gap
	} {
		j := testJourney()
		j.From, j.DepartureDate, j.DepartureTime = tc.from, tc.date, tc.clock
		got, err := c.departureTime(j)
		if err != nil {
			t.Fatal(err)
		}
		if s := got.Format(time.RFC3339); s != tc.want {
			t.Errorf("%s %s %s: %s, want %s", tc.from, tc.date, tc.clock, s, tc.want)
		}
	}
}

func TestLocalClock(t *testing.T) {
	c := testConverter(t, Config{})
	at := time.Date(2026, 7, 1, 6, 56, 0, 0, time.UTC)
	if got := c.localClock(at, "8727100"); got != "08:56" {
		t.Errorf("Paris %s", got)
	}
	if got := c.localClock(at, "7015400"); got != "07:56" {
		t.Errorf("London %s", got)
	}
	if got := c.localClock(time.Time{}, "8727100"); got != "" {
		t.Errorf("zero time %q", got)
	}
}

func TestPlain(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Booking not found", 100, "Booking not found"},
		{"line\nbreak\r\n\tand  tabs ", 100, "line break and tabs"},
		{"  lead", 100, "lead"},
		{"Zürich HB", 100, "Zürich HB"},
		{"bad \xff utf8\x00", 100, "bad utf8"},
		{"abcdefghij", 10, "abcdefghij"},
		{"abcdefghijk", 10, "abcdefg..."},
		{"ab cd efgh ij", 10, "ab cd e..."},
		{"äöüäöüäöüäöü", 10, "äöüäöüä..."},
		{"", 10, ""},
	} {
		if got := plain(tc.in, tc.max); got != tc.want {
			t.Errorf("plain(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

// TestIdempotencyKeyIsUUIDv5 checks the allocation-free computation
// against google/uuid's.
func TestIdempotencyKeyIsUUIDv5(t *testing.T) {
	long := strings.Repeat("m", 300) // longer than the stack buffer
	for _, tc := range [][3]string{{"sbb", "B-1", "bookings"}, {"", "", ""}, {"sncf", long, "refund_offer"}} {
		want := uuid.NewSHA1(idempotencyNamespace, []byte(tc[0]+"\x00"+tc[1]+"\x00"+tc[2])).String()
		if got := IdempotencyKey(tc[0], tc[1], Step(tc[2])); got != want {
			t.Errorf("%q: %s, want %s", tc, got, want)
		}
	}
}
