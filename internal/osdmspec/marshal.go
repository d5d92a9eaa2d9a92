package osdmspec

import (
	"encoding/json"
	"testing"
)

// Marshal is the JSON of v, as a test validates or compares it; tb fails
// when v does not marshal.
func Marshal(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
