package converter

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

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
