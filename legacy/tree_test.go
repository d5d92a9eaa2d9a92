package legacy

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
)

// dumpXnode writes a tree compactly: name, attributes, text, children.
func dumpXnode(n *xnode) string {
	var b strings.Builder
	b.WriteString(n.name)
	for _, a := range n.attrs {
		b.WriteString(" @")
		if a.Name.Space != "" {
			b.WriteString(a.Name.Space + ":")
		}
		b.WriteString(a.Name.Local + "=" + strconv.Quote(a.Value))
	}
	if n.text != "" {
		b.WriteString(" " + strconv.Quote(n.text))
	}
	if len(n.kids) > 0 {
		b.WriteString(" (")
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(dumpXnode(k))
		}
		b.WriteString(")")
	}
	return b.String()
}

// TestParseXMLReads pins what the tree holds for the forms XML allows.
func TestParseXMLReads(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"text trimmed, indentation dropped", "<a>\n  <b>  x y \t</b>\n</a>", `a (b "x y")`},
		{"text around children and comments joined", "<a> x <!-- c --> y <b/> z </a>", `a "x  y  z" (b)`},
		{"CDATA taken as written", "<a><![CDATA[ <b>&amp; ]]></a>", `a "<b>&amp;"`},
		{"references in text", "<a>&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x10FFFF;</a>", `a "<>&'\"AB\U0010ffff"`},
		{"a surrogate's number is U+FFFD", "<a>&#xD800;</a>", "a \"\uFFFD\""},
		{"references in attribute values", `<a b="&lt;&#9;&#xA;" c='"'/>`, `a @b="<\t\n" @c="\""`},
		{"CR LF and CR become LF", "<a b=\"1\r\n2\r3\">x\r\ny\rz</a>", `a @b="1\n2\n3" "x\ny\nz"`},
		{"tab and LF in attribute values kept", "<a b=\"\t1\n2 \"/>", `a @b="\t1\n2 "`},
		{"a referenced CR is kept", "<a>x&#13;\ny</a>", `a "x\r\ny"`},
		{"namespace declarations are not attributes", `<p:a xmlns:p="urn:uic:90918-1:legacy:1" xmlns="v" p:b="1" c="2"/>`, `a @p:b="1" @c="2"`},
		{"declaration, PIs and comments ignored", `<?xml version="1.0" encoding="utf-8"?><!--x--><?pi y?><a/><!--z-->`, `a`},
		{"ISO-8859-1 bytes become their code points", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a b=\"\xe9\">\xfc</a>", `a @b="é" "ü"`},
		{"US-ASCII read as UTF-8", `<?xml encoding="US-ASCII"?><a>é</a>`, `a "é"`},
		{"no white space needed between attributes", `<a b="1"c='2'/>`, `a @b="1" @c="2"`},
		{"names with a colon at one end have no prefix", `<:a b:="1"></:a>`, `:a @b:="1"`},
		{"non-ASCII names", `<é:a xmlns:é="urn:uic:90918-1:legacy:1"><é:b·c/></é:a>`, `a (b·c)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, _, err := parseXML([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpXnode(root); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestParseXMLRefuses pins the error of each kind of bad input, and that
// an error after the root start tag carries its messageId.
func TestParseXMLRefuses(t *testing.T) {
	for _, c := range []struct{ name, body, field, rule, id string }{
		{"repeated attribute on the root", `<a messageId="m" b="1" b="2"/>`, "@b", ruleOnce, "m"},
		{"repeated messageId", `<a messageId="m" messageId="n"/>`, "@messageId", ruleOnce, "m"},
		{"JSON sent as XML", ` {"type":"CancelRequest","messageId":"m"}`, "", `is not XML: it starts with "{" as JSON does (a JSON message is sent with Content-Type application/json)`, ""},
		{"repeated messageId, the first not valid", `<a messageId="m/1" messageId="n"/>`, "@messageId", ruleOnce, "n"},
		{"repeated attribute below", `<a><b><c d="1" d="2"/></b></a>`, "b/c/@d", ruleOnce, ""},
		{"repeated prefixed attribute", `<a p:b="1" p:b="2"/>`, "@p:b", ruleOnce, ""},
		{"repeated namespace declaration", `<a xmlns:p="u" xmlns:p="u"/>`, "@xmlns:p", ruleOnce, ""},
		{"repeated default namespace", `<a xmlns="" xmlns=""/>`, "@xmlns", ruleOnce, ""},
		{"DOCTYPE", `<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`, "", "DOCTYPE and other <!...> declarations are not allowed", ""},
		{"unterminated DOCTYPE", `<!DOCTYPE a`, "", "is not well-formed XML (line 1): unexpected EOF", ""},
		{"unknown entity", "<a messageId=\"m\">\n&nbsp;</a>", "", "is not well-formed XML (line 2): invalid character entity &nbsp;", "m"},
		{"entity without semicolon", `<a>&amp</a>`, "", "is not well-formed XML (line 1): invalid character entity &amp (no semicolon)", ""},
		{"character reference out of range", `<a>&#x110000;</a>`, "", "is not well-formed XML (line 1): invalid character entity &#x110000;", ""},
		{"referenced NUL", `<a>&#0;</a>`, "", "is not well-formed XML (line 1): illegal character code U+0000", ""},
		{"control character", "<a>\x01</a>", "", "is not well-formed XML (line 1): illegal character code U+0001", ""},
		{"U+FFFE", "<a b=\"\xef\xbf\xbe\"/>", "", "is not well-formed XML (line 1): illegal character code U+FFFE", ""},
		{"invalid UTF-8 in text", "<a>\n\xff</a>", "", "is not well-formed XML (line 2): invalid UTF-8", ""},
		{"invalid UTF-8 in a name", "<a\xff/>", "", `is not well-formed XML (line 1): "invalid XML name: a\xff"`, ""},
		{"invalid name", `<a-b><1/></a-b>`, "", "is not well-formed XML (line 1): invalid XML name: 1", ""},
		{"name with two colons", `<a:b:c/>`, "", "is not well-formed XML (line 1): expected element name after <", ""},
		{"]]> in text", `<a>]]></a>`, "", "is not well-formed XML (line 1): unescaped ]]> not in CDATA section", ""},
		{"< in an attribute value", `<a b="<"/>`, "", "is not well-formed XML (line 1): unescaped < inside quoted string", ""},
		{"unquoted attribute value", `<a b=1/>`, "", "is not well-formed XML (line 1): unquoted or missing attribute value in element", ""},
		{"attribute without value", `<a b/>`, "", "is not well-formed XML (line 1): attribute name without = in element", ""},
		{"-- in a comment", `<a><!-- x -- y --></a>`, "", `is not well-formed XML (line 1): invalid sequence "--" not allowed in comments`, ""},
		{"end tag of another element", "<a messageId=\"m\">\n<b>\n</c></a>", "", "is not well-formed XML (line 3): element <b> closed by </c>", "m"},
		{"end tag by another prefix", `<p:a xmlns:p="urn:uic:90918-1:legacy:1" xmlns:q="urn:uic:90918-1:legacy:1"></q:a>`, "", "is not well-formed XML (line 1): element <a> closed by </a>", ""},
		{"end tag without start", `</a>`, "", "is not well-formed XML (line 1): unexpected end element </a>", ""},
		{"truncated", "<a messageId=\"m\">\n<b>", "", "is not well-formed XML (line 2): unexpected EOF", "m"},
		{"truncated in CDATA", "<a><![CDATA[x", "", "is not well-formed XML (line 1): unexpected EOF in CDATA section", ""},
		{"undeclared element prefix", `<a><p:b/></a>`, "", `is not well-formed XML (line 1): undeclared namespace prefix "p"`, ""},
		{"the xml prefix undeclared on elements", `<xml:a/>`, "", `is not well-formed XML (line 1): undeclared namespace prefix "xml"`, ""},
		{"root in another namespace", `<a xmlns="urn:x"/>`, "a", `must be in namespace urn:uic:90918-1:legacy:1 or in none, not in "urn:x"`, ""},
		{"child in another namespace", `<a xmlns="urn:uic:90918-1:legacy:1" messageId="m"><b><c xmlns=""/></b></a>`, "b/c", `must be in the namespace of the root element ("urn:uic:90918-1:legacy:1"), not in ""`, "m"},
		{"text before the root", `x<a/>`, "", "text outside the root element is not allowed", ""},
		{"text after the root", `<a messageId="m"/>&amp;`, "", "text outside the root element is not allowed", "m"},
		{"second root", `<a/><a/>`, "", "only one root element is allowed", ""},
		{"empty", " \n<!-- x -->\n", "", "the message is empty: an XML root element is required", ""},
		{"unsupported encoding", `<?xml version="1.0" encoding="UTF-16"?><a/>`, "", `cannot be read: xml: opening charset "UTF-16": encoding "UTF-16" is not supported (use UTF-8)`, ""},
		{"unsupported version", `<?xml version="1.1"?><a/>`, "", `cannot be read: xml: unsupported version "1.1"; only version 1.0 is supported`, ""},
		{"too deep", strings.Repeat("<a>", 9), "", "nests elements deeper than 8", ""},
		{"too many elements", "<a>" + strings.Repeat("<b/>", 1024) + "</a>", "", "has more than 1024 elements", ""},
		{"line after an ISO-8859-1 switch", "<?xml version=\"1.0\" encoding=\"latin1\"?>\n<a>\n\xe9</b>", "", "is not well-formed XML (line 3): element <a> closed by </b>", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := parseXML([]byte(c.body))
			if err == nil {
				t.Fatal("parsed")
			}
			if err.Code != CodeInvalidMessage || err.Field != c.field || err.Rule != c.rule || err.MessageID != c.id {
				t.Errorf("got %s field %q rule %q id %q\nwant field %q rule %q id %q",
					err.Code, err.Field, err.Rule, err.MessageID, c.field, c.rule, c.id)
			}
		})
	}
}

// TestParseXMLHead: the head is read from the root start tag.
func TestParseXMLHead(t *testing.T) {
	for _, c := range []struct {
		body string
		want xmlHead
	}{
		{`<a messageId="m1"/>`, xmlHead{messageID: "m1"}},
		{`<a messageId="m 1"/>`, xmlHead{}},
		{`<a p:messageId="m1" xmlns:p="u"/>`, xmlHead{}},
		{`<p:a xmlns:p="urn:uic:90918-1:legacy:1" messageId="m1"/>`, xmlHead{messageID: "m1", namespaced: true}},
		{`<a><b messageId="m1"/></a>`, xmlHead{}},
	} {
		if _, head, err := parseXML([]byte(c.body)); err != nil || head != c.want {
			t.Errorf("%s: head %+v, %v; want %+v", c.body, head, err, c.want)
		}
	}
}

// TestParseXMLManyAttributes: a start tag with many attributes is
// checked for repeats in linear time, and still refused for one.
func TestParseXMLManyAttributes(t *testing.T) {
	var b strings.Builder
	b.WriteString("<a")
	for i := range 50000 {
		b.WriteString(" a" + strconv.Itoa(i) + `="1"`)
	}
	ok := b.String() + "/>"
	if _, _, err := parseXML([]byte(ok)); err != nil {
		t.Fatal(err)
	}
	_, _, err := parseXML([]byte(b.String() + ` a49999="2"/>`))
	if err == nil || err.Field != "@a49999" || err.Rule != ruleOnce {
		t.Fatalf("got %v", err)
	}
}

// TestParseXMLTextInManyPieces: text split by a comment every byte, up to
// the largest body, costs memory in proportion to the body. Joined by
// string concatenation it cost the square: 16 s of CPU for 1 MiB.
func TestParseXMLTextInManyPieces(t *testing.T) {
	body := []byte("<a>" + strings.Repeat("x<!---->", (MaxBodyBytes-8)/8) + "</a>")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	root, _, err := parseXML(body)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(root.text) != (MaxBodyBytes-8)/8 || strings.Trim(root.text, "x") != "" {
		t.Fatalf("text of %d bytes", len(root.text))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32*uint64(len(body)) {
		t.Errorf("%d bytes allocated for a body of %d", alloc, len(body))
	}
}

// TestParseJSONRefuses pins the error of each kind of bad JSON: the
// field it names, the rule, and the messageId read before it.
func TestParseJSONRefuses(t *testing.T) {
	for _, c := range []struct{ name, body, field, rule, id string }{
		{"repeated key", `{"messageId":"m","a":1,"a":2}`, "a", ruleOnce, "m"},
		{"repeated key, once escaped", `{"messageId":"m","a":1,"\u0061":2}`, "a", ruleOnce, "m"},
		{"repeated key below", `{"x":{"a":[1,{"b":1,"b":2}]}}`, "x.a[1].b", ruleOnce, ""},
		{"repeated messageId", `{"messageId":"m","messageId":"n"}`, "messageId", ruleOnce, "m"},
		{"XML sent as JSON", "\n<CancelRequest messageId=\"m\"/>", "", `is not JSON: it starts with "<" as XML does (an XML message is sent with Content-Type application/xml or text/xml)`, ""},
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
