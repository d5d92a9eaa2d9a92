package legacy

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// xmlScanner reads a legacy XML message straight from its bytes into an
// xnode tree. encoding/xml cost about a hundred allocations for a message
// of a dozen elements (a token, a name and an attribute slice per tag, a
// copy of every text); this reads the same language with names, values and
// texts cut from one string copy of the body and a few slabs.
//
// It reads what encoding/xml's strict mode read, byte for byte the same
// way: references, CR LF, the XML declaration's version and encoding, what
// counts as a name and as a character, the same syntax errors. It is
// stricter in two places: an attribute repeated in a start tag is refused
// (XML requires it), and a directive (<!DOCTYPE ...) is refused as soon
// as it starts rather than once it is read to its end.
// xmltree_oracle_test.go keeps the encoding/xml-based parser it replaced,
// and FuzzXMLScannerMatchesEncodingXML holds the two to the same trees and
// errors.
type xmlScanner struct {
	b     []byte // the input; after an ISO-8859-1 declaration, the rest of it converted
	text  string // b as a string, which names and plain values are cut from
	i     int    // read position in b
	lines int    // newlines read before b (ISO-8859-1 switch)
	buf   []byte // character data that needed replacing, decoded

	// charErr is why a character of the character data being read is
	// invalid: reported when all of it is read.
	charErr string

	head     xmlHead
	root     *xnode
	open     []xopen    // the elements not yet closed
	pending  []*xnode   // children of the open elements, in document order
	decls    []nsDecl   // namespace declarations in scope
	tag      []xml.Attr // the attributes of the start tag being read
	slab     []xnode    // nodes are carved from here,
	attrSlab []xml.Attr // attribute lists from here,
	kidSlab  []*xnode   // and child lists from here
	count    int
	done     bool // the root element is closed
	err      *Error

	// Backing arrays for open, pending and tag, so that a usual message
	// needs no allocation for them.
	openBuf    [MaxDepth]xopen
	pendingBuf [16]*xnode
	tagBuf     [4]xml.Attr
}

// fail records the first error; later ones are consequences.
func (s *xmlScanner) fail(field, rule string, err error) {
	if s.err == nil {
		s.err = &Error{Code: CodeInvalidMessage, Field: field, Rule: rule,
			MessageID: strings.Clone(s.head.messageID), Namespaced: s.head.namespaced, Err: err}
	}
}

// syntax fails with a well-formedness error at the read position.
func (s *xmlScanner) syntax(msg string) {
	if s.err == nil {
		line := 1 + s.lines + bytes.Count(s.b[:min(s.i, len(s.b))], []byte{'\n'})
		s.fail("", "is not well-formed XML (line "+strconv.Itoa(line)+"): "+shortMsg(msg), nil)
	}
}

// document reads the whole input: markup and character data, then checks
// that it held one complete root element.
func (s *xmlScanner) document() {
	for s.err == nil {
		if s.i >= len(s.b) {
			switch {
			case s.root == nil:
				s.fail("", "the message is empty: an XML root element is required", nil)
			case !s.done:
				s.syntax("unexpected EOF")
			}
			return
		}
		if s.b[s.i] != '<' {
			if p, ok := s.chars(0); ok {
				s.addText(p)
			}
			continue
		}
		s.i++
		c, ok := s.peek()
		if !ok {
			return
		}
		switch c {
		case '/':
			s.i++
			s.endTag()
		case '?':
			s.i++
			s.procInst()
		case '!':
			s.i++
			s.bang()
		default:
			s.startTag()
		}
	}
}

// peek returns the byte at the read position. Inside markup the input may
// not end: there it fails with "unexpected EOF".
func (s *xmlScanner) peek() (byte, bool) {
	if s.i >= len(s.b) {
		s.syntax("unexpected EOF")
		return 0, false
	}
	return s.b[s.i], true
}

// expect reads byte c, failing with msg if another byte is there. That
// byte counts as read, as in encoding/xml, so both tell the same line.
func (s *xmlScanner) expect(c byte, msg string) bool {
	got, ok := s.peek()
	if !ok {
		return false
	}
	s.i++
	if got != c {
		s.syntax(msg)
		return false
	}
	return true
}

// space skips XML white space.
func (s *xmlScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// startTag reads a start tag after its '<', and an empty-element tag's end.
func (s *xmlScanner) startTag() {
	raw, prefix, local, ok := s.qname()
	if !ok {
		s.syntax("expected element name after <")
		return
	}
	s.tag = s.tag[:0]
	for {
		s.space()
		c, ok := s.peek()
		if !ok {
			return
		}
		if c == '>' || c == '/' {
			s.i++
			if c == '/' && !s.expect('>', "expected /> in element") {
				return
			}
			s.openElement(raw, prefix, local)
			if c == '/' && s.err == nil {
				s.closeElement(raw, local)
			}
			return
		}
		_, aprefix, alocal, ok := s.qname()
		if !ok {
			s.syntax("expected attribute name in element")
			return
		}
		s.space()
		if !s.expect('=', "attribute name without = in element") {
			return
		}
		s.space()
		quote, ok := s.peek()
		if !ok {
			return
		}
		s.i++
		if quote != '"' && quote != '\'' {
			s.syntax("unquoted or missing attribute value in element")
			return
		}
		v, ok := s.chars(quote)
		if !ok {
			return
		}
		s.tag = append(s.tag, xml.Attr{Name: xml.Name{Space: aprefix, Local: alocal}, Value: s.str(v)})
	}
}

// endTag reads an end tag after its "</".
func (s *xmlScanner) endTag() {
	raw, _, local, ok := s.qname()
	if !ok {
		s.syntax("expected element name after </")
		return
	}
	s.space()
	c, ok := s.peek()
	if !ok {
		return
	}
	s.i++
	if c != '>' {
		s.syntax("invalid characters between </" + local + " and >")
		return
	}
	s.closeElement(raw, local)
}

// procInst reads a processing instruction after its "<?". Only the XML
// declaration means anything: its version and encoding are checked.
func (s *xmlScanner) procInst() {
	target, ok := s.name()
	if !ok {
		s.syntax("expected target name after <?")
		return
	}
	s.space()
	end := bytes.Index(s.b[s.i:], []byte("?>"))
	if end < 0 {
		s.i = len(s.b)
		s.syntax("unexpected EOF")
		return
	}
	content := s.text[s.i : s.i+end]
	s.i += end + 2
	if target == "xml" {
		s.declaration(content)
	}
}

// declaration checks an XML declaration's version and takes its encoding,
// as encoding/xml did wherever the declaration stands.
func (s *xmlScanner) declaration(content string) {
	if v := declParam("version=", content); v != "" && v != "1.0" {
		err := fmt.Errorf("xml: unsupported version %q; only version 1.0 is supported", v)
		s.fail("", "cannot be read: "+shortMsg(err.Error()), err)
		return
	}
	enc := declParam("encoding=", content)
	if enc == "" || strings.EqualFold(enc, "utf-8") {
		return
	}
	// Older legacy systems still write US-ASCII or ISO-8859-1.
	switch strings.ToLower(enc) {
	case "us-ascii", "ascii":
		// A subset of UTF-8: bytes above 127 are read as UTF-8, as before.
	case "iso-8859-1", "latin1", "iso_8859-1", "l1":
		// Each byte is the code point of the same number.
		s.lines += bytes.Count(s.b[:s.i], []byte{'\n'})
		rest := s.b[s.i:]
		utf := make([]byte, 0, 2*len(rest))
		for _, c := range rest {
			utf = utf8.AppendRune(utf, rune(c))
		}
		s.b, s.text, s.i = utf, string(utf), 0
	default:
		err := fmt.Errorf("xml: opening charset %q: %w", enc,
			errors.New("encoding "+quoteShort(enc)+" is not supported (use UTF-8)"))
		s.fail("", "cannot be read: "+shortMsg(err.Error()), err)
	}
}

// declParam returns the value of param="..." or param='...' (param ends
// in '=') in the content of an XML declaration, "" if there is none, found
// the way encoding/xml finds it: after the first param that a quote
// follows.
func declParam(param, s string) string {
	i := 0
	var quote byte
	for i < len(s) {
		sub := s[i:]
		k := strings.Index(sub, param)
		if k < 0 || len(param)+k >= len(sub) {
			return ""
		}
		i += len(param) + k + 1
		if c := sub[len(param)+k]; c == '\'' || c == '"' {
			quote = c
			break
		}
	}
	if quote == 0 {
		return ""
	}
	j := strings.IndexByte(s[i:], quote)
	if j < 0 {
		return ""
	}
	return s[i : i+j]
}

// bang reads what starts with "<!": a comment or a CDATA section. Anything
// else is a directive (DOCTYPE, ENTITY...), refused at once: it could only
// declare entities, which legacy messages never need.
func (s *xmlScanner) bang() {
	c, ok := s.peek()
	if !ok {
		return
	}
	switch c {
	case '-':
		s.i++
		s.comment()
	case '[':
		s.i++
		for k := 0; k < len("CDATA["); k++ {
			if !s.expect("CDATA["[k], "invalid <![ sequence") {
				return
			}
		}
		s.cdata()
	default:
		s.fail("", "DOCTYPE and other <!...> declarations are not allowed", nil)
	}
}

// comment skips a comment after its "<!-". "--" may only end it.
func (s *xmlScanner) comment() {
	if !s.expect('-', "invalid sequence <!- not part of <!--") {
		return
	}
	end := bytes.Index(s.b[s.i:], []byte("--"))
	if end < 0 {
		s.i = len(s.b)
		s.syntax("unexpected EOF")
		return
	}
	s.i += end + 2
	s.expect('>', `invalid sequence "--" not allowed in comments`)
}

// cdata reads a CDATA section after its "<![CDATA[": text taken as it
// stands but for line ends.
func (s *xmlScanner) cdata() {
	start := s.i
	end := bytes.Index(s.b[s.i:], []byte("]]>"))
	if end < 0 {
		s.i = len(s.b)
		s.syntax("unexpected EOF in CDATA section")
		return
	}
	s.i += end + 3
	p := piece{b: s.b[start : start+end], off: start}
	if bytes.IndexByte(p.b, '\r') >= 0 {
		s.buf = s.buf[:0]
		for k, c := range p.b {
			switch {
			case c == '\r':
				s.buf = append(s.buf, '\n')
			case c == '\n' && k > 0 && p.b[k-1] == '\r':
				// the LF of a CR LF, written already
			default:
				s.buf = append(s.buf, c)
			}
		}
		p = piece{b: s.buf, off: -1}
	}
	s.charErr = ""
	for k := 0; k < len(p.b); {
		r, size := utf8.DecodeRune(p.b[k:])
		s.check(r, size)
		k += size
	}
	if s.charErr != "" {
		s.syntax(s.charErr)
		return
	}
	s.addText(p)
}

// chars reads character data: text up to the next '<' or the end (quote
// 0), or an attribute value up to and past its closing quote. References
// are replaced, CR LF and CR become LF, every character must be an XML
// Char in valid UTF-8, and text may not hold "]]>". Tabs and line feeds in
// attribute values are kept: encoding/xml did not normalise them. The
// result is left in place when nothing needed replacing, as is usual.
//
// A character found invalid is reported once the run is read, as
// encoding/xml did, so both name the same first error.
func (s *xmlScanner) chars(quote byte) (piece, bool) {
	start := s.i
	s.charErr = ""
	inPlace := true
	for {
		from := s.i
		if !s.plain(quote, start) {
			return piece{}, false
		}
		if !inPlace {
			s.buf = append(s.buf, s.b[from:s.i]...)
		}
		if s.i == len(s.b) || s.b[s.i] == '<' && quote == 0 || quote != 0 && s.b[s.i] == quote {
			break
		}
		if s.b[s.i] == '<' {
			s.syntax("unescaped < inside quoted string")
			return piece{}, false
		}
		if inPlace {
			s.buf = append(s.buf[:0], s.b[start:s.i]...)
			inPlace = false
		}
		if s.b[s.i] == '&' {
			r, ok := s.reference()
			if !ok {
				return piece{}, false
			}
			s.check(r, utf8.RuneLen(r))
			s.buf = utf8.AppendRune(s.buf, r)
			continue
		}
		s.buf = append(s.buf, '\n') // for CR, and CR LF
		s.i++
		if s.i < len(s.b) && s.b[s.i] == '\n' {
			s.i++
		}
	}
	switch {
	case s.charErr != "":
		s.syntax(s.charErr)
		return piece{}, false
	case s.i == len(s.b) && quote != 0:
		s.syntax("unexpected EOF")
		return piece{}, false
	}
	p := piece{b: s.b[start:s.i], off: start}
	if !inPlace {
		p = piece{b: s.buf, off: -1}
	}
	if quote != 0 {
		s.i++ // past the closing quote
	}
	return p, true
}

// plain skips the characters chars takes as they are, checking them, and
// stops at the end, at '<', '&', CR or the quote. start is where the
// character data began, for the "]]>" check.
func (s *xmlScanner) plain(quote byte, start int) bool {
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s.b[s.i:])
			s.check(r, size)
			s.i += size
			continue
		case c == '<' || c == '&' || c == '\r' || quote != 0 && c == quote:
			return true
		case c < ' ' && c != '\t' && c != '\n':
			s.check(rune(c), 1)
		case c == '>' && quote == 0 && s.i-start >= 2 && s.b[s.i-1] == ']' && s.b[s.i-2] == ']':
			s.syntax("unescaped ]]> not in CDATA section")
			return false
		}
		s.i++
	}
	return true
}

// check notes in charErr, unless it holds an earlier one, why r (size
// bytes of input) is not a character XML allows, if it is not.
func (s *xmlScanner) check(r rune, size int) {
	switch {
	case s.charErr != "":
	case r == utf8.RuneError && size == 1:
		s.charErr = "invalid UTF-8"
	case !isXMLChar(r):
		s.charErr = fmt.Sprintf("illegal character code %U", r)
	}
}

// reference reads a reference at '&': &#N; or &#xN; (a lower-case x), or
// one of the five entities XML predefines. No other entity can exist, as
// no DTD is read.
func (s *xmlScanner) reference() (rune, bool) {
	start := s.i
	s.i++
	c, ok := s.peek()
	if !ok {
		return 0, false
	}
	if c == '#' {
		return s.charRef(start)
	}
	for s.i < len(s.b) && (s.b[s.i] >= utf8.RuneSelf || isNameByte(s.b[s.i])) {
		s.i++
	}
	if c, ok = s.peek(); !ok {
		return 0, false
	}
	if c != ';' {
		s.syntax("invalid character entity " + s.text[start:s.i] + " (no semicolon)")
		return 0, false
	}
	s.i++
	switch s.text[start+1 : s.i-1] {
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "amp":
		return '&', true
	case "apos":
		return '\'', true
	case "quot":
		return '"', true
	}
	s.syntax("invalid character entity " + s.text[start:s.i])
	return 0, false
}

// charRef reads a character reference after its "&". A surrogate's number
// stands for U+FFFD, as in encoding/xml.
func (s *xmlScanner) charRef(start int) (rune, bool) {
	s.i++ // '#'
	c, ok := s.peek()
	if !ok {
		return 0, false
	}
	base := rune(10)
	if c == 'x' {
		base = 16
		s.i++
	}
	digits := s.i
	var n rune
	for {
		if c, ok = s.peek(); !ok {
			return 0, false
		}
		d := digitValue(c, base)
		if d < 0 {
			break
		}
		n = min(n*base+d, unicode.MaxRune+1) // past the largest, any is too large
		s.i++
	}
	if c != ';' {
		s.syntax("invalid character entity " + s.text[start:s.i] + " (no semicolon)")
		return 0, false
	}
	s.i++
	if s.i-1 == digits || n > unicode.MaxRune {
		s.syntax("invalid character entity " + s.text[start:s.i])
		return 0, false
	}
	if !utf8.ValidRune(n) {
		n = utf8.RuneError
	}
	return n, true
}

// digitValue is the value of digit c in base 10 or 16, or -1.
func digitValue(c byte, base rune) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case base == 16 && c >= 'a' && c <= 'f':
		return rune(c-'a') + 10
	case base == 16 && c >= 'A' && c <= 'F':
		return rune(c-'A') + 10
	}
	return -1
}

// qname reads an element or attribute name and splits it at its colon, as
// encoding/xml did: a name with two colons is no name, and one with a
// colon at either end has no prefix.
func (s *xmlScanner) qname() (raw, prefix, local string, ok bool) {
	raw, ok = s.name()
	if !ok {
		return "", "", "", false
	}
	c := strings.IndexByte(raw, ':')
	switch {
	case c < 0:
		return raw, "", raw, true
	case strings.IndexByte(raw[c+1:], ':') >= 0:
		return "", "", "", false
	case c == 0 || c == len(raw)-1:
		return raw, "", raw, true
	}
	return raw, raw[:c], raw[c+1:], true
}

// name reads an XML name as encoding/xml did: the run of ASCII name bytes
// and non-ASCII bytes at the read position, which must then be a valid
// name. ok is false, with no error yet, if there is no such byte.
func (s *xmlScanner) name() (string, bool) {
	start := s.i
	ascii := true
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c >= utf8.RuneSelf {
			ascii = false
		} else if !isNameByte(c) {
			break
		}
		s.i++
	}
	if s.i == len(s.b) {
		s.syntax("unexpected EOF")
		return "", false
	}
	if s.i == start {
		return "", false
	}
	name := s.text[start:s.i]
	if ascii && isNameStart(name[0]) || !ascii && isXMLName(name) {
		return name, true
	}
	s.syntax("invalid XML name: " + name)
	return "", false
}

// isNameByte reports whether c may stand in an XML name, as far as ASCII
// goes.
func isNameByte(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' ||
		c == '_' || c == ':' || c == '.' || c == '-'
}

// isNameStart reports whether ASCII c may begin an XML name.
func isNameStart(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c == '_' || c == ':'
}
