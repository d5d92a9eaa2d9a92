package osdmlegacy

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// testNow is the clock of the unit tests: searches are for 2026-12-01.
var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// sandboxSender sends through the legacy codecs (format) to a sandbox, as
// the HTTP sender of caddymodule does over reverse_proxy, and counts the
// messages and the most in flight.
type sandboxSender struct {
	sb       *legacysandbox.Sandbox
	format   legacy.Format
	sent     atomic.Int64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	mu       sync.Mutex
	kinds    []legacy.Kind
	requests []legacy.Request
}

func newSandbox(t testing.TB, cfg legacysandbox.Config) *legacysandbox.Sandbox {
	t.Helper()
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return testNow }
	}
	sb, err := legacysandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

func (s *sandboxSender) sender() Sender {
	return HTTPSender(postFunc(func(ctx context.Context, ct string, body []byte) (int, string, []byte, error) {
		n := s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		for {
			m := s.maxIn.Load()
			if n <= m || s.maxIn.CompareAndSwap(m, n) {
				break
			}
		}
		s.sent.Add(1)
		f, err := legacy.FormatOf(ct)
		if err != nil {
			return 0, "", nil, err
		}
		req, err := legacy.Decode(f, body)
		if err != nil {
			return 0, "", nil, err
		}
		s.mu.Lock()
		s.kinds = append(s.kinds, req.Kind())
		s.requests = append(s.requests, req)
		s.mu.Unlock()
		reply := s.sb.Handle(ctx, req)
		if err := ctx.Err(); err != nil {
			// An HTTP client gives up at the deadline: no reply.
			return 0, "", nil, err
		}
		out, err := legacy.Encode(f, reply)
		if err != nil {
			return 0, "", nil, err
		}
		return legacysandbox.Status(reply), f.ContentType(), out, nil
	}), s.format)
}

// search posts an offer search body to f.
func search(f *Facade, send Sender, body string) *Answer {
	return f.serve(context.Background(), send, http.MethodPost, "/offers",
		http.Header{"Content-Type": {"application/json"}}, []byte(body))
}

// validOffers decodes a 200 of POST /offers after validating it against the
// spec: 3.9, or 3.10 when it carries alternativeSystemProposals.
func validOffers(t *testing.T, a *Answer) osdm.OfferCollectionResponse {
	t.Helper()
	if a.Status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", a.Status, a.Body)
	}
	var resp osdm.OfferCollectionResponse
	if err := json.Unmarshal(a.Body, &resp); err != nil {
		t.Fatal(err)
	}
	v := osdmspec.V39
	for _, p := range resp.Problems {
		if len(p.AlternativeSystemProposals) > 0 {
			v = osdmspec.V310
		}
	}
	osdmspec.ValidateResponse(t, v, http.MethodPost, "/offers", a.Status, a.Header, a.Body)
	return resp
}

// validProblem decodes a problem answer after validating it against the
// spec's POST /offers responses.
func validProblem(t *testing.T, a *Answer) osdm.Problem {
	t.Helper()
	p := decodeProblem(t, a)
	osdmspec.ValidateResponse(t, osdmspec.V39, http.MethodPost, "/offers", a.Status, a.Header, a.Body)
	return p
}

// fakeTimetable is a Timetable of fixed runs between two stations.
type fakeTimetable struct {
	runs []TrainRun
	loc  *time.Location
}

func (ft *fakeTimetable) DirectTrains(o, d string, from time.Time, window time.Duration, after, before int) []TrainRun {
	var out, pre []TrainRun
	for _, r := range ft.runs {
		if r.Origin != o || r.Destination != d {
			continue
		}
		if r.Departure.Before(from) {
			if from.Sub(r.Departure) <= window {
				pre = append(pre, r)
			}
		} else if r.Departure.Sub(from) <= window && len(out) < after {
			out = append(out, r)
		}
	}
	if len(pre) > before {
		pre = pre[len(pre)-before:]
	}
	return append(pre, out...)
}

func (ft *fakeTimetable) DirectArriving(o, d string, by time.Time, window time.Duration, n int) []TrainRun {
	var out []TrainRun
	for _, r := range ft.runs {
		if r.Origin == o && r.Destination == d && !r.Arrival.After(by) && by.Sub(r.Arrival) <= window {
			out = append(out, r)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

func (ft *fakeTimetable) Run(train, date, o, d string) (TrainRun, bool) {
	for _, r := range ft.runs {
		if r.Train == train && r.ServiceDate == date && r.Origin == o && r.Destination == d {
			return r, true
		}
	}
	return TrainRun{}, false
}

func (ft *fakeTimetable) StationLocation(string) *time.Location { return ft.loc }
func (ft *fakeTimetable) StationName(s string) string {
	return map[string]string{"8727100": "Paris Nord", "8814001": "Bruxelles-Midi"}[s]
}

// hourlyTimetable has n trains Paris Nord -> Bruxelles-Midi on 2026-12-01,
// one an hour from 06:10, numbered 9301, 9302, ...
func hourlyTimetable(n int) *fakeTimetable {
	loc, _ := time.LoadLocation("Europe/Paris")
	ft := &fakeTimetable{loc: loc}
	for i := 0; i < n; i++ {
		dep := time.Date(2026, 12, 1, 6+i, 10, 0, 0, loc)
		ft.runs = append(ft.runs, TrainRun{
			Train: itoa4(9301 + i), ServiceDate: "2026-12-01", Origin: "8727100", Destination: "8814001",
			OriginName: "Paris Nord", DestinationName: "Bruxelles-Midi",
			Departure: dep, Arrival: dep.Add(82 * time.Minute),
		})
	}
	return ft
}

func itoa4(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// serve is ServeClient for a call of anonymousClient.
func (f *Facade) serve(ctx context.Context, send Sender, method, path string, header http.Header, body []byte) *Answer {
	return f.ServeClient(ctx, anonymousClient, send, method, path, header, body)
}
