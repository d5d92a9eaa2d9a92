package converter

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

var update = flag.Bool("update", false, "rewrite the generated files of testdata/golden (calls.http, reply.xml, reply.json, result.txt)")

// A golden case is a directory of testdata/golden holding, written by hand:
//
//	request.xml, request.json   the legacy request in both forms
//	script.json                 the route's settings and the partner's answers, in call order
//	*.json answer bodies        named by script.json
//
// and, generated with -update and reviewed by eye:
//
//	calls.http                  the exact OSDM calls (method, path, headers, body)
//	reply.xml, reply.json       the exact legacy reply in each form
//	result.txt                  the reply's HTTP status and outcome label
type goldenScript struct {
	Config struct {
		OfferSearch string            `json:"offer_search"`
		Paths       map[string]string `json:"paths"`
	} `json:"config"`
	Answers []goldenAnswer `json:"answers"`
}

type goldenAnswer struct {
	Step   string `json:"step"`
	Status int    `json:"status"`
	File   string `json:"file"`
	// Spec is what the answer is validated against: "" for OSDM 3.9;
	// "3.10" for answers with alternativeSystemProposals (a v3.10 field;
	// a 4xx body is checked as a v3.10 Problem); "trip-offers" for the
	// answer to GET /trip-offers (no such operation in the spec: the body is
	// checked as a 3.9 OfferCollectionResponse); "document" for a document
	// downloaded from its downloadLink (not checked).
	Spec string `json:"spec"`
}

func TestGolden(t *testing.T) {
	scripts, err := filepath.Glob(filepath.Join("testdata", "golden", "*", "script.json"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, s := range scripts {
		dir := filepath.Dir(s)
		t.Run(filepath.Base(dir), func(t *testing.T) { runGolden(t, dir) })
	}
}

func runGolden(t *testing.T, dir string) {
	var script goldenScript
	if err := json.Unmarshal(readFile(t, dir, "script.json"), &script); err != nil {
		t.Fatalf("script.json: %v", err)
	}
	answers := make([]scriptedAnswer, len(script.Answers))
	for i, a := range script.Answers {
		answers[i] = scriptedAnswer{step: Step(a.Step), status: a.Status}
		if a.File != "" {
			answers[i].body = readFile(t, dir, a.File)
		}
	}
	cfg := Config{OfferSearch: OfferSearch(script.Config.OfferSearch)}
	if script.Config.Paths != nil {
		cfg.Paths = map[Step]string{}
		for k, v := range script.Config.Paths {
			cfg.Paths[Step(k)] = v
		}
	}
	c := testConverter(t, cfg)

	var calls string
	var recorded []*Call
	var result string
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		ext := strings.ToLower(f.String())
		req := decodeRequest(t, f, readFile(t, dir, "request."+ext))
		s := &scripted{t: t, answers: answers}
		res := c.Convert(context.Background(), req, s)
		if len(s.calls) != len(answers) {
			t.Errorf("%v: %d calls made, the script has %d answers", f, len(s.calls), len(answers))
		}
		checkStatus(t, res)
		out, err := legacy.Encode(f, res.Reply)
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		if _, err := legacy.DecodeReply(f, out); err != nil {
			t.Errorf("the %v reply is not a valid legacy reply: %v\n%s", f, err, out)
		}
		golden(t, dir, "reply."+ext, out)
		got := formatCalls(s.calls)
		r := fmt.Sprintf("HTTP %d\noutcome %s\n", res.Status, res.Outcome)
		if f == legacy.XML {
			calls, recorded, result = got, s.calls, r
			continue
		}
		if got != calls {
			t.Errorf("the JSON request made other calls than the XML one:\n%s\nXML:\n%s", got, calls)
		}
		if r != result {
			t.Errorf("the JSON request had result %q, the XML one %q", r, result)
		}
	}
	golden(t, dir, "calls.http", []byte(calls))
	golden(t, dir, "result.txt", []byte(result))

	for i, call := range recorded {
		if call.Step != StepTripOffers && call.Step != StepDocument {
			osdmspec.ValidateRequest(t, osdmspec.V39, call.Method, call.Path, call.Header, call.Body)
		}
		if i >= len(script.Answers) {
			continue
		}
		a, body := script.Answers[i], answers[i].body
		switch a.Spec {
		case "3.10":
			if a.Status >= 400 {
				osdmspec.ValidateSchema(t, osdmspec.V310, "Problem", body)
			} else {
				osdmspec.ValidateResponse(t, osdmspec.V310, call.Method, call.Path, a.Status, nil, body)
			}
		case "trip-offers":
			osdmspec.ValidateSchema(t, osdmspec.V39, "OfferCollectionResponse", body)
		case "document":
			// A document downloaded from its downloadLink: the bytes
			// themselves, no OSDM schema.
		case "":
			osdmspec.ValidateResponse(t, osdmspec.V39, call.Method, call.Path, a.Status, nil, body)
		default:
			t.Errorf("answer %d: unknown spec %q", i+1, a.Spec)
		}
	}
}

// checkStatus asserts the status rule: a NegativeReply has its
// code's status, every other reply 200.
func checkStatus(t testing.TB, res *Result) {
	t.Helper()
	if res == nil || res.Reply == nil {
		t.Fatal("Convert returned no reply")
	}
	want, outcome := http.StatusOK, OutcomeOK
	switch r := res.Reply.(type) {
	case *legacy.NegativeReply:
		want, outcome = r.Code.HTTPStatus(), strings.ToLower(string(r.Code))
	case *legacy.ReplacementProposal:
		outcome = OutcomeReplacementProposal
	}
	if res.Status != want || res.Outcome != outcome {
		t.Errorf("%s: status %d outcome %q, want %d %q", res.Reply.Kind(), res.Status, res.Outcome, want, outcome)
	}
}

func readFile(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares got with the file dir/name, or writes it with -update.
func golden(t testing.TB, dir, name string, got []byte) {
	t.Helper()
	path := filepath.Join(dir, name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s differs from the golden file (go test -run TestGolden -update rewrites it):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
