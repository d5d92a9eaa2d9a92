package harness

import (
	"reflect"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TryUnmarshal unmarshals the Caddyfile text src, a directive and its
// block (its file named Testfile in errors), into m and returns the
// error, for blocks that must be refused.
func TryUnmarshal(m caddyfile.Unmarshaler, src string) error {
	return m.UnmarshalCaddyfile(caddyfile.NewTestDispenser(src))
}

// Unmarshal is TryUnmarshal that fails the test on an error.
func Unmarshal(t testing.TB, m caddyfile.Unmarshaler, src string) {
	t.Helper()
	if err := TryUnmarshal(m, src); err != nil {
		t.Fatal(err)
	}
}

// CheckUnmarshal unmarshals src into got (a pointer to a handler) and
// wants it deeply equal to want (a pointer to the handler expected).
func CheckUnmarshal(t testing.TB, src string, got caddyfile.Unmarshaler, want any) {
	t.Helper()
	Unmarshal(t, got, src)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

// Block is the directive with block inside its braces.
func Block(directive, block string) string {
	return directive + " {\n" + block + "\n}"
}

// Refusal is a block of subdirectives, then a text its error must hold.
type Refusal [2]string

// CheckRefusals unmarshals each block inside a directive's braces into a
// new handler and wants the error each names; an argument on the
// directive line is refused as well.
func CheckRefusals(t testing.TB, directive string, handler func() caddyfile.Unmarshaler, refusals []Refusal) {
	t.Helper()
	for _, r := range refusals {
		block, want := r[0], r[1]
		err := TryUnmarshal(handler(), Block(directive, block))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", block, err, want)
		}
	}
	if err := TryUnmarshal(handler(), directive+" extra"); err == nil {
		t.Error("an argument on the directive line was accepted")
	}
}

// CheckAdaptRefused wants the Caddyfile cf, named Caddyfile, to fail to
// adapt with an error naming line (Caddyfile:<n>) and holding what.
func CheckAdaptRefused(t testing.TB, cf, line, what string) {
	t.Helper()
	err := TryAdapt("Caddyfile", cf)
	if err == nil || !strings.Contains(err.Error(), line) || !strings.Contains(err.Error(), what) {
		t.Errorf("err = %v, want one naming %s and %s", err, line, what)
	}
}

// CheckAdaptedJSON wants the JSON adapted from cf to hold want.
func CheckAdaptedJSON(t testing.TB, cf, want string) {
	t.Helper()
	out := Adapt(t, "Caddyfile", cf)
	if !strings.Contains(string(out), want) {
		t.Fatalf("adapted JSON\n%s\ndoes not contain\n%s", out, want)
	}
}

// WalkHandlers calls f for every JSON object with a "handler" key.
func WalkHandlers(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["handler"]; ok {
			f(v)
		}
		for _, child := range v {
			WalkHandlers(child, f)
		}
	case []any:
		for _, child := range v {
			WalkHandlers(child, f)
		}
	}
}
