package jsontree

import (
	"strings"
	"testing"
)

// small are bounds small enough to reach in a test body.
var small = Limits{Depth: 3, Values: 10, Items: 4, String: 5}

// TestParseRefuses holds Parse to each of its rules: the fault, where it
// is (an RFC 6901 pointer), and what it carries.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct {
		name, body string
		lim        Limits
		fault      Fault
		pointer    string
		detail     string
	}{
		{"empty", " \t\r\n", small, Empty, "", ""},
		{"truncated", `{"a":[1,`, small, Truncated, "/a/1", ""},
		{"repeated member", `{"a":{"b":1,"c":2,"b":3}}`, small, Duplicate, "/a/b", ""},
		{"repeated member once escaped", `{"a/":1,"a\/":2}`, small, Duplicate, "/a~1", ""},
		{"too deep", `{"a":[{"b":[]}]}`, small, TooDeep, "/a/0/b", ""},
		{"deep enough", `{"a":[{"b":1}]}`, small, 255, "", ""},
		{"too many values", `[1,[2,3],4,[5,6,7,8]]`, Limits{Depth: 3, Values: 8}, TooManyValues, "/3/1", ""},
		{"too many items", `{"a":[1,2,3,4,5]}`, small, TooManyItems, "/a/4", ""},
		{"items unbounded", `[1,2,3,4,5,6]`, Limits{Depth: 1, Values: 10}, 255, "", ""},
		{"long string", `{"a":["123456"]}`, small, StringTooLong, "/a/0", ""},
		{"long name", `{"a":{"123456":1}}`, small, StringTooLong, "/a", ""},
		{"long number", `{"a":123456}`, small, NumberTooLong, "/a", ""},
		{"invalid UTF-8 in a string", "{\"a\":[\"\xff\"]}", small, Syntax, "/a/0", "invalid UTF-8"},
		{"invalid UTF-8 first", "{\"a\":[[[[\"\xff\"]]]]}", Limits{Depth: 3, Values: 10, UTF8First: true}, InvalidUTF8, "", ""},
		{"invalid UTF-8 met after a bound", "{\"a\":[[[[\"\xff\"]]]]}", small, TooDeep, "/a/0/0", ""},
		{"lone surrogate", `{"a":"\ud800"}`, small, Syntax, "/a", "surrogate"},
		{"name not a string", `{{}:1}`, small, Syntax, "", "name must be a string"},
		{"trailing comma", `[1,]`, small, Syntax, "/1", "invalid character ','"},
		{"trailing value", `{"a":1} 2`, small, Trailing, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			n, err := Parse([]byte(c.body), c.lim)
			if c.fault == Fault(255) {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted: %+v", n)
			}
			if err.Fault != c.fault || err.Pointer() != c.pointer || !strings.Contains(err.Detail, c.detail) {
				t.Fatalf("got fault %d at %q (%s), want %d at %q (%s)", err.Fault, err.Pointer(), err.Detail, c.fault, c.pointer, c.detail)
			}
		})
	}
}

// TestParseReads: member order, escapes resolved, numbers as written; a
// name of Limits.Names written with an escape is still that name.
func TestParseReads(t *testing.T) {
	names := map[string]string{"origin": "origin"}
	n, err := Parse([]byte(` {"z":"a\u00e9\/\"\\","origin":[-0.5e+3,true,false,null,{}],"orig\u0069n":0} `),
		Limits{Depth: 3, Values: 9, Names: names})
	if err == nil || err.Fault != Duplicate || err.Pointer() != "/origin" {
		t.Fatalf("a name repeated once escaped: %+v %v", n, err)
	}
	n, err = Parse([]byte(` {"z":"a\u00e9\/\"\\","origin":[-0.5e+3,true,false,null,{}]} `), Limits{Depth: 3, Values: 8, Names: names})
	if err != nil {
		t.Fatal(err)
	}
	if n.Kind != Object || len(n.Members) != 2 || n.Members[0].Name != "z" || n.Members[1].Name != "origin" {
		t.Fatalf("members %+v", n.Members)
	}
	if v := n.Members[0].Value; v.Kind != String || v.Text != "aé/\"\\" {
		t.Fatalf("string %+v", v)
	}
	it := n.Members[1].Value.Items
	if len(it) != 5 || it[0].Kind != Number || it[0].Text != "-0.5e+3" || it[1].Kind != Bool || !it[1].Bool ||
		it[2].Kind != Bool || it[2].Bool || it[3].Kind != Null || it[4].Kind != Object || len(it[4].Members) != 0 {
		t.Fatalf("items %+v", it)
	}
}

// TestParseKeepsWhatWasRead: the root object's members read whole before a
// fault go with the error, so that a caller can still identify the body.
func TestParseKeepsWhatWasRead(t *testing.T) {
	for _, c := range []struct{ body, read string }{
		{`{"id":"m","a":1,"a":2}`, "id,a"},
		{`{"id":"m","x":{"y":[1,}}`, "id"},
		{`{"id":"m"} {}`, "id"},
		{`[{"id":"m"},]`, ""},
	} {
		_, err := Parse([]byte(c.body), small)
		if err == nil {
			t.Fatalf("%s: accepted", c.body)
		}
		var names []string
		for _, m := range err.Read {
			names = append(names, m.Name)
		}
		if strings.Join(names, ",") != c.read {
			t.Errorf("%s: read %v, want %s", c.body, names, c.read)
		}
	}
	_, err := Parse([]byte(`"x" 1`), small)
	if err == nil || err.Fault != Trailing || err.Value == nil || err.Value.Kind != String || err.Value.Text != "x" {
		t.Fatalf("trailing: %+v", err)
	}
}

// TestPointerEscapes: a pointer escapes '~' and '/' in names (RFC 6901).
func TestPointerEscapes(t *testing.T) {
	_, err := Parse([]byte(`{"a~/b":[{"c":1,"c":2}]}`), small)
	if err == nil || err.Pointer() != "/a~0~1b/0/c" {
		t.Fatalf("got %v", err)
	}
}

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
