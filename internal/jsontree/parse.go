package jsontree

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// decoders are reused: a decoder's state is a few hundred bytes.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// noInput is what a pooled decoder reads between uses, so that it keeps
// no body alive.
var noInput = new(bytes.Buffer)

// Parse reads body as one JSON value into a tree, from the tokens of a
// jsontext.Decoder (the implementation behind encoding/json/v2): RFC 8259
// syntax, valid UTF-8 (no lone surrogate escape either) and no object
// repeating a member name (after unescaping) are the decoder's checks;
// lim's bounds are Parse's. Of several faults in one body, the first met
// reading it is reported.
func Parse(body []byte, lim Limits) (*Node, *Error) {
	if lim.UTF8First && !utf8.Valid(body) {
		return nil, &Error{Fault: InvalidUTF8}
	}
	if len(trimSpace(body)) == 0 {
		return nil, &Error{Fault: Empty}
	}
	p := &parser{lim: lim, d: decoders.Get().(*jsontext.Decoder), path: make([]Step, 0, min(lim.Depth, 64))}
	// A bytes.Buffer is read in place, without a copy.
	p.d.Reset(bytes.NewBuffer(body))
	defer func() {
		p.d.Reset(noInput)
		decoders.Put(p.d)
	}()
	n := p.value(0)
	if p.err != nil {
		return nil, p.err
	}
	if len(trimSpace(body[p.d.InputOffset():])) != 0 {
		return nil, &Error{Fault: Trailing, Read: n.Members, Value: n}
	}
	return n, nil
}

// trimSpace drops the white space RFC 8259 allows before b's first token.
func trimSpace(b []byte) []byte {
	return bytes.TrimLeft(b, " \t\r\n")
}

type parser struct {
	lim    Limits
	d      *jsontext.Decoder
	values int
	err    *Error
	// path is where the value being read sits, from the root; it is only
	// copied out for an error.
	path []Step
	// slab holds the nodes, allocated a chunk at a time; members and
	// items are the scratch stacks of the objects and arrays being read.
	slab    []Node
	members []Member
	items   []*Node
}

// nodeChunk is how many nodes are allocated at once: a small request
// holds a few dozen values.
const nodeChunk = 64

// node returns a new node holding v.
func (p *parser) node(v Node) *Node {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]Node, 0, nodeChunk)
	}
	p.slab = append(p.slab, v)
	return &p.slab[len(p.slab)-1]
}

// fail keeps the first fault, at the value being read.
func (p *parser) fail(e Error) {
	if p.err == nil {
		e.Path = append([]Step(nil), p.path...)
		p.err = &e
	}
}

// readError keeps what the decoder found wrong at the value being read (a
// repeated member: at that member).
func (p *parser) readError(err error) {
	var se *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		p.fail(Error{Fault: Truncated})
	case errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName):
		name := se.JSONPointer.LastToken()
		p.path = append(p.path, Step{Name: name, Index: -1})
		p.fail(Error{Fault: Duplicate, Name: name})
	case errors.As(err, &se) && se.Err != nil:
		p.fail(Error{Fault: Syntax, Offset: se.ByteOffset, Detail: se.Err.Error()})
	default:
		p.fail(Error{Fault: Unreadable, Detail: err.Error()})
	}
}

// value reads the value at the end of p.path, at nesting depth (the
// containers around it); nil after a fault.
func (p *parser) value(depth int) *Node {
	tok, err := p.d.ReadToken()
	if err != nil {
		p.readError(err)
		return nil
	}
	if p.values++; p.values > p.lim.Values {
		p.fail(Error{Fault: TooManyValues})
		return nil
	}
	switch k := tok.Kind(); k {
	case jsontext.KindBeginObject, jsontext.KindBeginArray:
		if depth >= p.lim.Depth {
			p.fail(Error{Fault: TooDeep})
			return nil
		}
		if k == jsontext.KindBeginObject {
			return p.object(depth + 1)
		}
		return p.array(depth + 1)
	case jsontext.KindString:
		s := tok.String()
		if p.lim.String > 0 && len(s) > p.lim.String {
			p.fail(Error{Fault: StringTooLong})
			return nil
		}
		return p.node(Node{Kind: String, Text: s})
	case jsontext.KindNumber:
		s := tok.String() // the number as written
		if p.lim.String > 0 && len(s) > p.lim.String {
			p.fail(Error{Fault: NumberTooLong})
			return nil
		}
		return p.node(Node{Kind: Number, Text: s})
	case jsontext.KindTrue:
		return p.node(Node{Kind: Bool, Bool: true})
	case jsontext.KindFalse:
		return p.node(Node{Kind: Bool})
	case jsontext.KindNull:
		return p.node(Node{Kind: Null})
	}
	// The decoder returns no other token where a value begins.
	p.fail(Error{Fault: Unreadable, Detail: "unexpected " + tok.Kind().String()})
	return nil
}

// array reads the items of an array after its '['.
func (p *parser) array(depth int) *Node {
	// The items gather on p.items (shared by the arrays being read, each
	// above its parent's) and are copied out once, at the array's end.
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	for i := 0; ; i++ {
		if p.d.PeekKind() == jsontext.KindEndArray {
			if _, err := p.d.ReadToken(); err != nil {
				p.readError(err)
				return nil
			}
			n := p.node(Node{Kind: Array})
			if i > 0 {
				n.Items = append([]*Node(nil), p.items[base:]...)
			}
			return n
		}
		p.path = append(p.path, Step{Index: i})
		if p.lim.Items > 0 && i >= p.lim.Items {
			p.fail(Error{Fault: TooManyItems})
			return nil
		}
		item := p.value(depth)
		if item == nil {
			return nil
		}
		p.path = p.path[:len(p.path)-1]
		p.items = append(p.items, item)
	}
}

// object reads the members of an object after its '{'.
func (p *parser) object(depth int) *Node {
	// The members gather on p.members, as items do on p.items.
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	for {
		if p.d.PeekKind() == jsontext.KindEndObject {
			if _, err := p.d.ReadToken(); err != nil {
				p.readError(err)
				return nil
			}
			n := p.node(Node{Kind: Object})
			if len(p.members) > base {
				n.Members = append([]Member(nil), p.members[base:]...)
			}
			return n
		}
		if p.d.PeekKind() != '"' {
			// Not a name: the decoder's token read says what is wrong.
			_, err := p.d.ReadToken()
			if err == nil {
				err = errors.New("an object member name that is not a string")
			}
			p.readError(err)
			return p.abandon(depth, base)
		}
		raw, err := p.d.ReadValue() // the name, quoted, checked by the decoder
		if err != nil {
			p.readError(err)
			return p.abandon(depth, base)
		}
		name, ok := p.memberName(raw)
		if !ok {
			p.fail(Error{Fault: Unreadable, Detail: "an object member name that cannot be read"})
			return p.abandon(depth, base)
		}
		if p.lim.String > 0 && len(name) > p.lim.String {
			p.fail(Error{Fault: StringTooLong})
			return p.abandon(depth, base)
		}
		p.path = append(p.path, Step{Name: name, Index: -1})
		v := p.value(depth)
		if v == nil {
			return p.abandon(depth, base)
		}
		p.path = p.path[:len(p.path)-1]
		p.members = append(p.members, Member{Name: name, Value: v})
	}
}

// abandon gives up an object after a fault; the root object's members
// read so far go with the error.
func (p *parser) abandon(depth, base int) *Node {
	if depth == 1 && p.err != nil && len(p.members) > base {
		p.err.Read = append([]Member(nil), p.members[base:]...)
	}
	return nil
}

// memberName unquotes a member name the decoder read (raw, quoted, valid
// JSON): a name of Limits.Names written without escapes costs no
// allocation.
func (p *parser) memberName(raw jsontext.Value) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		if n, ok := p.lim.Names[string(inner)]; ok {
			return n, true
		}
		return string(inner), true
	}
	b, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// NullItem finds, in the JSON text body, the first null that stands
// where a value is always expected: the whole body, or an item of an
// array. encoding/json/v2 reads such a null as the zero value (an empty
// object, an empty string), so a reader that then checks what it got
// would say "offerId is required" of [null] rather than that the item is
// null; NullItem lets it say that first. It returns the null's JSON
// Pointer (RFC 6901: "" for the body, "/offers/0"), and false when there
// is none or body is not JSON (the decoder that follows says why).
func NullItem(body []byte) (pointer string, found bool) {
	if !bytes.Contains(body, []byte("null")) {
		return "", false
	}
	d := decoders.Get().(*jsontext.Decoder)
	d.Reset(bytes.NewBuffer(body))
	defer func() {
		d.Reset(noInput)
		decoders.Put(d)
	}()
	for first := true; ; first = false {
		tok, err := d.ReadToken()
		if err != nil {
			return "", false
		}
		depth := d.StackDepth()
		switch parent, _ := d.StackIndex(depth); {
		case tok.Kind() == 'n' && (first || parent == '['):
			return string(d.StackPointer()), true
		case depth == 0:
			// The body's value is read; what follows is not this
			// reader's to judge.
			return "", false
		}
	}
}
