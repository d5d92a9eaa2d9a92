package legacy

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
)

func benchDecode(b *testing.B, f Format) {
	body, err := Encode(f, sampleAvailabilityRequest())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	stop := benchcpu.Start(b)
	for b.Loop() {
		if _, err := Decode(f, body); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

func benchEncode(b *testing.B, f Format) {
	m := sampleBookingReply()
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		if _, err := Encode(f, m); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

func BenchmarkDecodeAvailabilityRequestXML(b *testing.B)  { benchDecode(b, XML) }
func BenchmarkDecodeAvailabilityRequestJSON(b *testing.B) { benchDecode(b, JSON) }
func BenchmarkEncodeBookingReplyXML(b *testing.B)         { benchEncode(b, XML) }
func BenchmarkEncodeBookingReplyJSON(b *testing.B)        { benchEncode(b, JSON) }

// benchParse times the tree parsers alone, on the sample Decode reads.
func benchParse(b *testing.B, f Format, parse func([]byte) error) {
	body, err := Encode(f, sampleAvailabilityRequest())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	stop := benchcpu.Start(b)
	for b.Loop() {
		if err := parse(body); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

func BenchmarkParseXML(b *testing.B) {
	benchParse(b, XML, func(body []byte) error {
		if _, _, err := parseXML(body); err != nil {
			return err
		}
		return nil
	})
}

func BenchmarkParseJSON(b *testing.B) {
	benchParse(b, JSON, func(body []byte) error {
		if _, _, err := parseJSON(body); err != nil {
			return err
		}
		return nil
	})
}
