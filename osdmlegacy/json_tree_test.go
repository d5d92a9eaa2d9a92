package osdmlegacy

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
)

// TestParseJSONTreeRefuses holds the request tree reader to each of its
// rules: the problem names the rule and, where there is one, the value.
func TestParseJSONTreeRefuses(t *testing.T) {
	deep := strings.Repeat(`{"a":`, maxJSONDepth) + `{}` + strings.Repeat(`}`, maxJSONDepth)
	cases := []struct{ name, body, pointer, msg string }{
		{"repeated member", `{"a": {"b": 1, "c": 2, "b": 3}}`, "#/a/b", `member "b" appears twice`},
		{"repeated member once unescaped", `{"x": [{"a~/": 1, "a~\/": 2}]}`, "#/x[0]/a~0~1", "appears twice"},
		{"too deep", deep, "#" + strings.Repeat("/a", maxJSONDepth), "nested deeper than 16 levels"},
		{"too many values", `[` + strings.Repeat(`[`+strings.Repeat(`1,`, maxJSONItems-1)+`1],`, maxJSONItems-1) + `[]]`, "#[63]", "more than 4096 JSON values"},
		{"too many items", `{"a": [` + strings.Repeat(`1,`, maxJSONItems) + `1]}`, "#/a[64]", "an array of more than 64 items"},
		{"long string", `{"a": "` + strings.Repeat("x", maxJSONString+1) + `"}`, "#/a", "a string longer than 1024 bytes"},
		{"long name", `{"a": {"` + strings.Repeat("x", maxJSONString+1) + `": 1}}`, "#/a", "a string longer than 1024 bytes"},
		{"long number", `[` + strings.Repeat("1", maxJSONString+1) + `]`, "", "a number longer than 1024 bytes"},
		{"invalid UTF-8", "{\"a\": \"\xff\"}", "", "not valid UTF-8"},
		{"lone surrogate", `{"a": "\ud800"}`, "", "malformed JSON at byte"},
		{"trailing comma in array", `{"a": [1,]}`, "", "malformed JSON at byte"},
		{"trailing comma in object", `{"a": 1,}`, "", "malformed JSON at byte"},
		{"leading zero", `[01]`, "", "malformed JSON at byte"},
		{"control character", "[\"\x01\"]", "", "malformed JSON at byte"},
		{"cut short", `{"a": [1, 2`, "", "unexpected end of the body"},
		{"empty", " \n", "", "unexpected end of the body"},
		{"two values", `{} {}`, "", "more than one JSON value"},
		{"garbage after", `{} x`, "", "more than one JSON value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := parseJSONTree([]byte(tc.body))
			if err == nil {
				t.Fatalf("accepted: %+v", n)
			}
			je := err.(*jsonError)
			if je.pointer != tc.pointer || !strings.Contains(je.msg, tc.msg) {
				t.Fatalf("pointer %q msg %q, want %q and %q", je.pointer, je.msg, tc.pointer, tc.msg)
			}
		})
	}
}

// TestParseJSONTreeReads checks the tree of an accepted body: member
// order kept, escapes unquoted, numbers as written, the bounds reachable.
func TestParseJSONTreeReads(t *testing.T) {
	deep := strings.Repeat(`[`, maxJSONDepth) + strings.Repeat(`]`, maxJSONDepth)
	if _, err := parseJSONTree([]byte(deep)); err != nil {
		t.Fatalf("depth %d refused: %v", maxJSONDepth, err)
	}
	if _, err := parseJSONTree([]byte(`[` + strings.Repeat(`1,`, maxJSONItems-1) + `1]`)); err != nil {
		t.Fatalf("%d items refused: %v", maxJSONItems, err)
	}
	n, err := parseJSONTree([]byte(` {"z": "a\u00e9\/\"\\", "a": [-0.5e+3, true, false, null, {}]} `))
	if err != nil {
		t.Fatal(err)
	}
	if n.Kind != jsontree.Object || len(n.Members) != 2 || n.Members[0].Name != "z" || n.Members[1].Name != "a" {
		t.Fatalf("members %+v", n.Members)
	}
	if v := n.Members[0].Value; v.Kind != jsontree.String || v.Text != "aé/\"\\" {
		t.Fatalf("string %+v", v)
	}
	// Member names: known, unknown, escaped (unquoted like values).
	names, err := parseJSONTree([]byte(`{"origin": 1, "zz\u00e9": 2, "orig\u0069n2": 3, "typ\u0065": 4}`))
	if err != nil || len(names.Members) != 4 || names.Members[0].Name != "origin" || names.Members[1].Name != "zzé" ||
		names.Members[2].Name != "origin2" || names.Members[3].Name != "type" {
		t.Fatalf("names %+v %v", names, err)
	}
	items := n.Members[1].Value.Items
	if len(items) != 5 || items[0].Kind != jsontree.Number || items[0].Text != "-0.5e+3" ||
		items[1].Kind != jsontree.Bool || !items[1].Bool || items[2].Kind != jsontree.Bool || items[2].Bool ||
		items[3].Kind != jsontree.Null || items[4].Kind != jsontree.Object || len(items[4].Members) != 0 {
		t.Fatalf("items %+v", items)
	}
}
