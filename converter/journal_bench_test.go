package converter

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// BenchmarkBookingExchangeStore is what the journal costs a booking
// (BookingRequest with OfferRef -> POST /bookings -> fulfilment ->
// BookingReply, each with a new messageId, as osdm_convert runs it:
// reply cache, then the journal, against an in-memory partner):
//
//   - memory: the reply cache only, as before the journal;
//   - bolt: the journal in a bbolt file (fsync on every write): a lease,
//     the intent, the booking id and the outcome;
//   - redis: the same in Redis (OSDM_TEST_REDIS; skipped without it).
func BenchmarkBookingExchangeStore(b *testing.B) {
	answers := validAnswers(b)
	for _, a := range answers {
		var buf bytes.Buffer
		if len(a.Body) > 0 {
			if err := json.Compact(&buf, a.Body); err != nil {
				b.Fatal(err)
			}
			a.Body = buf.Bytes()
		}
	}
	x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) { return answers[c.Step], nil })
	c := testConverter(b, Config{})
	body := readFile(b, "testdata/golden/booking_offer_ref", "request.xml")
	req, err := legacy.Decode(legacy.XML, body)
	if err != nil {
		b.Fatal(err)
	}
	origID := []byte(req.MessageID())

	stores := map[string]func(b *testing.B) store.Store{
		"bolt": func(b *testing.B) store.Store {
			s, err := store.OpenBolt(filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		},
		"redis": func(b *testing.B) store.Store {
			addr := os.Getenv("OSDM_TEST_REDIS")
			if addr == "" {
				b.Skip("OSDM_TEST_REDIS not set: no Redis to measure")
			}
			s, err := store.OpenRedis(context.Background(), store.RedisOptions{Address: addr, Prefix: fmt.Sprintf("bench-%d:", time.Now().UnixNano())})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { s.Close() })
			return s
		},
	}
	for _, name := range []string{"memory", "bolt", "redis"} {
		b.Run(name, func(b *testing.B) {
			var j *Journal
			if open := stores[name]; open != nil {
				var err error
				if j, err = NewJournal(c, open(b), JournalConfig{ReplyTTL: time.Minute, Lease: time.Minute}); err != nil {
					b.Fatal(err)
				}
			}
			rc := NewReplyCache(10000, time.Minute, nil)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
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
		})
	}
}
