package converter

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// BenchmarkBookingExchangeStore is what the journal costs a booking
// (BookingRequest with OfferRef -> POST /bookings -> fulfilment ->
// BookingReply, each with a new messageId, as osdm_convert runs it:
// reply cache, then the journal, against an in-memory partner):
//
//   - memory: the reply cache only, as before the journal;
//   - bolt: the journal in a bbolt file on the temporary directory's file
//     system (a disk here; fsync on every commit): the intent, the
//     booking id and the outcome;
//   - bolt-shm: the same file on /dev/shm (tmpfs: fsync costs nothing),
//     what bbolt's transactions cost without the disk; skipped without
//     /dev/shm;
//   - redis: the same in Redis (OSDM_TEST_REDIS; skipped without it).
//
// BenchmarkBookingExchangeStoreParallel runs the same with 8 goroutines
// at once, as the bench front's 8 workers do.
func BenchmarkBookingExchangeStore(b *testing.B) { benchBookingExchange(b, false) }

// BenchmarkBookingExchangeStoreParallel is BenchmarkBookingExchangeStore
// with 8 bookings under way at once.
func BenchmarkBookingExchangeStoreParallel(b *testing.B) { benchBookingExchange(b, true) }

func benchBookingExchange(b *testing.B, parallel bool) {
	answers := compactAnswers(b)
	x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) { return answers[c.Step], nil })
	c := testConverter(b, Config{})
	body := readFile(b, "testdata/golden/booking_offer_ref", "request.xml")
	req, err := legacy.Decode(legacy.XML, body)
	if err != nil {
		b.Fatal(err)
	}
	origID := []byte(req.MessageID())

	openBolt := func(b *testing.B, dir string) store.Store {
		s, err := store.OpenBolt(filepath.Join(dir, "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	stores := map[string]func(b *testing.B) store.Store{
		"bolt": func(b *testing.B) store.Store { return openBolt(b, b.TempDir()) },
		"bolt-shm": func(b *testing.B) store.Store {
			dir, err := os.MkdirTemp("/dev/shm", "osdm-bench-")
			if err != nil {
				b.Skip("no /dev/shm:", err)
			}
			b.Cleanup(func() { os.RemoveAll(dir) })
			return openBolt(b, dir)
		},
		"redis": func(b *testing.B) store.Store {
			addr := redistest.Shared(b)
			s, err := store.OpenRedis(context.Background(), store.RedisOptions{Address: addr, Prefix: fmt.Sprintf("bench-%d:", time.Now().UnixNano())})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		},
	}
	for _, name := range []string{"memory", "bolt", "bolt-shm", "redis"} {
		b.Run(name, func(b *testing.B) {
			var j *Journal
			var commits func() uint64 // the store's write transactions, where it counts them
			if open := stores[name]; open != nil {
				s := open(b)
				if cs, ok := s.(interface{ Commits() uint64 }); ok {
					commits = cs.Commits
				}
				var err error
				if j, err = NewJournal(c, s, JournalConfig{ReplyTTL: time.Minute, Lease: time.Minute,
					Exclusive: name != "redis"}); err != nil {
					b.Fatal(err)
				}
			}
			rc := NewReplyCache(10000, time.Minute, nil)
			var seq atomic.Int64
			one := func() {
				i := seq.Add(1)
				id := fmt.Appendf(nil, "%s-%08d", origID[:min(len(origID), 40)], i)
				msg := bytes.Replace(body, origID, id, 1)
				r, err := legacy.Decode(legacy.XML, msg)
				if err != nil {
					b.Fatal(err)
				}
				res, _ := rc.Do(context.Background(), r.MessageID(), msg, func() *Result {
					if j == nil {
						return c.Convert(context.Background(), r, x)
					}
					res, _ := j.Do(context.Background(), r, msg, x)
					return res
				})
				if res.Outcome != OutcomeOK {
					b.Fatalf("outcome %s: %+v", res.Outcome, res.Reply)
				}
				if _, err := legacy.Encode(legacy.XML, res.Reply); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			var commits0 uint64
			if commits != nil {
				commits0 = commits()
			}
			stop := benchcpu.Start(b)
			if parallel {
				// 8 goroutines whatever GOMAXPROCS is (at least 8).
				b.SetParallelism(max(1, (8+runtime.GOMAXPROCS(0)-1)/runtime.GOMAXPROCS(0)))
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						one()
					}
				})
			} else {
				for b.Loop() {
					one()
				}
			}
			stop()
			if commits != nil {
				b.ReportMetric(float64(commits()-commits0)/float64(b.N), "commits/op")
			}
		})
	}
}
