package converter

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// BenchmarkAnswerDecodeFloor puts decodeAnswer's cost on the golden offer
// search answer (compacted) beside what the library does with the same
// bytes for less: only check them (jsontext), read them into `any`, into
// a struct that skips every member, and into a copy of the osdm types
// with every time.Time a string (what parsing the times costs), and
// into offerAnswer, the converter's view of an offer search answer.
func BenchmarkAnswerDecodeFloor(b *testing.B) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, readFile(b, "testdata/golden/availability", "offers.json")); err != nil {
		b.Fatal(err)
	}
	body := compact.Bytes()
	noTimes := withoutTimes(reflect.TypeFor[osdm.OfferCollectionResponse]())
	for _, r := range []struct {
		name string
		read func() error
	}{
		{"validate_only", func() error {
			if !jsontext.Value(body).IsValid() {
				return errors.New("invalid")
			}
			return nil
		}},
		{"skip_all_members", func() error { var v struct{}; return jsonv2.Unmarshal(body, &v) }},
		{"into_any", func() error { var v any; return jsonv2.Unmarshal(body, &v) }},
		{"osdm_times_as_strings", func() error { return jsonv2.Unmarshal(body, reflect.New(noTimes).Interface()) }},
		{"decodeAnswer", func() error { var a osdm.OfferCollectionResponse; return decodeAnswer(body, &a) }},
		{"offerAnswer", func() error { var a offerAnswer; return decodeAnswer(body, &a) }},
	} {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			stop := benchcpu.Start(b)
			for b.Loop() {
				if err := r.read(); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}

// withoutTimes is t with every time.Time (also behind pointers and in
// slices) replaced by string, tags and embedding kept.
func withoutTimes(t reflect.Type) reflect.Type {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return reflect.TypeFor[string]()
	case t.Kind() == reflect.Pointer:
		return reflect.PointerTo(withoutTimes(t.Elem()))
	case t.Kind() == reflect.Slice:
		return reflect.SliceOf(withoutTimes(t.Elem()))
	case t.Kind() != reflect.Struct:
		return t
	}
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		f := t.Field(i)
		fields[i] = reflect.StructField{Name: f.Name, Type: withoutTimes(f.Type), Tag: f.Tag, Anonymous: f.Anonymous}
	}
	return reflect.StructOf(fields)
}
