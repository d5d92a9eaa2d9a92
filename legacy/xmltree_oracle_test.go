package legacy

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// This file keeps the encoding/xml-based parser that xmlScanner replaced,
// unchanged but for its name, as the oracle of FuzzXMLScannerMatchesEncodingXML.

// parseXMLStd reads body into a tree, bounded by MaxDepth and MaxElements. It
// refuses DTDs and other directives (no entity can be declared, so none
// expands), unknown entities, any namespace but Namespace, and anything
// after the root element. It uses RawToken and resolves namespaces and
// matches end tags itself: Token does the same at about twice the
// allocations.
func parseXMLStd(body []byte) (*xnode, xmlHead, *Error) {
	var head xmlHead
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	d.CharsetReader = charsetReaderStd
	fail := func(field, rule string, err error) (*xnode, xmlHead, *Error) {
		return nil, head, &Error{Code: CodeInvalidMessage, Field: field, Rule: rule,
			MessageID: head.messageID, Namespaced: head.namespaced, Err: err}
	}
	syntax := func(msg string) (*xnode, xmlHead, *Error) {
		line, _ := d.InputPos()
		return fail("", "is not well-formed XML (line "+strconv.Itoa(line)+"): "+shortMsg(msg), nil)
	}
	var (
		root    *xnode
		stack   = make([]xopenStd, 0, MaxDepth)
		pending []*xnode   // children of the open elements, in document order
		kidSlab []*xnode   // finished child lists are carved from here
		decls   []xml.Name // in-scope declarations: Space = prefix, Local = URI
		slab    []xnode    // nodes are carved from here, a few allocations for all
		count   int
		done    bool
	)
	resolve := func(prefix string) (string, bool) {
		for i := len(decls) - 1; i >= 0; i-- {
			if decls[i].Space == prefix {
				return decls[i].Local, true
			}
		}
		return "", prefix == ""
	}
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			switch {
			case root == nil:
				return fail("", "the message is empty: an XML root element is required", nil)
			case !done:
				return syntax("unexpected EOF")
			}
			return root, head, nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return syntax(se.Msg)
			}
			return fail("", "cannot be read: "+shortMsg(err.Error()), err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if done {
				return fail("", "only one root element is allowed", nil)
			}
			count++
			if count > MaxElements {
				return fail("", "has more than 1024 elements", nil)
			}
			if len(stack) >= MaxDepth {
				return fail("", "nests elements deeper than 8", nil)
			}
			if len(slab) == 0 {
				slab = make([]xnode, 16)
			}
			n := &slab[0]
			slab = slab[1:]
			n.name = t.Name.Local
			scope := len(decls)
			n.attrs = t.Attr[:0] // RawToken made t.Attr afresh: filter it in place
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns":
					decls = append(decls, xml.Name{Space: a.Name.Local, Local: a.Value})
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					decls = append(decls, xml.Name{Local: a.Value})
				default:
					n.attrs = append(n.attrs, a)
				}
			}
			space, ok := resolve(t.Name.Space)
			if !ok {
				return syntax("undeclared namespace prefix " + quoteShort(t.Name.Space))
			}
			if root == nil {
				root = n
				head.namespaced = space == Namespace
				for _, a := range n.attrs {
					if a.Name.Space == "" && a.Name.Local == "messageId" && validMessageID(a.Value) {
						head.messageID = a.Value
					}
				}
			} else {
				pending = append(pending, n)
			}
			if want := nsOf(head.namespaced); space != want {
				if len(stack) == 0 {
					return fail(shortName(n.name), "must be in namespace "+Namespace+" or in none, not in "+quoteShort(space), nil)
				}
				return fail(xmlElementPathStd(stack[1:], n), "must be in the namespace of the root element ("+quoteShort(want)+"), not in "+quoteShort(space), nil)
			}
			stack = append(stack, xopenStd{node: n, raw: t.Name, decls: scope, kids: len(pending)})
		case xml.EndElement:
			if len(stack) == 0 {
				return syntax("unexpected end element </" + shortName(t.Name.Local) + ">")
			}
			top := stack[len(stack)-1]
			if t.Name != top.raw {
				return syntax("element <" + shortName(top.raw.Local) + "> closed by </" + shortName(t.Name.Local) + ">")
			}
			top.node.text = strings.TrimSpace(top.node.text)
			if k := len(pending) - top.kids; k > 0 {
				if len(kidSlab) < k {
					kidSlab = make([]*xnode, max(k, 32))
				}
				top.node.kids, kidSlab = kidSlab[:k:k], kidSlab[k:]
				copy(top.node.kids, pending[top.kids:])
				pending = pending[:top.kids]
			}
			decls = decls[:top.decls]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				done = true
			}
		case xml.CharData:
			if len(stack) == 0 {
				if len(bytes.TrimSpace(t)) != 0 {
					return fail("", "text outside the root element is not allowed", nil)
				}
				continue
			}
			// Leading white space is dropped here, the rest trimmed at the
			// end tag: no copy of the indentation between elements.
			if n := stack[len(stack)-1].node; n.text != "" {
				n.text += string(t)
			} else if trimmed := bytes.TrimLeftFunc(t, unicode.IsSpace); len(trimmed) != 0 {
				n.text = string(trimmed)
			}
		case xml.Directive:
			return fail("", "DOCTYPE and other <!...> declarations are not allowed", nil)
		case xml.ProcInst, xml.Comment:
			// The XML declaration and comments carry nothing.
		}
	}
}

// xopenStd is an element parseXMLStd has not seen the end of.
type xopenStd struct {
	node  *xnode
	raw   xml.Name // as written, to match the end tag
	decls int      // namespace declarations in scope before it
	kids  int      // where its children start in parseXMLStd's pending
}

// xmlElementPathStd is the path of n under the open elements below the root.
func xmlElementPathStd(below []xopenStd, n *xnode) string {
	var b strings.Builder
	for _, p := range below {
		b.WriteString(shortName(p.node.name))
		b.WriteByte('/')
	}
	b.WriteString(shortName(n.name))
	return b.String()
}

// charsetReaderStd lets an XML declaration name US-ASCII or ISO-8859-1, which
// older legacy systems still write; other encodings are refused.
func charsetReaderStd(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "latin1", "iso_8859-1", "l1":
		b, err := io.ReadAll(input)
		if err != nil {
			return nil, err
		}
		out := make([]rune, len(b))
		for i, c := range b {
			out[i] = rune(c)
		}
		return strings.NewReader(string(out)), nil
	}
	return nil, errors.New("encoding " + quoteShort(charset) + " is not supported (use UTF-8)")
}

// FuzzXMLScannerMatchesEncodingXML holds xmlScanner to the parser it
// replaced: what the oracle takes, the scanner takes as the same tree and
// head; what the oracle refuses, the scanner refuses with the same error,
// syntax messages and their line numbers included. The scanner is
// deliberately stricter in two ways, checked apart: see checkDeviation.
func FuzzXMLScannerMatchesEncodingXML(f *testing.F) {
	addSeeds(f, XML)
	for _, s := range trickyXML() {
		f.Add([]byte(s))
	}
	f.Fuzz(checkScannerMatchesStd)
}

// trickyXML are inputs at the edges of the language, seeds of the
// differential fuzz target and run by it as a test.
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

// checkScannerMatchesStd is the property of FuzzXMLScannerMatchesEncodingXML.
func checkScannerMatchesStd(t *testing.T, body []byte) {
	if len(body) > MaxBodyBytes {
		return // decode refuses it before parsing
	}
	want, wantHead, wantErr := parseXMLStd(body)
	got, gotHead, gotErr := parseXML(body)
	if checkDeviation(t, body, gotErr, wantErr) {
		return
	}
	if gotHead != wantHead {
		t.Fatalf("head %+v, encoding/xml %+v", gotHead, wantHead)
	}
	switch {
	case gotErr == nil && wantErr == nil:
		if d := xnodeDiff(got, want, ""); d != "" {
			t.Fatalf("trees differ at %s", d)
		}
	case gotErr == nil:
		t.Fatalf("took what encoding/xml refuses: %v", wantErr)
	case wantErr == nil:
		t.Fatalf("refused what encoding/xml takes: %v", gotErr)
	default:
		if !sameError(gotErr, wantErr) {
			t.Fatalf("error %+v\nencoding/xml %+v", gotErr, wantErr)
		}
	}
}

// sameError compares all of two errors but the wrapped cause, whose text
// only is compared.
func sameError(a, b *Error) bool {
	if (a.Err == nil) != (b.Err == nil) || a.Err != nil && a.Err.Error() != b.Err.Error() {
		return false
	}
	a2, b2 := *a, *b
	a2.Err, b2.Err = nil, nil
	return a2 == b2
}

func notWellFormed(e *Error) bool { return strings.HasPrefix(e.Rule, "is not well-formed XML") }

// checkDeviation reports whether the scanner refused body where it is
// stricter on purpose, after checking that the refusal is due:
//   - a start tag repeating an attribute is refused with the attribute's
//     path and ruleOnce, where encoding/xml took it; its prefix up to that
//     tag must be one the oracle takes but for its end;
//   - a directive is refused as soon as it starts, where encoding/xml
//     first read it to its end and so called an unterminated one
//     "unexpected EOF".
func checkDeviation(t *testing.T, body []byte, gotErr, wantErr *Error) bool {
	t.Helper()
	end, repeated := firstRepeatedAttr(body)
	switch {
	case gotErr != nil && gotErr.Rule == ruleOnce:
		if !repeated {
			t.Fatalf("refused a repeated attribute where there is none: %v", gotErr)
		}
		if _, _, err := parseXMLStd(body[:end]); err != nil && !strings.HasSuffix(err.Rule, "unexpected EOF") {
			t.Fatalf("refused a repeated attribute (%v) after an error encoding/xml finds: %v", gotErr, err)
		}
		return true
	case repeated && wantErr == nil:
		t.Fatalf("took a repeated attribute: %v", gotErr)
	case gotErr != nil && gotErr.Rule == "DOCTYPE and other <!...> declarations are not allowed" &&
		wantErr != nil && notWellFormed(wantErr) && strings.HasSuffix(wantErr.Rule, "unexpected EOF"):
		return true
	}
	return false
}

// firstRepeatedAttr finds, by encoding/xml's raw tokens, the first start
// tag that repeats an attribute name, and returns the offset of its end.
func firstRepeatedAttr(body []byte) (int, bool) {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.CharsetReader = charsetReaderStd
	for {
		tok, err := d.RawToken()
		if err != nil {
			return 0, false
		}
		if se, ok := tok.(xml.StartElement); ok {
			if _, ok := repeatedAttr(se.Attr); ok {
				return int(d.InputOffset()), true
			}
		}
	}
}

// xnodeDiff describes the first difference between two trees, "" if none.
// Empty and nil lists are the same.
func xnodeDiff(a, b *xnode, path string) string {
	path += "/" + a.name
	switch {
	case a.name != b.name:
		return fmt.Sprintf("%s: name %q, encoding/xml %q", path, a.name, b.name)
	case a.text != b.text:
		return fmt.Sprintf("%s: text %q, encoding/xml %q", path, a.text, b.text)
	case len(a.attrs) != len(b.attrs):
		return fmt.Sprintf("%s: attributes %v, encoding/xml %v", path, a.attrs, b.attrs)
	case len(a.kids) != len(b.kids):
		return fmt.Sprintf("%s: %d children, encoding/xml %d", path, len(a.kids), len(b.kids))
	}
	for i := range a.attrs {
		if a.attrs[i] != b.attrs[i] {
			return fmt.Sprintf("%s: attribute %v, encoding/xml %v", path, a.attrs[i], b.attrs[i])
		}
	}
	for i := range a.kids {
		if d := xnodeDiff(a.kids[i], b.kids[i], path); d != "" {
			return d
		}
	}
	return ""
}
