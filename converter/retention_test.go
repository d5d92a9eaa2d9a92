package converter

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestRepliesKeepNoBodyAlive: a reply lives on in the reply cache for
// minutes, so it must hold copies of the few strings it carries, not the
// legacy request or the partner's answer they were read from. Both bodies
// are padded with white space (256 KiB each); a reply holding on to either
// would weigh that much.
func TestRepliesKeepNoBodyAlive(t *testing.T) {
	const pad = 256 << 10
	answers := validAnswers(t)
	offers := bytes.TrimSpace(answers[StepOffers].Body)
	answers[StepOffers] = &Answer{Status: answers[StepOffers].Status, Header: answers[StepOffers].Header,
		Body: append([]byte("{"+strings.Repeat(" ", pad)), offers[1:]...)}
	// A fresh copy of the answer per call, as a real partner's would be.
	x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) {
		a := *answers[c.Step]
		a.Body = bytes.Clone(a.Body)
		return &a, nil
	})
	c := testConverter(t, Config{})
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		t.Run(f.String(), func(t *testing.T) {
			request := readFile(t, "testdata/golden/availability", "request."+strings.ToLower(f.String()))
			open := bytes.IndexByte(request, '>') + 1 // after the XML declaration
			if f == legacy.JSON {
				open = bytes.IndexByte(request, '{') + 1
			}
			request = append(request[:open:open], append([]byte(strings.Repeat(" ", pad)), request[open:]...)...)

			const n = 16
			results := make([]*Result, n)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			for i := range results {
				m, err := legacy.Decode(f, bytes.Clone(request))
				if err != nil {
					t.Fatal(err)
				}
				if results[i] = c.Convert(context.Background(), m, x); results[i].Outcome != OutcomeOK {
					t.Fatalf("outcome %s", results[i].Outcome)
				}
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			perReply := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
			runtime.KeepAlive(results)
			if perReply > pad/4 {
				t.Errorf("each reply keeps %d bytes alive: it holds on to a body it was read from (%d bytes of padding)", perReply, pad)
			}
		})
	}
}
