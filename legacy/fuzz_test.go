package legacy

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// addSeeds adds the golden and example inputs of format f.
func addSeeds(f *testing.F, format Format) {
	pattern := "*." + ext(format)
	for _, dir := range []string{"testdata", filepath.Join("testdata", "golden")} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

// checkDecode is the property both fuzz targets hold: decoding never
// panics, fails only with an *Error whose NegativeReply a client can read
// back, and whatever decodes re-encodes to the same value.
func checkDecode(t *testing.T, format Format, body []byte) {
	checkWellFormed(t, format, body)
	for _, request := range []bool{true, false} {
		m, err := decode(format, body, request)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error: %v", err, err)
			}
			out, err := Encode(format, e.NegativeReply(sampleTime))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodeReply(format, out); err != nil {
				t.Fatalf("the NegativeReply for %q does not decode: %v\n%s", e.Error(), err, out)
			}
			continue
		}
		out, err := Encode(format, m)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decode(format, out, request)
		if err != nil {
			t.Fatalf("re-encoded message does not decode: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip changed the message:\n%+v\n%+v\n%s", m, again, out)
		}
	}
}

func FuzzDecodeXML(f *testing.F) {
	addSeeds(f, XML)
	for _, s := range trickyXML() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) { checkDecode(t, XML, body) })
}

func FuzzDecodeJSON(f *testing.F) {
	addSeeds(f, JSON)
	f.Fuzz(func(t *testing.T, body []byte) { checkDecode(t, JSON, body) })
}

// checkWellFormed compares the parsers with the standard library's: what
// parseXML takes, encoding/xml's Token (which also resolves namespaces and
// matches end tags) must read to the end; what json.Valid refuses,
// parseJSON must refuse, and what parseJSON takes must be valid UTF-8.
func checkWellFormed(t *testing.T, format Format, body []byte) {
	if len(body) > MaxBodyBytes {
		return
	}
	if format == XML {
		if _, _, err := parseXML(body); err == nil {
			d := xml.NewDecoder(bytes.NewReader(body))
			d.CharsetReader = charsetReader
			for {
				_, err := d.Token()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("parseXML took what encoding/xml refuses: %v", err)
				}
			}
		}
		return
	}
	// A bound or a repeated name may be found before a syntax error, so
	// invalid JSON need only fail somehow; valid JSON may still be refused
	// for invalid UTF-8, which json.Valid lets through.
	_, _, err := parseJSON(body)
	if err == nil && (!json.Valid(body) || !utf8.Valid(body)) {
		t.Fatalf("parseJSON took what is not JSON in UTF-8: %q", body)
	}
	// An escaped lone surrogate ("\ud800") is JSON by the grammar, but
	// RFC 8259 (8.2) leaves its meaning open; encoding/json makes it
	// U+FFFD, the reader refuses it, as documented.
	if err != nil && strings.HasPrefix(err.Rule, "is not well-formed JSON") && json.Valid(body) && utf8.Valid(body) &&
		!strings.Contains(err.Rule, "surrogate") {
		t.Fatalf("parseJSON calls valid JSON malformed: %v", err)
	}
}

// FuzzParseXML holds parseXML's trees to what it promises, for any input:
// an *Error or a tree within MaxDepth and MaxElements, with no namespace
// declaration among the attributes, no attribute name twice in one
// element, text trimmed; a tree that encoding/xml finds well-formed; and
// one that, written out again, reads back the same.
func FuzzParseXML(f *testing.F) {
	addSeeds(f, XML)
	for _, s := range trickyXML() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > MaxBodyBytes {
			return
		}
		root, _, err := parseXML(body)
		if err != nil {
			if err.Code != CodeInvalidMessage || err.Rule == "" {
				t.Fatalf("error %+v", err)
			}
			return
		}
		checkWellFormed(t, XML, body)
		count := 0
		checkXnode(t, root, 1, &count)
		var out bytes.Buffer
		writeXnode(&out, root, true)
		again, _, err := parseXML(out.Bytes())
		if err != nil {
			t.Fatalf("the tree written out does not read back: %v\n%s", err, out.Bytes())
		}
		if a, b := dumpXnode(root), dumpXnode(again); a != b {
			t.Fatalf("the tree written out reads back otherwise:\n%s\n%s", a, b)
		}
	})
}

// checkXnode checks the promises of parseXML on n at depth.
func checkXnode(t *testing.T, n *xnode, depth int, count *int) {
	t.Helper()
	if *count++; *count > MaxElements || depth > MaxDepth {
		t.Fatalf("%d elements, depth %d", *count, depth)
	}
	if n.text != strings.TrimSpace(n.text) {
		t.Fatalf("text %q not trimmed", n.text)
	}
	for i, a := range n.attrs {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			t.Fatalf("namespace declaration %v among the attributes", a.Name)
		}
		for _, b := range n.attrs[:i] {
			if a.Name == b.Name {
				t.Fatalf("attribute %v twice", a.Name)
			}
		}
	}
	for _, k := range n.kids {
		checkXnode(t, k, depth+1, count)
	}
}

// writeXnode writes n as XML, in no namespace. A local name that is no
// XML name alone (encoding/xml takes "p:֩", whose local part begins
// with a combining mark) is written with the prefix x, bound to no
// namespace on the root.
func writeXnode(w *bytes.Buffer, n *xnode, root bool) {
	name := n.name
	if !isXMLName(name) {
		name = "x:" + name
	}
	w.WriteString("<" + name)
	if root {
		w.WriteString(` xmlns:x=""`)
	}
	for _, a := range n.attrs {
		w.WriteByte(' ')
		if a.Name.Space != "" {
			w.WriteString(a.Name.Space + ":")
		}
		w.WriteString(a.Name.Local + `="`)
		xml.EscapeText(w, []byte(a.Value))
		w.WriteByte('"')
	}
	w.WriteByte('>')
	xml.EscapeText(w, []byte(n.text))
	for _, k := range n.kids {
		writeXnode(w, k, false)
	}
	w.WriteString("</" + name + ">")
}

// isXMLName reports whether encoding/xml reads name alone as an element
// name.
func isXMLName(name string) bool {
	tok, err := xml.NewDecoder(strings.NewReader("<" + name + "/>")).RawToken()
	se, ok := tok.(xml.StartElement)
	return err == nil && ok && se.Name.Space == "" && se.Name.Local == name
}

// trickyXML are inputs at the edges of the language, seeds of the XML
// fuzz targets.
func trickyXML() []string {
	return []string{
		// Documents, prolog and epilog.
		``, `   `, `<a/>`, `<a>`, `<a></b>`, `</a>`, `<a/><b/>`, `<a/>x`, `x<a/>`, "<a/>&#32;\n", `<a/>&amp;`,
		"\xef\xbb\xbf<a/>", "<a/>\u00a0", "\u0085<a/>", `<a/><!-- end --><?pi x?>`, `<a/><!DOCTYPE a>`,
		// Directives, comments, CDATA.
		`<!DOCTYPE a><a/>`, `<!DOCTYPE a`, `<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`, `<!`, `<!>`,
		`<!-- c --><a/>`, `<!-- a -- b --><a/>`, `<!---><a/>`, `<!----><a/>`, `<!-- x`, `<!-x`, `<a><!-- \xff\x01 --></a>`,
		`<![CDATA[x]]><a/>`, `<![CDATA[ ]]><a/>`, `<a><![CDATA[ <b>&amp; ]]]]></a>`, `<a><![CDATA[x]]`, `<a><![CDAT[x]]></a>`,
		"<a><![CDATA[\r\n\r]]></a>", "<a><![CDATA[\x01]]></a>", "<a><![CDATA[\xff]]></a>", `<a><![CDATA[x]]>]]></a>`,
		// Processing instructions and the XML declaration.
		`<?xml version="1.0" encoding="UTF-8"?><a/>`, `<?xml version="1.1"?><a/>`, `<?xml version = "1.1"?><a/>`,
		"<?xml version='1.0' encoding='ISO-8859-1'?>\n<a b=\"\xe9\">\xe9</a>", `<?xml encoding="EBCDIC"?><a/>`,
		"<?xml encoding=\"EBCDIC\xff\x01\"?><a/>", `<?xml encoding="ASCİİ"?><a/>`,
		`<?xml encoding="us-ascii"?><a>é</a>`, "<a><?xml encoding=\"latin1\"?>\xe9</a>",
		"<?xml encoding=\"latin1\"?><?xml encoding=\"latin1\"?><a>\xc3\xa9</a>", "<?xml encoding=\"l1\"?>\n\n<a>\n</b>",
		`<?xml encoding="utf-8" version="2"?><a/>`, `<?xml`, `<?>`, `<? x?>`, `<?pi data?><a/>`, `<?x:y ?><a/>`,
		`<?XML version="9"?><a/>`, `<?xml version="1.0"?><?xml version="1.1"?><a/>`, "<?pi \xff?><a/>",
		// References.
		`<a>&lt;&gt;&amp;&apos;&quot;</a>`, `<a>&#65;&#x41;&#X41;</a>`, `<a>&#0;</a>`, `<a>&#9;&#xD800;&#xDFFF;</a>`,
		`<a>&#x110000;</a>`, `<a>&#x10FFFF;&#xFFFE;</a>`, `<a>&#;</a>`, `<a>&#x;</a>`, `<a>&nbsp;</a>`, `<a>& b</a>`,
		`<a>&amp</a>`, `<a>&;</a>`, `<a>&#65</a>`, `<a>&#65`, `<a>&`, `<a>&#`, `<a>&#x`, `<a>&am`, `<a b="&lt;&#9;&#xA;"/>`,
		`<a>&#0000000000000000065;</a>`, `<a>&#99999999999999999999;</a>`, "<a>&é;</a>", `<a>&1a;</a>`, `<a>&a:b;</a>`,
		"<a>\r&#13;\n</a>", "<a>]&#93;></a>", `<a>]]&gt;</a>`,
		// Text.
		`<a> x <!--c--> y </a>`, `<a>a<b/>c</a>`, `<a>]]></a>`, "<a>\r\n x \r y\r</a>", "<a>\x01</a>", "<a>\x00</a>",
		"<a>\xff</a>", "<a>\xef\xbf\xbe</a>", "<a>\xed\xa0\x80</a>", "<a>\u00a0x\u00a0</a>", "<a>\u0085</a>", "<a>\t\n</a>",
		"<a>\u2028x\u3000</a>", "<a>x\x7f</a>", "<a>é✓</a>",
		// Attributes.
		`<a b="1" b="2"/>`, `<a b="1" c:b="2" xmlns:c="u"/>`, `<a xmlns:p="u" xmlns:p="v"/>`, `<a xmlns="u" xmlns="u"/>`,
		`<a b="1"><c d="1" e="2" d="3"/></a>`, `<a><b/><b><c x="1" x="1"></c></b></a>`,
		`<a b='x"y' c="x'y"/>`, "<a b=\"\t\n\r\n\r\"/>", `<a b="<"/>`, `<a b=">"/>`, `<a b=1/>`, `<a b/>`, `<a b="1"c="2"/>`,
		`<a b = "1" />`, `<a b="`, `<a b="x`, `<a b='x`, `<a b="]]>"/>`, `<a :b="1" b:="2"/>`, `<a xmlns:="x"/>`,
		"<a b=\"\xff\"/>", "<a b=\"\x01\"/>", `<a b="&unknown;"/>`, `<a b="1" /`, `<a b="1" / >`, `<a b=`, `<a b`,
		`<a b:c:d="1"/>`, `<a b="1" =""/>`,
		// Names.
		`<1a/>`, `<-a/>`, `<.a/>`, `<_a._-1/>`, `<a:b:c/>`, `<:a></:a>`, `<a:></a:>`, `<:a></a>`, `<é/>`, `<aé/>`,
		"<a\xff/>", `<a·b/>`, `<·a/>`, `<p:é xmlns:p="u"/>`, `<é:a xmlns:é="u"/>`, `<a xmlns:é="u"/>`, `< a/>`,
		`<a></ a>`, `<a></a x>`, `<a></a >`, `<a/ >`, `<a></a:b>`, `<a>x</a`, `<a`, `</`, `<`, `<a></`,
		"<a\u0300/>", "<\u0300a/>", "<a\u00b7\u0387/>", "<\u4e00/>", "<a\U00010000/>",
		// Namespaces.
		`<a xmlns="urn:uic:90918-1:legacy:1"><b/></a>`, `<a xmlns="urn:other"/>`,
		`<p:a xmlns:p="urn:uic:90918-1:legacy:1"><p:b/></p:a>`, `<p:a/>`, `<a><p:b/></a>`,
		`<a><b xmlns="urn:uic:90918-1:legacy:1"/></a>`, `<a xmlns="urn:uic:90918-1:legacy:1"><b xmlns=""/></a>`,
		`<p:a xmlns:p="urn:uic:90918-1:legacy:1"></q:a>`, `<p:a xmlns:p="x" xmlns:q="x"></q:a>`, `<xml:a/>`,
		`<a xml:lang="en"/>`, `<a p:b="1"/>`, `<a xmlns:p=""><p:b/></a>`, `<a><b><c xmlns="x"/></b></a>`,
		`<a xmlns="urn:uic:90918-1:legacy:1"><b><c xmlns="x"/></b></a>`, `<p:a xmlns:p="urn:other"/>`,
		`<a xmlns:p="urn:uic:90918-1:legacy:1"><p:b/></a>`, `<xmlns:a xmlns:xmlns="u"/>`,
		// messageId and errors carrying it.
		`<a messageId="m1" sender="x" sender="y"/>`, `<a messageId="m 1"/>`, `<a messageId="m1"><b></a>`,
		`<a messageId="m1" messageId="m2"/>`, `<a p:messageId="m1" xmlns:p="u"><b/><b/><c/></a>`,
		`<a messageId="m1" xmlns="urn:uic:90918-1:legacy:1"><b xmlns="x"/></a>`, `<a messageId="m1">x</a>y`,
		// Bounds.
		strings.Repeat("<a>", 8) + strings.Repeat("</a>", 8), strings.Repeat("<a>", 9) + strings.Repeat("</a>", 9),
		"<a>" + strings.Repeat("<b/>", 1023) + "</a>", "<a>" + strings.Repeat("<b/>", 1024) + "</a>",
		"<a " + strings.Repeat(`b="1" `, 20) + "/>", "<a " + strings.Repeat(`b="1" `, 5) + "/>",
		"<a>" + strings.Repeat(`<b c="1" d="2" e="3" f="4" g="5" h="6" i="7" j="8" k="9"/>`, 40) + "</a>",
	}
}

// FuzzAfterSales runs the after-sales messages through checkDecode, in the
// form the first byte picks, and holds what their readers promise: no
// place named twice in a CancelRequest, passenger indexes 1..9 each once
// and each with something to set, and no SynchroReply inside another.
func FuzzAfterSales(f *testing.F) {
	for _, s := range samples() {
		switch s.m.(type) {
		case *SynchroRequest, *PassengerDataRequest, *SynchroReply, *PassengerDataReply:
		default:
			if !strings.Contains(s.name, ".") {
				continue
			}
		}
		for i, format := range []Format{XML, JSON} {
			b, err := Encode(format, s.m)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(append([]byte{byte(i)}, b...))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		format := XML
		if in[0]&1 == 1 {
			format = JSON
		}
		body := in[1:]
		checkDecode(t, format, body)
		m, err := Decode(format, body)
		if err == nil {
			switch m := m.(type) {
			case *CancelRequest:
				for i, p := range m.Places {
					for _, q := range m.Places[:i] {
						if p == q {
							t.Fatalf("place %+v twice", p)
						}
					}
				}
			case *PassengerDataRequest:
				seen := map[int]bool{}
				for _, p := range m.Passengers {
					if p.Index < 1 || p.Index > 9 || seen[p.Index] || p == (PassengerData{Index: p.Index}) {
						t.Fatalf("passenger %+v", p)
					}
					seen[p.Index] = true
				}
				if len(m.Passengers) == 0 {
					t.Fatal("no passenger")
				}
			}
		}
		if r, err := DecodeReply(format, body); err == nil {
			if s, ok := r.(*SynchroReply); ok {
				if _, nested := s.Reply.(*SynchroReply); nested {
					t.Fatal("a SynchroReply inside a SynchroReply")
				}
			}
		}
	})
}
