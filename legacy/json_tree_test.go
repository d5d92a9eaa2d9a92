package legacy

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
)

// TestParseJSONRefuses pins the error of each kind of bad JSON: the
// field it names, the rule, and the messageId read before it.
func TestParseJSONRefuses(t *testing.T) {
	for _, c := range []struct{ name, body, field, rule, id string }{
		{"repeated key", `{"messageId":"m","a":1,"a":2}`, "a", ruleOnce, "m"},
		{"repeated key, once escaped", `{"messageId":"m","a":1,"\u0061":2}`, "a", ruleOnce, "m"},
		{"repeated key below", `{"x":{"a":[1,{"b":1,"b":2}]}}`, "x.a[1].b", ruleOnce, ""},
		{"repeated messageId", `{"messageId":"m","messageId":"n"}`, "messageId", ruleOnce, "m"},
		{"invalid UTF-8", "{\"messageId\":\"m\",\"a\":\"\xff\"}", "a", "is not well-formed JSON at offset 22: invalid UTF-8", "m"},
		{"lone surrogate", `{"a":"\ud800"}`, "a", "is not well-formed JSON at offset 6: invalid surrogate pair `\\ud800\"}` in string", ""},
		{"trailing comma", `{"a":[1,2,]}`, "a[2]", "is not well-formed JSON at offset 9: invalid character ',' at start of value", ""},
		{"missing colon", `{"a" 1}`, "a", "is not well-formed JSON at offset 5: invalid character '1' after object name (expecting ':')", ""},
		{"leading zero", `{"a":01}`, "", "is not well-formed JSON at offset 6: invalid character '1' after object value (expecting ',' or '}')", ""},
		{"truncated", `{"messageId":"m","a":[1,2`, "a[2]", "is not well-formed JSON: unexpected end of input", "m"},
		{"text after", `{"messageId":"m"} x`, "", "only one JSON object is allowed", "m"},
		{"second object", `{}{}`, "", "only one JSON object is allowed", ""},
		{"not an object", `"x"`, "", "must be a JSON object, not a string", ""},
		{"empty", " \r\n\t", "", "the message is empty: a JSON object is required", ""},
		{"too deep", `{"a":` + strings.Repeat("[", 8) + strings.Repeat("]", 8) + `}`, "a[0][0][0][0][0][0][0]", "nests values deeper than 8", ""},
		{"too many values", `{"a":[` + strings.TrimSuffix(strings.Repeat("1,", 1024), ",") + `]}`, "a[1022]", "has more than 1024 values", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, id, err := parseJSON([]byte(c.body))
			if err == nil {
				t.Fatal("parsed")
			}
			if err.Code != CodeInvalidMessage || err.Field != c.field || err.Rule != c.rule || err.MessageID != c.id || id != c.id {
				t.Errorf("got %s field %q rule %q id %q/%q\nwant field %q rule %q id %q",
					err.Code, err.Field, err.Rule, err.MessageID, id, c.field, c.rule, c.id)
			}
		})
	}
}

// TestParseJSONReads: what the tree holds, escapes resolved, numbers as
// written, keys in order.
func TestParseJSONReads(t *testing.T) {
	root, id, err := parseJSON([]byte(` {"messageId":"m-1","s":"a\u00e9\"\\/\n\ud83d\ude86","n":-1.5e3,"t":true,"f":false,"z":null,"o":{},"l":[]} `))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var v []*jnode
	for _, m := range root.Members {
		keys, v = append(keys, m.Name), append(v, m.Value)
	}
	if id != "m-1" || strings.Join(keys, ",") != "messageId,s,n,t,f,z,o,l" {
		t.Fatalf("id %q keys %v", id, keys)
	}
	if v[1].Kind != jsontree.String || v[1].Text != "aé\"\\/\n\U0001F686" || v[2].Kind != jsontree.Number || v[2].Text != "-1.5e3" ||
		!v[3].Bool || v[4].Kind != jsontree.Bool || v[4].Bool || v[5].Kind != jsontree.Null || v[6].Kind != jsontree.Object || v[7].Kind != jsontree.Array {
		t.Errorf("read %+v %+v %+v %+v %+v %+v", *v[1], *v[2], *v[3], *v[4], *v[5], *v[6])
	}
}
