package converter

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// FuzzOfferAnswerView holds offerAnswer, what a search reads of the
// partner's answer, to the osdm types: an answer read into
// osdm.OfferCollectionResponse reads into offerAnswer too, with the same
// values (offerAnswerOf of the full read); one offerAnswer refuses, the
// osdm types refuse with the very same error (the text a NegativeReply
// carries); and what offerAnswer accepts is UTF-8 JSON without repeated
// names, whatever its members the converter does not read hold.
func FuzzOfferAnswerView(f *testing.F) {
	files, _ := filepath.Glob("testdata/golden/*/offers.json")
	if len(files) == 0 {
		f.Fatal("no golden offer answers")
	}
	for _, name := range files {
		body, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
		// The same answer with an error in a member the converter reads,
		// and in one it does not read, after it.
		f.Add(bytes.Replace(body, []byte(`"preBookableUntil": "`), []byte(`"preBookableUntil": "x`), 1))
		f.Add(bytes.Replace(body, []byte(`"createdOn": "`), []byte(`"createdOn": "x`), 1))
		f.Add(bytes.Replace(body, []byte(`"numericAvailability": 42`), []byte(`"numericAvailability": "42"`), 1))
	}
	f.Add([]byte(`{"offers":[{"createdOn":"x","offerId":7}]}`))
	f.Add([]byte(`{"offers":[{"offerId":"a","products":[{"code":1,"id":"p"}]}]}`))
	f.Add([]byte(`{"trips":[{"id":"t","legs":[{"timedLeg":{"start":{"stopPlaceName":"a","stopPlaceName":"b"}}}]}]}`))
	f.Add([]byte(`{"offers":[{"offerId":"a","summary":"\xff"}]}`))
	f.Add([]byte(`{"problems":[{"code":"urn:uic:problem:X","status":"400"}],"offers":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var full osdm.OfferCollectionResponse
		var view offerAnswer
		fullErr := decodeAnswer(body, &full)
		viewErr := decodeAnswer(body, &view)
		if viewErr != nil {
			if fullErr == nil || fullErr.Error() != viewErr.Error() {
				t.Fatalf("%q: offerAnswer error %v, osdm types error %v", body, viewErr, fullErr)
			}
			return
		}
		if !utf8.Valid(body) || !jsontext.Value(body).IsValid() {
			t.Fatalf("offerAnswer accepted %q: not UTF-8 JSON without repeated names", body)
		}
		if fullErr != nil {
			return // a member the converter does not read is not as OSDM types it
		}
		got, err1 := jsonv2.Marshal(&view)
		want, err2 := jsonv2.Marshal(offerAnswerOf(&full))
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q:\nofferAnswer read  %s\nthe osdm types read %s (%v, %v)", body, got, want, err1, err2)
		}
	})
}

// TestSearchReadsTheAnswerAsFarAsItUsesIt: a member of the partner's
// offer search answer the converter does not read (an offer's createdOn)
// no longer makes the answer unreadable, and the reply is the one the
// intact answer gives; a member it reads (preBookableUntil) still does,
// and the NegativeReply quotes the error of the whole answer's first
// member in error, by its osdm type, as before.
func TestSearchReadsTheAnswerAsFarAsItUsesIt(t *testing.T) {
	golden := readFile(t, "testdata/golden/availability", "offers.json")
	search := func(body []byte) *Result {
		x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) {
			return &Answer{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}, nil
		})
		return testConverter(t, Config{}).Convert(context.Background(), availabilityRequest("V-1"), x)
	}
	intact := search(golden)
	if intact.Outcome != OutcomeOK {
		t.Fatalf("golden answer: %s %+v", intact.Outcome, intact.Reply)
	}
	broken := bytes.Replace(golden, []byte(`"createdOn": "2026-11-21T10:00:00Z"`), []byte(`"createdOn": 20261121`), 1)
	if bytes.Equal(broken, golden) {
		t.Fatal("the golden answer has no offer createdOn to break")
	}
	unread := search(broken)
	if unread.Outcome != OutcomeOK || !reflect.DeepEqual(unread.Reply, intact.Reply) {
		t.Errorf("createdOn not a date: %s %+v, want the golden reply %+v", unread.Outcome, unread.Reply, intact.Reply)
	}
	for _, c := range []struct {
		name, body, says string
	}{
		{"a member it reads", string(bytes.Replace(golden, []byte(`"preBookableUntil": "2026-11-21T10:30:00Z"`), []byte(`"preBookableUntil": 1`), 1)),
			`JSON number into Go time.Time within "/offers/0/preBookableUntil"`},
		{"a member it reads after one it does not", `{"offers":[{"createdOn":"x","offerId":7}]}`,
			`JSON string into Go time.Time within "/offers/0/createdOn"`},
		{"an offer that is not an object", `{"offers":[{"offerId":"a","offerSummary":[]}]}`,
			`JSON array into Go osdm.OfferSummary within "/offers/0/offerSummary"`},
	} {
		res := search([]byte(c.body))
		n, ok := res.Reply.(*legacy.NegativeReply)
		if !ok || n.Code != legacy.CodePartnerUnavailable || !strings.Contains(n.Text, c.says) {
			t.Errorf("%s: %+v, want PARTNER_UNAVAILABLE saying %s", c.name, res.Reply, c.says)
		}
	}
}
