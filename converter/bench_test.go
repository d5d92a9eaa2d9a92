package converter

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// benchmarkExchange measures one whole legacy exchange as osdm_convert runs
// it, minus HTTP: decode the legacy request, Convert it against an
// in-memory partner answering the golden answers, encode the reply. The
// answers are compacted, as partners send them: the golden files are
// indented for review, and the whitespace alone would cost a third of
// the JSON decoding.
func benchmarkExchange(b *testing.B, dir string) {
	answers := compactAnswers(b)
	x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) { return answers[c.Step], nil })
	c := testConverter(b, Config{})
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		body := readFile(b, "testdata/golden/"+dir, "request."+strings.ToLower(f.String()))
		b.Run(f.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			stop := benchcpu.Start(b)
			for b.Loop() {
				req, err := legacy.Decode(f, body)
				if err != nil {
					b.Fatal(err)
				}
				res := c.Convert(context.Background(), req, x)
				if res.Outcome != OutcomeOK {
					b.Fatalf("outcome %s", res.Outcome)
				}
				if _, err := legacy.Encode(f, res.Reply); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// BenchmarkAvailabilityExchange: AvailabilityRequest -> POST /offers (three
// offers, one trip) -> AvailabilityReply.
func BenchmarkAvailabilityExchange(b *testing.B) { benchmarkExchange(b, "availability") }

// BenchmarkBookingExchange: BookingRequest with OfferRef -> POST /bookings
// -> POST .../fulfillments -> BookingReply.
func BenchmarkBookingExchange(b *testing.B) { benchmarkExchange(b, "booking_offer_ref") }

// compactAnswers is validAnswers with the bodies compacted, as partners
// send them.
func compactAnswers(b *testing.B) map[Step]*Answer {
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
	return answers
}
