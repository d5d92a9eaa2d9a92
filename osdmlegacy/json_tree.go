package osdmlegacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"unicode/utf8"
)

// Bounds on an OSDM request body read into a tree. An offer search or a
// booking request is a few KiB; these keep a hostile body from costing
// memory or time beyond max_body.
const (
	// maxJSONDepth is the deepest nesting read; the deepest member of an
	// offer search (a trip specification's leg's service's carriers'
	// items) nests 8.
	maxJSONDepth = 16
	// maxJSONValues is the most values in one body.
	maxJSONValues = 4096
	// maxJSONItems is the most items of one array.
	maxJSONItems = 64
	// maxJSONString is the longest string value or member name, in bytes.
	maxJSONString = 1024
)

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// jnode is one JSON value of a request: strictly read (no repeated member,
// valid UTF-8, bounded), with member order kept.
type jnode struct {
	kind    jkind
	text    string // a string's value, a number's literal
	b       bool
	members []jmember
	items   []*jnode
}

// jmember is one member of an object.
type jmember struct {
	name  string
	value *jnode
}

// jsonError is a body that is not acceptable JSON, with the pointer of the
// value at fault ("" when the syntax is broken).
type jsonError struct {
	pointer string
	msg     string
}

func (e *jsonError) Error() string { return e.msg }

// parseJSONTree reads body as one JSON value into a tree.
func parseJSONTree(body []byte) (*jnode, error) {
	if !utf8.Valid(body) {
		return nil, &jsonError{msg: "the body is not valid UTF-8"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	p := &treeParser{dec: dec}
	n, err := p.value("#", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &jsonError{msg: "the body holds more than one JSON value"}
	}
	return n, nil
}

type treeParser struct {
	dec    *json.Decoder
	values int
}

func (p *treeParser) token() (json.Token, error) {
	t, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &jsonError{msg: "malformed JSON at byte " + strconv.FormatInt(se.Offset, 10) + ": " + se.Error()}
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &jsonError{msg: "malformed JSON: unexpected end of the body"}
		}
		return nil, &jsonError{msg: "malformed JSON: " + err.Error()}
	}
	return t, nil
}

func (p *treeParser) value(ptr string, depth int) (*jnode, error) {
	t, err := p.token()
	if err != nil {
		return nil, err
	}
	return p.valueFrom(t, ptr, depth)
}

func (p *treeParser) valueFrom(t json.Token, ptr string, depth int) (*jnode, error) {
	if p.values++; p.values > maxJSONValues {
		return nil, &jsonError{pointer: ptr, msg: "the body holds more than " + strconv.Itoa(maxJSONValues) + " JSON values"}
	}
	switch v := t.(type) {
	case nil:
		return &jnode{kind: jNull}, nil
	case bool:
		return &jnode{kind: jBool, b: v}, nil
	case json.Number:
		return &jnode{kind: jNumber, text: string(v)}, nil
	case string:
		if len(v) > maxJSONString {
			return nil, &jsonError{pointer: ptr, msg: "a string longer than " + strconv.Itoa(maxJSONString) + " bytes"}
		}
		return &jnode{kind: jString, text: v}, nil
	case json.Delim:
		if depth >= maxJSONDepth {
			return nil, &jsonError{pointer: ptr, msg: "nested deeper than " + strconv.Itoa(maxJSONDepth) + " levels"}
		}
		if v == '[' {
			return p.array(ptr, depth+1)
		}
		return p.object(ptr, depth+1)
	}
	return nil, &jsonError{pointer: ptr, msg: "malformed JSON"}
}

func (p *treeParser) array(ptr string, depth int) (*jnode, error) {
	n := &jnode{kind: jArray}
	for {
		t, err := p.token()
		if err != nil {
			return nil, err
		}
		if d, ok := t.(json.Delim); ok && d == ']' {
			return n, nil
		}
		itemPtr := ptr + "[" + strconv.Itoa(len(n.items)) + "]"
		if len(n.items) >= maxJSONItems {
			return nil, &jsonError{pointer: itemPtr, msg: "an array of more than " + strconv.Itoa(maxJSONItems) + " items"}
		}
		item, err := p.valueFrom(t, itemPtr, depth)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
	}
}

func (p *treeParser) object(ptr string, depth int) (*jnode, error) {
	n := &jnode{kind: jObject}
	for {
		t, err := p.token()
		if err != nil {
			return nil, err
		}
		if d, ok := t.(json.Delim); ok && d == '}' {
			return n, nil
		}
		name, _ := t.(string)
		if len(name) > maxJSONString {
			return nil, &jsonError{pointer: ptr, msg: "a member name longer than " + strconv.Itoa(maxJSONString) + " bytes"}
		}
		memberPtr := ptr + "/" + escapePointer(name)
		for _, m := range n.members {
			if m.name == name {
				return nil, &jsonError{pointer: memberPtr, msg: "member " + strconv.Quote(name) + " appears twice"}
			}
		}
		v, err := p.value(memberPtr, depth)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{name: name, value: v})
	}
}

// escapePointer escapes a member name for a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	if !bytes.ContainsAny([]byte(s), "~/") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			b = append(b, '~', '0')
		case '/':
			b = append(b, '~', '1')
		default:
			b = append(b, s[i])
		}
	}
	return string(b)
}
