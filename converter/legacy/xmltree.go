package legacy

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode"
)

// xnode is one XML element read by parseXML.
type xnode struct {
	name  string     // local name
	attrs []xml.Attr // without namespace declarations
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
// expands), unknown entities, any namespace but Namespace, and anything
// after the root element. It uses RawToken and resolves namespaces and
// matches end tags itself: Token does the same at about twice the
// allocations.
func parseXML(body []byte) (*xnode, xmlHead, *Error) {
	var head xmlHead
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = true
	d.CharsetReader = charsetReader
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
		stack   = make([]xopen, 0, MaxDepth)
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
				return fail(xmlElementPath(stack[1:], n), "must be in the namespace of the root element ("+quoteShort(want)+"), not in "+quoteShort(space), nil)
			}
			stack = append(stack, xopen{node: n, raw: t.Name, decls: scope, kids: len(pending)})
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

func nsOf(namespaced bool) string {
	if namespaced {
		return Namespace
	}
	return ""
}

// xopen is an element parseXML has not seen the end of.
type xopen struct {
	node  *xnode
	raw   xml.Name // as written, to match the end tag
	decls int      // namespace declarations in scope before it
	kids  int      // where its children start in parseXML's pending
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

// charsetReader lets an XML declaration name US-ASCII or ISO-8859-1, which
// older legacy systems still write; other encodings are refused.
func charsetReader(charset string, input io.Reader) (io.Reader, error) {
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
