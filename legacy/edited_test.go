package legacy

import (
	"errors"
	"strings"
	"testing"
)

// refusedEdit encodes base in f, applies the edit (old, new pairs, each
// of which must change something), decodes the result with decode
// (decodeRequest or decodeReply) and returns the *Error it was refused
// with, and the body, for the test's own checks; the test fails if the
// edited message is not refused with an *Error.
func refusedEdit(t *testing.T, f Format, base Message, edit []string, decode func(Format, []byte) (any, error)) (*Error, string) {
	t.Helper()
	orig, err := Encode(f, base)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.NewReplacer(edit...).Replace(string(orig))
	if body == string(orig) {
		t.Fatalf("the edit %q changed nothing in\n%s", edit, orig)
	}
	m, err := decode(f, []byte(body))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("decoding = %+v, %v; want an *Error\n%s", m, err, body)
	}
	return e, body
}

// decodeRequest and decodeReply are Decode and DecodeReply for refusedEdit.
func decodeRequest(f Format, b []byte) (any, error) { return Decode(f, b) }
func decodeReply(f Format, b []byte) (any, error)   { return DecodeReply(f, b) }
