package legacy

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
)

// A message body is first read into a tree, an xnode or a jnode, by
// parseXML or parseJSON: strict, bounded by MaxDepth and MaxElements, and
// keeping the messageId read before any error for its correlationId. A
// reader then reads the fields of either tree with the same calls.

// xnode is one XML element read by parseXML.
type xnode struct {
	name  string     // local name
	attrs []xml.Attr // without namespace declarations; Name.Space is the prefix as written
	kids  []*xnode
	text  string // character data, surrounding white space trimmed
}

// xmlHead is what parseXML learns from the root start tag, so an error
// found later in the body can still be answered with a correlationId.
type xmlHead struct {
	messageID  string // the valid messageId attribute, or ""
	namespaced bool
}

// parseXML reads body into a tree with encoding/xml in strict mode,
// bounded by MaxDepth and MaxElements. It refuses DTDs and other
// directives (no entity can be declared, so none expands), unknown
// entities, undeclared element prefixes, any namespace but Namespace,
// an attribute repeated in a start tag (which XML forbids and encoding/xml
// lets through), and anything after the root element.
//
// It reads raw tokens and resolves namespaces and matches end tags itself:
// Token does the same at about twice the allocations.
func parseXML(body []byte) (*xnode, xmlHead, *Error) {
	body = bytes.TrimPrefix(body, utf8BOM)
	var p xmlParser
	p.d = xml.NewDecoder(bytes.NewReader(body))
	p.d.Strict = true
	p.d.CharsetReader = charsetReader
	// Every element has a start tag, so the "<" that start no end tag
	// bound the elements (declarations, comments and CDATA sections count
	// too): a usual message gets its nodes and child slots in two
	// allocations of the size it needs.
	n := min(max(bytes.Count(body, []byte("<"))-bytes.Count(body, []byte("</")), 1), firstSlab)
	p.slab = make([]xnode, n)
	slots := make([]*xnode, 2*n)
	p.pending, p.kidSlab = slots[:0:n], slots[n:]
	root := p.document()
	if p.err != nil {
		return nil, p.head, p.err
	}
	return root, p.head, nil
}

// utf8BOM is the byte order mark an editor or a .NET writer may put
// before a UTF-8 message; XML 1.0 (4.3.3) allows it and RFC 8259 lets a
// JSON reader ignore it, so it is skipped.
var utf8BOM = []byte("\xef\xbb\xbf")

// firstSlab bounds the nodes (and child slots) parseXML allocates before
// reading: a body of many "<" that are not elements costs no more.
const firstSlab = 64

// xmlParser holds the state of one parseXML. It lives on parseXML's
// stack: the open elements are an array, not a slice of its own memory.
type xmlParser struct {
	d       *xml.Decoder
	head    xmlHead
	err     *Error
	root    *xnode
	open    [MaxDepth]xopen // the elements not yet closed: open[:depth]
	depth   int
	pending []*xnode // children of the open elements, in document order
	kidSlab []*xnode // finished child lists are carved from here
	decls   []nsDecl // namespace declarations in scope
	slab    []xnode  // nodes are carved from here: a few allocations for all
	count   int
	done    bool // the root element is closed
}

// xopen is an element parseXML has not seen the end of.
type xopen struct {
	node  *xnode
	raw   xml.Name // its name as written (Space is the prefix), to match the end tag
	decls int      // namespace declarations in scope before it
	kids  int      // where its children start in xmlParser.pending
	// more collects the element's text when it comes in several pieces
	// (around comments, CDATA sections, children): appending each piece
	// to a string would copy the text so far every time, quadratic in a
	// body of a million one-byte pieces.
	more []byte
}

// below is the open elements under the root, outermost first.
func (p *xmlParser) below() []xopen { return p.open[1:p.depth] }

// nsDecl is a namespace declaration in scope.
type nsDecl struct {
	prefix string // "" for the default namespace
	uri    string
}

// fail records the first error; later ones are consequences.
func (p *xmlParser) fail(field, rule string, err error) {
	if p.err == nil {
		p.err = &Error{Code: CodeInvalidMessage, Field: field, Rule: rule,
			MessageID: p.head.messageID, Namespaced: p.head.namespaced, Err: err}
	}
}

// syntax fails with a well-formedness error at the decoder's line.
func (p *xmlParser) syntax(msg string) {
	line, _ := p.d.InputPos()
	p.fail("", "is not well-formed XML (line "+strconv.Itoa(line)+"): "+shortMsg(msg), nil)
}

// document reads every token and returns the root element.
func (p *xmlParser) document() *xnode {
	for p.err == nil {
		tok, err := p.d.RawToken()
		if err == io.EOF {
			switch {
			case p.root == nil:
				p.fail("", "the message is empty: an XML root element is required", nil)
			case !p.done:
				p.syntax("unexpected EOF")
			}
			return p.root
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				p.syntax(se.Msg)
			} else {
				p.fail("", "cannot be read: "+shortMsg(err.Error()), err)
			}
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			p.startElement(t)
		case xml.EndElement:
			p.endElement(t.Name)
		case xml.CharData:
			p.charData(t)
		case xml.Directive:
			p.fail("", "DOCTYPE and other <!...> declarations are not allowed", nil)
		case xml.ProcInst, xml.Comment:
			// The XML declaration (its version and encoding checked by
			// encoding/xml) and comments carry nothing.
		}
	}
	return nil
}

// startElement takes a start tag, checking bounds, namespaces and
// repeated attributes in that order.
func (p *xmlParser) startElement(t xml.StartElement) {
	if p.done {
		p.fail("", "only one root element is allowed", nil)
		return
	}
	p.count++
	if p.count > MaxElements {
		p.fail("", "has more than 1024 elements", nil)
		return
	}
	if p.depth >= MaxDepth {
		p.fail("", "nests elements deeper than 8", nil)
		return
	}
	// Found now, reported after the namespace checks: t.Attr is filtered
	// in place below (RawToken made it afresh).
	repeated, isRepeated := repeatedAttr(t.Attr)
	n := p.node()
	n.name = t.Name.Local
	scope := len(p.decls)
	n.attrs = t.Attr[:0]
	for _, a := range t.Attr {
		switch {
		case a.Name.Space == "xmlns":
			p.decls = append(p.decls, nsDecl{prefix: a.Name.Local, uri: a.Value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			p.decls = append(p.decls, nsDecl{uri: a.Value})
		default:
			n.attrs = append(n.attrs, a)
		}
	}
	space, ok := p.resolve(t.Name.Space)
	if !ok {
		p.syntax("undeclared namespace prefix " + quoteShort(t.Name.Space))
		return
	}
	if p.root == nil {
		p.root = n
		p.head.namespaced = space == Namespace
		for _, a := range n.attrs {
			// The first valid one, as of a JSON message's members.
			if a.Name.Space == "" && a.Name.Local == "messageId" && validMessageID(a.Value) && p.head.messageID == "" {
				p.head.messageID = a.Value
			}
		}
	} else {
		p.pending = append(p.pending, n)
	}
	if want := nsOf(p.head.namespaced); space != want {
		if p.depth == 0 {
			p.fail(shortName(n.name), "must be in namespace "+Namespace+" or in none, not in "+quoteShort(space), nil)
			return
		}
		p.fail(xmlElementPath(p.below(), n), "must be in the namespace of the root element ("+quoteShort(want)+"), not in "+quoteShort(space), nil)
		return
	}
	if a := repeated; isRepeated {
		name := a.Name.Local
		if a.Name.Space != "" {
			name = a.Name.Space + ":" + name
		}
		field := "@" + shortName(name)
		if p.depth > 0 {
			field = xmlElementPath(p.below(), n) + "/" + field
		}
		p.fail(field, ruleOnce, nil)
		return
	}
	p.open[p.depth] = xopen{node: n, raw: t.Name, decls: scope, kids: len(p.pending)}
	p.depth++
}

// endElement takes an end tag named raw (as written): it must close the
// innermost open element, named the same way.
func (p *xmlParser) endElement(raw xml.Name) {
	if p.depth == 0 {
		p.syntax("unexpected end element </" + shortName(raw.Local) + ">")
		return
	}
	top := p.open[p.depth-1]
	if raw != top.raw {
		p.syntax("element <" + shortName(top.raw.Local) + "> closed by </" + shortName(raw.Local) + ">")
		return
	}
	if top.more != nil {
		top.node.text = string(bytes.TrimSpace(top.more))
	} else {
		top.node.text = strings.TrimSpace(top.node.text)
	}
	if k := len(p.pending) - top.kids; k > 0 {
		if len(p.kidSlab) < k {
			p.kidSlab = make([]*xnode, max(k, 32))
		}
		top.node.kids, p.kidSlab = p.kidSlab[:k:k], p.kidSlab[k:]
		copy(top.node.kids, p.pending[top.kids:])
		p.pending = p.pending[:top.kids]
	}
	p.decls = p.decls[:top.decls]
	p.open[p.depth-1] = xopen{}
	p.depth--
	if p.depth == 0 {
		p.done = true
	}
}

// charData takes character data: outside the root only white space is
// allowed; inside, it is added to the innermost open element.
func (p *xmlParser) charData(t xml.CharData) {
	if p.depth == 0 {
		switch text := bytes.TrimSpace(t); {
		case p.root == nil && len(text) > 0 && (text[0] == '{' || text[0] == '['):
			p.fail("", "is not XML: it starts with "+strconv.Quote(string(text[:1]))+" as JSON does (a JSON message is sent with Content-Type application/json)", nil)
		case len(text) != 0:
			p.fail("", "text outside the root element is not allowed", nil)
		}
		return
	}
	// Leading white space is dropped here, the rest trimmed at the end
	// tag: the indentation between elements is never copied.
	top := &p.open[p.depth-1]
	switch n := top.node; {
	case top.more != nil:
		top.more = append(top.more, t...)
	case n.text != "":
		top.more = append([]byte(n.text), t...)
	default:
		if trimmed := bytes.TrimLeftFunc(t, unicode.IsSpace); len(trimmed) != 0 {
			n.text = string(trimmed)
		}
	}
}

// resolve returns the namespace of prefix; ok is false if it is not
// declared. No prefix and no default declaration is no namespace.
func (p *xmlParser) resolve(prefix string) (string, bool) {
	for i := len(p.decls) - 1; i >= 0; i-- {
		if p.decls[i].prefix == prefix {
			return p.decls[i].uri, true
		}
	}
	return "", prefix == ""
}

// node returns a new node, carved from a slab.
func (p *xmlParser) node() *xnode {
	if len(p.slab) == 0 {
		p.slab = make([]xnode, 16)
	}
	n := &p.slab[0]
	p.slab = p.slab[1:]
	return n
}

// repeatedAttr returns the first attribute of a start tag whose name, as
// written, an earlier one has. XML forbids it; encoding/xml lets it
// through. Tags have a few attributes, so a map is built only for a
// hostile one with many.
func repeatedAttr(tag []xml.Attr) (xml.Attr, bool) {
	if len(tag) <= 16 {
		for i := 1; i < len(tag); i++ {
			for j := 0; j < i; j++ {
				if tag[i].Name == tag[j].Name {
					return tag[i], true
				}
			}
		}
		return xml.Attr{}, false
	}
	seen := make(map[xml.Name]bool, len(tag))
	for _, a := range tag {
		if seen[a.Name] {
			return a, true
		}
		seen[a.Name] = true
	}
	return xml.Attr{}, false
}

func nsOf(namespaced bool) string {
	if namespaced {
		return Namespace
	}
	return ""
}

// xmlElementPath is the path of n under the open elements below the root.
func xmlElementPath(below []xopen, n *xnode) string {
	var b strings.Builder
	for _, o := range below {
		b.WriteString(shortName(o.node.name))
		b.WriteByte('/')
	}
	b.WriteString(shortName(n.name))
	return b.String()
}

// charsetReader lets an XML declaration name US-ASCII or ISO-8859-1, which
// older legacy systems still write; other encodings are refused.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "us-ascii", "ascii":
		// A subset of UTF-8: bytes above 127 are read as UTF-8.
		return input, nil
	case "iso-8859-1", "latin1", "iso_8859-1", "l1":
		// Each byte is the code point of the same number.
		b, err := io.ReadAll(input)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, 2*len(b))
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return bytes.NewReader(out), nil
	}
	return nil, errors.New("encoding " + quoteShort(charset) + " is not supported (use UTF-8)")
}

// jnode is one JSON value of a legacy message.
type jnode = jsontree.Node

// jsonLimits bound a legacy JSON message: MaxDepth and MaxElements.
var jsonLimits = jsontree.Limits{Depth: MaxDepth, Values: MaxElements}

// parseJSON reads body into a tree (see jsontree.Parse: RFC 8259 syntax,
// valid UTF-8, no object repeating a member name, bounded by MaxDepth and
// MaxElements). The body must be one object. The second result is the
// top-level messageId if it was read and is valid, so an error found
// later can still be answered with a correlationId.
func parseJSON(body []byte) (*jnode, string, *Error) {
	body = bytes.TrimPrefix(body, utf8BOM)
	root, jerr := jsontree.Parse(body, jsonLimits)
	if jerr == nil {
		return checkRoot(root, messageIDOf(root.Members))
	}
	id := messageIDOf(jerr.Read)
	fail := func(field, rule string) (*jnode, string, *Error) {
		return nil, id, &Error{Code: CodeInvalidMessage, Field: field, Rule: rule, MessageID: id}
	}
	field := jsonField(jerr.Path)
	switch jerr.Fault {
	case jsontree.Empty:
		return fail("", "the message is empty: a JSON object is required")
	case jsontree.Truncated:
		return fail(field, "is not well-formed JSON: unexpected end of input")
	case jsontree.Duplicate:
		return fail(field, ruleOnce)
	case jsontree.Syntax:
		if start := bytes.TrimLeft(body, " \t\r\n"); len(start) > 0 && start[0] == '<' {
			return fail("", "is not JSON: it starts with \"<\" as XML does (an XML message is sent with Content-Type application/xml or text/xml)")
		}
		return fail(field, "is not well-formed JSON at offset "+strconv.FormatInt(jerr.Offset, 10)+": "+shortMsg(jerr.Detail))
	case jsontree.TooDeep:
		return fail(field, "nests values deeper than "+strconv.Itoa(MaxDepth))
	case jsontree.TooManyValues:
		return fail(field, "has more than "+strconv.Itoa(MaxElements)+" values")
	case jsontree.Trailing:
		if _, _, err := checkRoot(jerr.Value, id); err != nil {
			return nil, id, err
		}
		return fail("", "only one JSON object is allowed")
	}
	return fail(field, "is not well-formed JSON: "+shortMsg(jerr.Detail))
}

// checkRoot refuses a message that is not an object.
func checkRoot(root *jnode, id string) (*jnode, string, *Error) {
	if root.Kind != jsontree.Object {
		return nil, id, &Error{Code: CodeInvalidMessage, Rule: "must be a JSON object, not " + root.Kind.String(), MessageID: id}
	}
	return root, id, nil
}

// messageIDOf is the valid string messageId among the top-level members,
// or "".
func messageIDOf(members []jsontree.Member) string {
	for _, m := range members {
		if m.Name == "messageId" && m.Value.Kind == jsontree.String && validMessageID(m.Value.Text) {
			return m.Value.Text
		}
	}
	return ""
}

// jsonField writes a path as a legacy error's field: "a.b[2].c", each
// name made short and safe.
func jsonField(path []jsontree.Step) string {
	var field strings.Builder
	for _, p := range path {
		switch {
		case p.Index >= 0:
			field.WriteString("[" + strconv.Itoa(p.Index) + "]")
		case p.Name == "":
			// An empty name is left out, as the message's own paths do.
		default:
			if field.Len() > 0 {
				field.WriteByte('.')
			}
			field.WriteString(shortName(p.Name))
		}
	}
	return field.String()
}
