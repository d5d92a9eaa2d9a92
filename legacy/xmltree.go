package legacy

import (
	"bytes"
	"encoding/xml"
	"strings"
	"unicode"
)

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

// parseXML reads body into a tree, bounded by MaxDepth and MaxElements. It
// refuses DTDs and other directives (no entity can be declared, so none
// expands), unknown entities, undeclared element prefixes, any namespace
// but Namespace, repeated attributes, and anything after the root element.
// It reads what encoding/xml's strict mode reads (xmlscan.go says where it
// is stricter) at a fraction of the cost: see xmlScanner.
func parseXML(body []byte) (*xnode, xmlHead, *Error) {
	s := &xmlScanner{b: body, text: string(body)}
	s.open = s.openBuf[:0]
	s.pending = s.pendingBuf[:0]
	s.tag = s.tagBuf[:0]
	s.document()
	if s.err != nil {
		return nil, s.head, s.err
	}
	return s.root, s.head, nil
}

// xopen is an element parseXML has not seen the end of.
type xopen struct {
	node  *xnode
	raw   string // its name as written, to match the end tag
	decls int    // namespace declarations in scope before it
	kids  int    // where its children start in xmlScanner.pending
}

// nsDecl is a namespace declaration in scope.
type nsDecl struct {
	prefix string // "" for the default namespace
	uri    string
}

// openElement takes the start tag just read: raw is its name as written,
// s.tag its attributes. The checks run in the order the encoding/xml-based
// parser ran them, so both report the same first error.
func (s *xmlScanner) openElement(raw, prefix, local string) {
	if s.done {
		s.fail("", "only one root element is allowed", nil)
		return
	}
	s.count++
	if s.count > MaxElements {
		s.fail("", "has more than 1024 elements", nil)
		return
	}
	if len(s.open) >= MaxDepth {
		s.fail("", "nests elements deeper than 8", nil)
		return
	}
	n := s.node()
	n.name = local
	scope := len(s.decls)
	kept := 0
	for _, a := range s.tag {
		switch {
		case a.Name.Space == "xmlns":
			s.decls = append(s.decls, nsDecl{prefix: a.Name.Local, uri: a.Value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			s.decls = append(s.decls, nsDecl{uri: a.Value})
		default:
			kept++
		}
	}
	if kept > 0 {
		n.attrs = s.attrList(kept)
		for _, a := range s.tag {
			if a.Name.Space != "xmlns" && (a.Name.Space != "" || a.Name.Local != "xmlns") {
				n.attrs = append(n.attrs, a)
			}
		}
	}
	space, ok := s.resolve(prefix)
	if !ok {
		s.syntax("undeclared namespace prefix " + quoteShort(prefix))
		return
	}
	if s.root == nil {
		s.root = n
		s.head.namespaced = space == Namespace
		for _, a := range n.attrs {
			if a.Name.Space == "" && a.Name.Local == "messageId" && validMessageID(a.Value) {
				s.head.messageID = a.Value
			}
		}
	} else {
		s.pending = append(s.pending, n)
	}
	if want := nsOf(s.head.namespaced); space != want {
		if len(s.open) == 0 {
			s.fail(shortName(n.name), "must be in namespace "+Namespace+" or in none, not in "+quoteShort(space), nil)
			return
		}
		s.fail(xmlElementPath(s.open[1:], n), "must be in the namespace of the root element ("+quoteShort(want)+"), not in "+quoteShort(space), nil)
		return
	}
	if a, ok := repeatedAttr(s.tag); ok {
		name := a.Name.Local
		if a.Name.Space != "" {
			name = a.Name.Space + ":" + name
		}
		field := "@" + shortName(name)
		if len(s.open) > 0 {
			field = xmlElementPath(s.open[1:], n) + "/" + field
		}
		s.fail(field, ruleOnce, nil)
		return
	}
	s.open = append(s.open, xopen{node: n, raw: raw, decls: scope, kids: len(s.pending)})
}

// closeElement takes the end tag raw (local is its local name): it must
// close the innermost open element, named the same way.
func (s *xmlScanner) closeElement(raw, local string) {
	if len(s.open) == 0 {
		s.syntax("unexpected end element </" + shortName(local) + ">")
		return
	}
	top := s.open[len(s.open)-1]
	if raw != top.raw {
		s.syntax("element <" + shortName(top.node.name) + "> closed by </" + shortName(local) + ">")
		return
	}
	top.node.text = strings.TrimSpace(top.node.text)
	if k := len(s.pending) - top.kids; k > 0 {
		if len(s.kidSlab) < k {
			s.kidSlab = make([]*xnode, max(k, 32))
		}
		top.node.kids, s.kidSlab = s.kidSlab[:k:k], s.kidSlab[k:]
		copy(top.node.kids, s.pending[top.kids:])
		s.pending = s.pending[:top.kids]
	}
	s.decls = s.decls[:top.decls]
	s.open = s.open[:len(s.open)-1]
	if len(s.open) == 0 {
		s.done = true
	}
}

// addText takes character data: outside the root only white space is
// allowed; inside, it is added to the innermost open element.
func (s *xmlScanner) addText(p piece) {
	if len(s.open) == 0 {
		if len(bytes.TrimSpace(p.b)) != 0 {
			s.fail("", "text outside the root element is not allowed", nil)
		}
		return
	}
	// Leading white space is dropped here, the rest trimmed at the end
	// tag: the indentation between elements is never copied.
	n := s.open[len(s.open)-1].node
	if n.text != "" {
		n.text += s.str(p)
	} else if p = p.trimLeft(); len(p.b) != 0 {
		n.text = s.str(p)
	}
}

// resolve returns the namespace of prefix; ok is false if it is not
// declared. No prefix and no default declaration is no namespace.
func (s *xmlScanner) resolve(prefix string) (string, bool) {
	for i := len(s.decls) - 1; i >= 0; i-- {
		if s.decls[i].prefix == prefix {
			return s.decls[i].uri, true
		}
	}
	return "", prefix == ""
}

// repeatedAttr returns the first attribute of a start tag whose name, as
// written, an earlier one has. XML forbids it; encoding/xml let it
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

// node returns a new node, carved from a slab: a few allocations for all.
func (s *xmlScanner) node() *xnode {
	if len(s.slab) == 0 {
		s.slab = make([]xnode, 16)
	}
	n := &s.slab[0]
	s.slab = s.slab[1:]
	return n
}

// attrList returns an empty list with room for n attributes, carved from a
// slab.
func (s *xmlScanner) attrList(n int) []xml.Attr {
	if len(s.attrSlab) < n {
		s.attrSlab = make([]xml.Attr, max(n, 8))
	}
	a := s.attrSlab[:0:n]
	s.attrSlab = s.attrSlab[n:]
	return a
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
	for _, p := range below {
		b.WriteString(shortName(p.node.name))
		b.WriteByte('/')
	}
	b.WriteString(shortName(n.name))
	return b.String()
}

// piece is decoded character data: a slice of the input where nothing
// needed replacing (off is where it starts), or of xmlScanner.buf (off < 0).
type piece struct {
	b   []byte
	off int
}

func (p piece) trimLeft() piece {
	t := bytes.TrimLeftFunc(p.b, unicode.IsSpace)
	if p.off >= 0 {
		p.off += len(p.b) - len(t)
	}
	p.b = t
	return p
}

// str returns p as a string, cut from the input's string where it can be.
func (s *xmlScanner) str(p piece) string {
	if p.off >= 0 {
		return s.text[p.off : p.off+len(p.b)]
	}
	return string(p.b)
}
