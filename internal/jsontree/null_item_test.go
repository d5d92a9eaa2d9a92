package jsontree

import "testing"

func TestNullItem(t *testing.T) {
	for body, want := range map[string]string{
		`null`:                             "",
		` null `:                           "",
		`{"offers":[null,{}]}`:             "/offers/0",
		`{"a":{"b":["x",null]}}`:           "/a/b/1",
		`{"a~b/c":[[null]]}`:               "/a~0b~1c/0/0",
		`{"a":null,"b":[{"c":null},null]}`: "/b/1",
	} {
		if got, ok := NullItem([]byte(body)); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", body, got, ok, want)
		}
	}
	// A null member is not an item (most OSDM members are nullable);
	// text that is not JSON is left to the decoder.
	for _, body := range []string{`{}`, `{"a":null}`, `[{"a":null}]`, `"null"`, `{"a":[1,"null"]}`, `[nul`, `{"a":[1,}`, ``, `{} null`, `[1] [null]`} {
		if got, ok := NullItem([]byte(body)); ok {
			t.Errorf("%s: %q", body, got)
		}
	}
}
