package osdmlegacy

import (
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// BenchmarkBooking measures POST /bookings: the legacy BookingRequest
// alone (through the XML codec, as on the wire), and the whole façade
// call (request reader, offer lookup, offer claim, work-list marks,
// intent, the same BookingRequest, result) on bolt and on Redis; the
// difference is the façade's own cost, mostly the store writes (bolt
// fsyncs each of its 5 writes; Redis pays 5 round trips).
func BenchmarkBooking(b *testing.B) {
	newSandbox := func(b *testing.B) *legacysandbox.Sandbox {
		sb, err := legacysandbox.New(legacysandbox.Config{MaxEntries: legacysandbox.MaxMaxEntries})
		if err != nil {
			b.Fatal(err)
		}
		return sb
	}
	b.Run("legacy-alone", func(b *testing.B) {
		sb := newSandbox(b)
		l := &faultyLegacy{sb: sb}
		day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			req := &legacy.BookingRequest{
				Header:  legacy.Header{MessageID: "bench-" + strconv.Itoa(i)},
				Journey: legacy.Journey{TrainNumber: strconv.Itoa(1 + i%99999), DepartureDate: day, From: "8500010", To: "8503000"},
				Places:  legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}},
			}
			if reply, err := l.Send(context.Background(), req); err != nil || reply.Kind() != legacy.KindBookingReply {
				b.Fatalf("%v %v", reply, err)
			}
		}
	})
	for _, kind := range []storeKind{boltKind, redisKind} {
		b.Run("facade-"+string(kind), func(b *testing.B) {
			var st store.Store
			switch kind {
			case boltKind:
				s, err := store.OpenBolt(filepath.Join(b.TempDir(), "bench.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				st = s
			case redisKind:
				addr := redistest.Shared(b)
				s, err := store.OpenRedis(context.Background(), store.RedisOptions{Address: addr, Prefix: randomPrefix()})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				st = s
			}
			sb := newSandbox(b)
			l := &faultyLegacy{sb: sb}
			f, err := New(Config{Partner: "bench"}, Deps{Store: st, Sender: l})
			if err != nil {
				b.Fatal(err)
			}
			h := http.Header{"Content-Type": {"application/json"}}
			day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				now := time.Now()
				age := 30
				o := &offerRecord{
					Partner: "bench", Train: strconv.Itoa(1 + i%99999), ServiceDate: day,
					Origin: "8500010", Destination: "8503000", TravelClass: 2, ServiceCode: 1,
					Passengers: []offerPassenger{{Ref: "p1", Type: "ADULT", Age: &age, Tariff: 1}},
					TripID:     "t", LegID: "l", PartID: "p", ProductID: "pr", CreatedOn: now, ExpiresAt: now.Add(time.Hour),
				}
				if err := f.offers.sealOffer(context.Background(), o); err != nil {
					b.Fatal(err)
				}
				body := osdmspec.Marshal(b, bookingBodyOf(o))
				b.StartTimer()
				if a := f.serve(context.Background(), l, "POST", "/bookings", h, body); a.Status != 200 {
					b.Fatalf("%d %s", a.Status, a.Body)
				}
			}
		})
	}
}
