package converter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// testNow is the fixed clock of every test that compares replies.
var testNow = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return testNow }

// testConverter returns a Converter for partner "sbb" with the fixed clock.
func testConverter(t testing.TB, cfg Config) *Converter {
	t.Helper()
	if cfg.Partner == "" {
		cfg.Partner = "sbb"
	}
	if cfg.Now == nil {
		cfg.Now = fixedNow
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// scripted answers the calls of a Convert in order from a list, and
// records them. A call beyond the list, or for another step than scripted,
// fails the test.
type scripted struct {
	t       testing.TB
	mu      sync.Mutex
	answers []scriptedAnswer
	calls   []*Call
	ctxs    []context.Context
	ctxErrs []error // each call's ctx.Err() when it was made
}

// scriptedAnswer is the partner's answer to one call: an HTTP answer, or
// an Caller error when err is set.
type scriptedAnswer struct {
	step   Step
	status int
	body   []byte
	header http.Header
	err    error
	// wait makes the call block until its context ends, then return the
	// context's error (a partner that never answers).
	wait bool
}

func (s *scripted) Call(ctx context.Context, call *Call) (*Answer, error) {
	s.mu.Lock()
	n := len(s.calls)
	s.calls = append(s.calls, call)
	s.ctxs = append(s.ctxs, ctx)
	s.ctxErrs = append(s.ctxErrs, ctx.Err())
	s.mu.Unlock()
	if n >= len(s.answers) {
		s.t.Errorf("unexpected call %d: %s %s", n+1, call.Method, call.Path)
		return nil, errors.New("unexpected call")
	}
	a := s.answers[n]
	if a.step != "" && a.step != call.Step {
		s.t.Errorf("call %d: step %s (%s %s), script expects %s", n+1, call.Step, call.Method, call.Path, a.step)
	}
	if a.wait {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if a.err != nil {
		return nil, a.err
	}
	h := a.header
	if h == nil {
		h = http.Header{"Content-Type": {"application/json"}}
		if a.status >= 400 {
			h = http.Header{"Content-Type": {"application/problem+json"}}
		}
	}
	return &Answer{Status: a.status, Header: h, Body: a.body}, nil
}

// steps lists the steps called.
func (s *scripted) steps() []Step {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Step, len(s.calls))
	for i, c := range s.calls {
		out[i] = c.Step
	}
	return out
}

// formatCalls writes calls in a reviewable HTTP-like form: request line,
// headers sorted, blank line, indented JSON body.
func formatCalls(calls []*Call) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("### " + strconv.Itoa(i+1) + " " + string(c.Step) + " (" + c.PathTemplate + ")\n")
		b.WriteString(c.Method + " " + c.Path + "\n")
		names := make([]string, 0, len(c.Header))
		for name := range c.Header {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			for _, v := range c.Header[name] {
				b.WriteString(name + ": " + v + "\n")
			}
		}
		if c.Body != nil {
			b.WriteString("\n")
			var out bytes.Buffer
			if err := json.Indent(&out, c.Body, "", "  "); err != nil {
				b.Write(c.Body)
			} else {
				b.Write(out.Bytes())
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// decodeRequest decodes a legacy request body or fails the test.
func decodeRequest(t testing.TB, f legacy.Format, body []byte) legacy.Request {
	t.Helper()
	req, err := legacy.Decode(f, body)
	if err != nil {
		t.Fatalf("decoding the legacy %v request: %v", f, err)
	}
	return req
}

// negativeOf returns the NegativeReply of res, failing the test when it is
// another reply.
func negativeOf(t testing.TB, res *Result) *legacy.NegativeReply {
	t.Helper()
	n, isNeg := res.Reply.(*legacy.NegativeReply)
	if !isNeg {
		t.Fatalf("reply is a %s, want a NegativeReply", res.Reply.Kind())
	}
	return n
}
