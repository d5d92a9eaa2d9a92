package testrig

import (
	"encoding/json"
	"net/http"
	"testing"
)

// JSONRequest is the header and body of a test's OSDM request with body:
// none for nil, the bytes of a []byte or string as they are, else body as
// JSON; Content-Type is application/json when there is a body.
func JSONRequest(t testing.TB, body any) (http.Header, []byte) {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case nil:
	case []byte:
		b = v
	case string:
		b = []byte(v)
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	h := http.Header{}
	if b != nil {
		h.Set("Content-Type", "application/json")
	}
	return h, b
}
