package osdmlegacy

import (
	"strings"
	"testing"
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
	if n.kind != jObject || len(n.members) != 2 || n.members[0].name != "z" || n.members[1].name != "a" {
		t.Fatalf("members %+v", n.members)
	}
	if v := n.members[0].value; v.kind != jString || v.text != "aé/\"\\" {
		t.Fatalf("string %+v", v)
	}
	// Member names: known, unknown, escaped (unquoted like values).
	names, err := parseJSONTree([]byte(`{"origin": 1, "zz\u00e9": 2, "orig\u0069n2": 3, "typ\u0065": 4}`))
	if err != nil || len(names.members) != 4 || names.members[0].name != "origin" || names.members[1].name != "zzé" ||
		names.members[2].name != "origin2" || names.members[3].name != "type" {
		t.Fatalf("names %+v %v", names, err)
	}
	items := n.members[1].value.items
	if len(items) != 5 || items[0].kind != jNumber || items[0].text != "-0.5e+3" ||
		items[1].kind != jBool || !items[1].b || items[2].kind != jBool || items[2].b ||
		items[3].kind != jNull || items[4].kind != jObject || len(items[4].members) != 0 {
		t.Fatalf("items %+v", items)
	}
}
