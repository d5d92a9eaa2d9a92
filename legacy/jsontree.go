package legacy

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jObject
	jArray
	jString
	jNumber
	jBool
)

// jnode is one JSON value read by parseJSON.
type jnode struct {
	kind jkind
	s    string   // string value, or number text
	b    bool     // bool value
	keys []string // object keys, in order, no duplicates
	vals []*jnode // object values (parallel to keys) or array items
}

func (k jkind) String() string {
	return [...]string{"null", "an object", "an array", "a string", "a number", "a boolean"}[k]
}

// jsonParser builds the tree of a legacy JSON message from the tokens of
// a jsontext.Decoder (the implementation behind encoding/json/v2), which
// checks RFC 8259 syntax, valid UTF-8 and that no object repeats a member
// name (after unescaping). The tree is bounded by MaxDepth and
// MaxElements.
type jsonParser struct {
	d         *jsontext.Decoder
	body      []byte
	slab      []jnode
	count     int
	path      []jseg // open containers, for error messages
	messageID string
	err       *Error
}

// jseg is one step of a path: an object key, or an array index if key is
// unset.
type jseg struct {
	key   string
	index int
}

// jsonDecoders are reused: a decoder's state is a few hundred bytes.
var jsonDecoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// noInput is what a pooled decoder reads between uses, so that it keeps
// no message alive.
var noInput = new(bytes.Buffer)

// parseJSON reads body into a tree. The body must be one object. The second
// result is the top-level messageId if it was read and is valid, so an
// error found later can still be answered with a correlationId.
func parseJSON(body []byte) (*jnode, string, *Error) {
	s := &jsonParser{body: body}
	if len(trimJSONSpace(body)) == 0 {
		s.fail("the message is empty: a JSON object is required")
		return nil, "", s.err
	}
	s.d = jsonDecoders.Get().(*jsontext.Decoder)
	// A bytes.Buffer is read in place, without a copy.
	s.d.Reset(bytes.NewBuffer(body))
	defer func() {
		s.d.Reset(noInput)
		jsonDecoders.Put(s.d)
	}()
	root := s.value(0)
	if s.err != nil {
		return nil, s.messageID, s.err
	}
	if root.kind != jObject {
		s.fail("must be a JSON object, not " + root.kind.String())
		return nil, s.messageID, s.err
	}
	if len(trimJSONSpace(body[s.d.InputOffset():])) != 0 {
		s.fail("only one JSON object is allowed")
		return nil, s.messageID, s.err
	}
	return root, s.messageID, nil
}

// trimJSONSpace drops the white space RFC 8259 allows before b's first
// token.
func trimJSONSpace(b []byte) []byte {
	return bytes.TrimLeft(b, " \t\r\n")
}

func (s *jsonParser) fail(rule string) {
	if s.err != nil {
		return
	}
	var field strings.Builder
	for _, p := range s.path {
		if p.key == "" && p.index < 0 {
			continue
		}
		if p.key == "" {
			field.WriteString("[" + strconv.Itoa(p.index) + "]")
			continue
		}
		if field.Len() > 0 {
			field.WriteByte('.')
		}
		field.WriteString(shortName(p.key))
	}
	s.err = &Error{Code: CodeInvalidMessage, Field: field.String(), Rule: rule, MessageID: s.messageID}
}

// readError fails with what the decoder found wrong: a repeated member
// name, or a syntax error.
func (s *jsonParser) readError(err error) {
	var se *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		s.fail("is not well-formed JSON: unexpected end of input")
	case errors.As(err, &se) && se.Err == jsontext.ErrDuplicateName:
		if n := len(s.path); n > 0 {
			s.path[n-1].key = se.JSONPointer.LastToken()
		}
		s.fail(ruleOnce)
	case errors.As(err, &se) && se.Err != nil:
		s.fail("is not well-formed JSON at offset " + strconv.FormatInt(se.ByteOffset, 10) + ": " + shortMsg(se.Err.Error()))
	default:
		s.fail("is not well-formed JSON: " + shortMsg(err.Error()))
	}
}

// node returns a new node of kind, carved from a slab.
func (s *jsonParser) node(kind jkind) *jnode {
	if len(s.slab) == 0 {
		s.slab = make([]jnode, 32)
	}
	n := &s.slab[0]
	s.slab = s.slab[1:]
	n.kind = kind
	return n
}

// value reads one value at nesting depth; nil after an error.
func (s *jsonParser) value(depth int) *jnode {
	tok, err := s.d.ReadToken()
	if err != nil {
		s.readError(err)
		return nil
	}
	s.count++
	if s.count > MaxElements {
		s.fail("has more than 1024 values")
		return nil
	}
	switch k := tok.Kind(); k {
	case jsontext.KindBeginObject, jsontext.KindBeginArray:
		if depth >= MaxDepth {
			s.fail("nests values deeper than 8")
			return nil
		}
		if k == jsontext.KindBeginObject {
			return s.object(depth)
		}
		return s.array(depth)
	case jsontext.KindString:
		n := s.node(jString)
		n.s = tok.String()
		return n
	case jsontext.KindNumber:
		n := s.node(jNumber)
		n.s = tok.String() // the number as written
		return n
	case jsontext.KindTrue, jsontext.KindFalse:
		n := s.node(jBool)
		n.b = tok.Bool()
		return n
	case jsontext.KindNull:
		return s.node(jNull)
	}
	// The decoder returns no other token where a value begins.
	s.fail("is not well-formed JSON: unexpected " + tok.Kind().String())
	return nil
}

// object reads the members of an object after its '{'.
func (s *jsonParser) object(depth int) *jnode {
	n := s.node(jObject)
	n.keys, n.vals = make([]string, 0, 8), make([]*jnode, 0, 8)
	s.path = append(s.path, jseg{index: -1})
	seg := len(s.path) - 1
	for {
		if s.d.PeekKind() == jsontext.KindEndObject {
			if _, err := s.d.ReadToken(); err != nil {
				s.readError(err)
				return nil
			}
			s.path = s.path[:seg]
			return n
		}
		tok, err := s.d.ReadToken()
		if err != nil {
			s.readError(err)
			return nil
		}
		key := tok.String()
		s.path[seg].key = key
		v := s.value(depth + 1)
		if v == nil {
			return nil
		}
		if depth == 0 && key == "messageId" && v.kind == jString && validMessageID(v.s) {
			s.messageID = v.s
		}
		n.keys = append(n.keys, key)
		n.vals = append(n.vals, v)
		s.path[seg].key = "" // past this value, errors are about the object
	}
}

// array reads the items of an array after its '['.
func (s *jsonParser) array(depth int) *jnode {
	n := s.node(jArray)
	s.path = append(s.path, jseg{index: 0})
	seg := len(s.path) - 1
	for {
		if s.d.PeekKind() == jsontext.KindEndArray {
			if _, err := s.d.ReadToken(); err != nil {
				s.readError(err)
				return nil
			}
			s.path = s.path[:seg]
			return n
		}
		s.path[seg].index = len(n.vals)
		v := s.value(depth + 1)
		if v == nil {
			return nil
		}
		n.vals = append(n.vals, v)
	}
}
