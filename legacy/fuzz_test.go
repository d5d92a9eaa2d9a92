package legacy

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// addSeeds adds the golden and example inputs of format f.
func addSeeds(f *testing.F, format Format) {
	pattern := "*." + ext(format)
	for _, dir := range []string{"testdata", filepath.Join("testdata", "golden")} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// checkDecode is the property both fuzz targets hold: decoding never
// panics, fails only with an *Error whose NegativeReply a client can read
// back, and whatever decodes re-encodes to the same value.
func checkDecode(t *testing.T, format Format, body []byte) {
	checkWellFormed(t, format, body)
	for _, request := range []bool{true, false} {
		m, err := decode(format, body, request)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			out, err := Encode(format, e.NegativeReply(sampleTime))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeReply(format, out); err != nil {
				t.Fatalf("the NegativeReply for %q does not decode: %v\n%s", e.Error(), err, out)
			}
			continue
		}
		out, err := Encode(format, m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decode(format, out, request)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip changed the message:\n%+v\n%+v\n%s", m, again, out)
		}
	}
}

func FuzzDecodeXML(f *testing.F) {
	addSeeds(f, XML)
	for _, s := range trickyXML() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecode(t, XML, body) })
}

func FuzzDecodeJSON(f *testing.F) {
	addSeeds(f, JSON)
	f.Fuzz(func(t *testing.T, body []byte) { checkDecode(t, JSON, body) })
}

// checkWellFormed compares the parsers with the standard library's: what
// parseXML takes, encoding/xml must find well-formed; parseJSON must call
// malformed exactly what json.Valid does.
func checkWellFormed(t *testing.T, format Format, body []byte) {
	if len(body) > MaxBodyBytes {
		return
	}
	if format == XML {
		if _, _, err := parseXML(body); err == nil {
			d := xml.NewDecoder(bytes.NewReader(body))
			d.CharsetReader = charsetReaderStd
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("parseXML took what encoding/xml refuses: %v", err)
				}
			}
		}
		return
	}
	// A bound or a duplicate key may be found before a syntax error, so
	// invalid JSON need only fail somehow.
	_, _, err := parseJSON(body)
	malformed := err != nil && strings.HasPrefix(err.Rule, "is not well-formed JSON")
	if valid := json.Valid(body); valid && malformed || !valid && err == nil {
		t.Fatalf("json.Valid = %v but parseJSON error = %v", valid, err)
	}
}
