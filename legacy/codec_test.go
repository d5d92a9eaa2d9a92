package legacy

import (
	"bytes"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

func ext(f Format) string { return strings.ToLower(f.String()) }

// TestGolden fixes the exact wire form of every message kind in both forms.
func TestGolden(t *testing.T) {
	for _, s := range samples() {
		m := s.m
		for _, f := range []Format{XML, JSON} {
			name := filepath.Join("testdata", "golden", s.name+"."+ext(f))
			t.Run(s.name+"/"+f.String(), func(t *testing.T) {
				got, err := Encode(f, m)
				if err != nil {
					t.Fatal(err)
				}
				if *update {
					if err := os.WriteFile(name, got, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(name)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("Encode differs from %s:\n got: %s\nwant: %s", name, got, want)
				}
				back, err := decodeAny(f, want)
				if err != nil {
					t.Fatalf("golden %s does not decode: %v", name, err)
				}
				if !reflect.DeepEqual(back, m) {
					t.Errorf("golden %s decodes to\n%+v\nwant\n%+v", name, back, m)
				}
			})
		}
	}
}

// TestRoundTrip: every kind survives model -> XML -> model -> JSON -> model.
func TestRoundTrip(t *testing.T) {
	for _, s := range samples() {
		m := s.m
		t.Run(s.name, func(t *testing.T) {
			x, err := Encode(XML, m)
			if err != nil {
				t.Fatal(err)
			}
			fromXML, err := decodeAny(XML, x)
			if err != nil {
				t.Fatalf("XML: %v\n%s", err, x)
			}
			j, err := Encode(JSON, fromXML)
			if err != nil {
				t.Fatal(err)
			}
			fromJSON, err := decodeAny(JSON, j)
			if err != nil {
				t.Fatalf("JSON: %v\n%s", err, j)
			}
			if !reflect.DeepEqual(fromXML, m) || !reflect.DeepEqual(fromJSON, m) {
				t.Errorf("round trip changed the message:\n  in: %+v\n xml: %+v\njson: %+v", m, fromXML, fromJSON)
			}
		})
	}
}

// TestSpecExample decodes the example of legacy-protocol.md and its JSON
// form to the same request.
func TestSpecExample(t *testing.T) {
	want := &AvailabilityRequest{
		Header: Header{MessageID: "A-20261201-0001", SentAt: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC), Sender: 87},
		Journey: Journey{TrainNumber: "9203", DepartureDate: "2026-12-01", DepartureTime: "07:56",
			From: "8727100", To: "8500010"},
		Places: PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []Tariff{{1, 2}, {2, 1}}},
	}
	for _, c := range []struct {
		file   string
		format Format
	}{{"availability_request.xml", XML}, {"availability_request.json", JSON}} {
		body, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(c.format, body)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s decodes to\n%+v\nwant\n%+v", c.file, got, want)
		}
		if got.Kind() != KindAvailabilityRequest || got.MessageID() != "A-20261201-0001" {
			t.Errorf("%s: Kind %q MessageID %q", c.file, got.Kind(), got.MessageID())
		}
	}
}

// TestNamespace: a request in the namespace is accepted, and a reply built
// with ReplyTo is written in it too; a request without gets a reply without.
func TestNamespace(t *testing.T) {
	body := []byte(`<BookingRequest xmlns="urn:uic:90918-1:legacy:1" messageId="m1" informationOnly="true">
	<Journey><TrainNumber>1</TrainNumber><DepartureDate>2026-12-01</DepartureDate><From>urn:uic:stn:8500010</From><To>8727100</To></Journey>
	<PlaceRequest><TravelClass>1</TravelClass><ServiceCode>3</ServiceCode><Tariff code="0" count="9"/></PlaceRequest>
</BookingRequest>`)
	req, err := Decode(XML, body)
	if err != nil {
		t.Fatal(err)
	}
	b := req.(*BookingRequest)
	if !b.Header.Namespaced || !b.InformationOnly || b.Journey.From != "8500010" {
		t.Fatalf("decoded %+v", b)
	}
	out, err := Encode(XML, NewNegativeReply(ReplyTo(req, sampleTime), CodeNoAvailability, "none"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`<NegativeReply xmlns="urn:uic:90918-1:legacy:1" correlationId="m1"`)) {
		t.Errorf("reply not in the request's namespace:\n%s", out)
	}
	b.Header.Namespaced = false
	out, _ = Encode(XML, NewNegativeReply(ReplyTo(b, sampleTime), CodeNoAvailability, "none"))
	if bytes.Contains(out, []byte("xmlns")) {
		t.Errorf("reply to a request without namespace has one:\n%s", out)
	}
	// A prefixed form of the same namespace is the same thing.
	prefixed := []byte(`<l:CancelRequest xmlns:l="urn:uic:90918-1:legacy:1" messageId="m2"><l:BookingRef>b1</l:BookingRef></l:CancelRequest>`)
	if m, err := Decode(XML, prefixed); err != nil || !m.RequestHeader().Namespaced {
		t.Errorf("prefixed namespace: %+v %v", m, err)
	}
}

// TestEscaping: text that needs escaping survives both forms.
func TestEscaping(t *testing.T) {
	m := sampleNegativeReply()
	m.Text = `a & b <c> "d" 'e' é ✓ </Text>`
	m.PartnerProblem = `x\y "z"` + "\u2028" + "end"
	for _, f := range []Format{XML, JSON} {
		out, err := Encode(f, m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeReply(f, out)
		if err != nil {
			t.Fatalf("%v: %v\n%s", f, err, out)
		}
		if !reflect.DeepEqual(back, Reply(m)) {
			t.Errorf("%v: got %+v", f, back)
		}
	}
	// Characters XML cannot carry become U+FFFD rather than a broken document.
	m.Text = "bad\x00char\xff"
	out, _ := Encode(XML, m)
	if back, err := DecodeReply(XML, out); err != nil || back.(*NegativeReply).Text != "bad\uFFFDchar\uFFFD" {
		t.Errorf("got %+v %v", back, err)
	}
}

func TestEncodeRefusesNonMessages(t *testing.T) {
	var nilReply *BookingReply
	for _, m := range []Message{nil, nilReply} {
		if _, err := Encode(XML, m); err == nil {
			t.Errorf("Encode(%T) succeeded", m)
		}
	}
	if _, err := Encode(Format(9), sampleBookingReply()); err == nil {
		t.Error("Encode in an unknown format succeeded")
	}
}

func TestCancelReasonCodeAbsentOrZero(t *testing.T) {
	for _, f := range []Format{XML, JSON} {
		for _, rc := range []*int{nil, intPtr(0), intPtr(5)} {
			m := sampleCancelRequest()
			m.ReasonCode = rc
			out, _ := Encode(f, m)
			back, err := Decode(f, out)
			if err != nil {
				t.Fatal(err)
			}
			got := back.(*CancelRequest).ReasonCode
			if (got == nil) != (rc == nil) || got != nil && *got != *rc {
				t.Errorf("%v: reason code %v came back as %v", f, rc, got)
			}
		}
	}
}

func TestFormatOf(t *testing.T) {
	for _, c := range []struct {
		ct   string
		want Format
	}{
		{"application/xml", XML},
		{"text/xml; charset=UTF-8", XML},
		{"Application/JSON", JSON},
		{"application/json; charset=utf-8", JSON},
		{"application/json;charset=us-ascii", JSON},
		{"text/plain", 0},
		{"", 0},
		{"application/json; charset=iso-8859-1", 0},
		{"application/soap+xml", 0},
		{"application/xml; =broken", 0},
	} {
		got, err := FormatOf(c.ct)
		if got != c.want || (c.want == 0) != (err != nil) {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", c.ct, got, err, c.want)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrMediaType) || e.HTTPStatus() != http.StatusUnsupportedMediaType {
				t.Errorf("FormatOf(%q) error %v is not a 415 *Error", c.ct, err)
			}
		}
	}
}
