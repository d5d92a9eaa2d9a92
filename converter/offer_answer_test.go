package converter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	jsonv2 "github.com/go-json-experiment/json"
)

// The offer search answer is read by decodeAnswer (go-json-experiment/json,
// the implementation behind encoding/json/v2) into osdm.OfferCollectionResponse.
// encoding/json is the reference these tests hold it to: the same values
// for the same bodies, except where decodeAnswer is stricter on purpose.

// TestOfferAnswerReadsGoldenAnswers: every golden offer search answer reads
// as encoding/json reads it, indented or compacted.
func TestOfferAnswerReadsGoldenAnswers(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*/offers.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden offer answers: %v", err)
	}
	offers := 0
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, body); err != nil {
			t.Fatal(err)
		}
		for _, b := range [][]byte{body, compact.Bytes()} {
			got, want := readBoth(t, b)
			offers += len(got.Offers)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: decodeAnswer read\n%+v\nencoding/json read\n%+v", name, got, want)
			}
		}
	}
	if offers == 0 {
		t.Error("no offer read in any golden answer")
	}
}

// readBoth reads body with decodeAnswer and with encoding/json, and fails
// unless both accept it.
func readBoth(t *testing.T, body []byte) (got, want osdm.OfferCollectionResponse) {
	t.Helper()
	if err := json.Unmarshal(body, &want); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if err := decodeAnswer(body, &got); err != nil {
		t.Fatalf("decodeAnswer: %v", err)
	}
	return got, want
}

// TestOfferAnswerReadsAsEncodingJSON: values of every kind the answer
// holds, null where a value may be, and the answers encoding/json refuses.
func TestOfferAnswerReadsAsEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`null`,
		`{}`,
		` {"offers": null, "trips": []} `,
		`{"offers":[{"offerId":"a\u00e9\"b\\/\n","offerSummary":null,"tripCoverage":null}]}`,
		`{"offers":[{"offerId":"Zürich ¥ \ud83d\ude86"}]}`,
		`{"offers":[{"offerId":null,"preBookableUntil":null,"products":null}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"currency":"EUR","amount":-0,"scale":null}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":922337203685477580}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":9223372036854775807}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":-9223372036854775808}}}]}`,
		`{"offers":[{"reservationOfferParts":[{"numericAvailability":0,"availablePlaces":[{"numericAvailability":null}]}]}]}`,
		`{"offers":[{"preBookableUntil":"2026-12-01T07:56:00+01:00"}],"trips":[{"legs":[{"timedLeg":null},{"timedLeg":{"service":{"vehicleNumbers":["9203",null]}}}]}]}`,
		`{"unknown":[1,-2.5e+3,true,false,null,{"a":{"b":[[]]}},"x"],"offers":[]}`,
		`{"problems":[{"code":"x","title":"y"}],"offers":[]}`,
	} {
		got, want := readBoth(t, []byte(body))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ndecodeAnswer read  %+v\nencoding/json read %+v", body, got, want)
		}
	}
}

// TestOfferAnswerRefusesWhatEncodingJSONRefuses: each body is refused by
// both readers.
func TestOfferAnswerRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, body := range []string{
		``,
		` `,
		`[]`,
		`"offers"`,
		`{"offers":[]} x`,
		`{"offers":[]}{}`,
		`{"offers":[],}`,
		`{"offers":[1,]}`,
		`{"offers" []}`,
		`{offers:[]}`,
		`{'offers':[]}`,
		`{"offers":[{"offerId":"a}]}`,
		"{\"offers\":[{\"offerId\":\"tab\there\"}]}",
		`{"offers":[{"offerId":"bad \x escape"}]}`,
		`{"offers":[{"offerId":"\u12"}]}`,
		`{"offers":[{"offerId":1}]}`,
		`{"offers":[{"offerId":true}]}`,
		`{"offers":{}}`,
		`{"offers":[{"offerSummary":[]}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":1.5}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":1e2}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":9223372036854775808}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":"100"}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":01}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":-}}}]}`,
		`{"offers":[{"offerSummary":{"minimalPrice":{"amount":+1}}}]}`,
		`{"offers":[{"preBookableUntil":"yesterday"}]}`,
		`{"offers":[{"preBookableUntil":1700000000}]}`,
		`{"unknown":[1.]}`,
		`{"unknown":[.5]}`,
		`{"unknown":[1e]}`,
		`{"unknown":tru}`,
		`{"unknown":nul}`,
		`{"unknown":NaN}`,
		`{"unknown":{"a" 1}}`,
		`{"unknown":"\ud800\u"}`,
		`{"problems":[{"code":1}]}`,
		`{"problems":{}}`,
		`{"trips":[{"legs":[{"timedLeg":{"start":{"serviceDeparture":{"timetabledTime":"2026-13-01T00:00:00Z"}}}}]}]}`,
	} {
		var want osdm.OfferCollectionResponse
		if err := json.Unmarshal([]byte(body), &want); err == nil {
			t.Errorf("%q: encoding/json accepts it: not a case for this test", body)
			continue
		}
		var got osdm.OfferCollectionResponse
		if err := decodeAnswer([]byte(body), &got); err == nil {
			t.Errorf("%q: accepted", body)
		}
	}
}

// TestOfferAnswerStricterThanEncodingJSON: what encoding/json reads one
// way and a partner's own parser may read another, decodeAnswer refuses.
func TestOfferAnswerStricterThanEncodingJSON(t *testing.T) {
	for _, body := range []string{
		`{"offers":[{"offerId":"a","offerId":"b"}]}`,
		`{"offers":[{"offerId":"a","offer\u0049d":"b"}]}`,
		`{"offers":[],"offers":[{"offerId":"b"}]}`,
		`{"offers":[{"offerSummary":{"overallTravelClass":"FIRST"},"offerSummary":{"overallAccommodationType":"SEAT"}}]}`,
		`{"unknown":{"a":1,"a":2},"offers":[]}`,
		`{"offers":[{"offerId":"lone \ud800 surrogate"}]}`,
		"{\"offers\":[{\"offerId\":\"bad \xff utf-8\"}]}",
		`{"offers":[{"preBookableUntil":"2026-12-01T07:56:00,5Z"}]}`,
		`{"offers":[{"preBookableUntil":"2026-12-01T07:56:00+24:00"}]}`,
	} {
		var want osdm.OfferCollectionResponse
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Errorf("%q: encoding/json refuses it: not a case for this test", body)
		}
		var got osdm.OfferCollectionResponse
		if err := decodeAnswer([]byte(body), &got); err == nil {
			t.Errorf("%q: accepted as %+v", body, got)
		}
	}
}

// TestOfferAnswerNamesAreExact: encoding/json takes a member name in any
// case; decodeAnswer only as the spec writes it, and skips the others.
func TestOfferAnswerNamesAreExact(t *testing.T) {
	body := []byte(`{"Offers":[{"offerId":"a"}],"offers":[{"OfferId":"b","offerSummary":{"MinimalPrice":{"amount":1}}}]}`)
	var got osdm.OfferCollectionResponse
	if err := decodeAnswer(body, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Offers) != 1 || got.Offers[0].OfferID != "" || got.Offers[0].OfferSummary.MinimalPrice.Amount != 0 {
		t.Errorf("read %+v: names differing in case must be ignored", got.Offers)
	}
}

// TestOfferAnswerDepth: nesting is bounded where encoding/json bounds it.
func TestOfferAnswerDepth(t *testing.T) {
	const maxDepth = 10000
	for _, depth := range []int{maxDepth - 1, maxDepth, maxDepth + 1} {
		body := []byte(`{"unknown":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
		var got osdm.OfferCollectionResponse
		err := decodeAnswer(body, &got)
		if valid := json.Valid(body); (err == nil) != valid {
			t.Errorf("depth %d: decodeAnswer error %v, encoding/json valid %v", depth, err, valid)
		}
	}
}

// TestOfferAnswerErrorSaysWhere: the error, which goes into the reply
// text, names where in the answer it is.
func TestOfferAnswerErrorSaysWhere(t *testing.T) {
	for _, c := range []struct{ body, where string }{
		{`{"offers":[{"offerId":7}]}`, `"/offers/0/offerId"`},
		{`{"offers":[}`, "offset 11"},
		{`{"trips":[{"id":"t","id":"u"}]}`, `"/trips/0"`},
	} {
		var got osdm.OfferCollectionResponse
		err := decodeAnswer([]byte(c.body), &got)
		if err == nil || !strings.Contains(err.Error(), c.where) {
			t.Errorf("%s: error %v, want it to name %s", c.body, err, c.where)
		}
	}
}

// FuzzOfferAnswer holds decodeAnswer to its promises for any body: what
// it accepts is JSON in UTF-8 with no object repeating a name, and, where
// no name differs from one of the answer's only in case (which
// encoding/json would read as that one), it reads the same values as
// encoding/json; what it refuses and encoding/json reads is such a body.
func FuzzOfferAnswer(f *testing.F) {
	files, _ := filepath.Glob("testdata/golden/*/offers.json")
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Add([]byte(`{"offers":[{"offerId":"a\u00e9","offerSummary":{"minimalPrice":{"amount":-0,"scale":null}}}],"x":[1e5]}`))
	f.Add([]byte(`{"offers":[{"offerId":"a","offerId":"b"}],"Trips":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var want, got osdm.OfferCollectionResponse
		wantErr := json.Unmarshal(body, &want)
		gotErr := decodeAnswer(body, &got)
		plain, exact := namesAsEncodingJSONReadsThem(body)
		if gotErr == nil && (!json.Valid(body) || !utf8.Valid(body) || !plain) {
			t.Fatalf("accepted %q: not UTF-8 JSON without repeated names", body)
		}
		if !plain || !exact || !utf8.Valid(body) {
			return
		}
		if gotErr != nil && wantErr == nil && strictTime(gotErr) {
			return
		}
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: decodeAnswer error %v, encoding/json error %v", body, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ndecodeAnswer read  %+v\nencoding/json read %+v", body, got, want)
		}
	})
}

// strictTime reports whether err is decodeAnswer refusing a time that
// is not RFC 3339 as written, where encoding/json's time.Time is lax (a
// comma before the fraction, a zone offset of 24 hours or more).
func strictTime(err error) bool {
	var se *jsonv2.SemanticError
	return errors.As(err, &se) && se.GoType == reflect.TypeFor[time.Time]()
}

// namesAsEncodingJSONReadsThem reads the body with encoding/json's
// tokens: plain is false if it is not valid JSON or an object repeats a
// name; exact is false if a member name differs from one of the answer's
// only in case.
func namesAsEncodingJSONReadsThem(body []byte) (plain, exact bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		object bool
		names  map[string]bool
		key    bool // the next token is a name
	}
	var stack []*frame
	exact = true
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return true, exact
		}
		if err != nil {
			return false, exact
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if name, ok := tok.(string); ok && top != nil && top.object && top.key {
			if top.names[name] {
				return false, exact
			}
			if foldsToAnswerName(name) {
				exact = false
			}
			top.names[name] = true
			top.key = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, names: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true
		}
	}
}

// foldsToAnswerName reports whether name equals a JSON name of the
// answer types except for case.
func foldsToAnswerName(name string) bool {
	for _, n := range answerNamesOnce() {
		if n != name && strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// answerNamesOnce is answerNames, walked once: the fuzz target asks for
// every member name of every input.
var answerNamesOnce = sync.OnceValue(answerNames)

// answerNames are the JSON names of osdm.OfferCollectionResponse and the
// types it holds.
func answerNames() []string {
	var names []string
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
				names = append(names, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[osdm.OfferCollectionResponse]())
	return names
}

// BenchmarkOfferAnswer: the golden offer search answer, compacted as
// partners send it, read by decodeAnswer and by encoding/json.
func BenchmarkOfferAnswer(b *testing.B) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, readFile(b, "testdata/golden/availability", "offers.json")); err != nil {
		b.Fatal(err)
	}
	body := compact.Bytes()
	for _, r := range []struct {
		name string
		read func(*osdm.OfferCollectionResponse) error
	}{
		{"decodeAnswer", func(a *osdm.OfferCollectionResponse) error { return decodeAnswer(body, a) }},
		{"encoding_json", func(a *osdm.OfferCollectionResponse) error { return json.Unmarshal(body, a) }},
	} {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			stop := benchcpu.Start(b)
			for b.Loop() {
				var a osdm.OfferCollectionResponse
				if err := r.read(&a); err != nil || len(a.Offers) != 3 {
					b.Fatalf("%v, %d offers", err, len(a.Offers))
				}
			}
			stop()
		})
	}
}
