package osdmlegacy

import (
	"bytes"
	"encoding/json"
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

// parseJSONTree reads body as one JSON value into a tree: the JSON that
// encoding/json accepts (RFC 8259), with no repeated member and within the
// bounds above. It scans the bytes itself (encoding/json's token stream
// allocated once per token, a quarter of the façade's own time on a
// one-train search); strings with escapes are unquoted by encoding/json,
// so they read as encoding/json reads them.
func parseJSONTree(body []byte) (*jnode, error) {
	if !utf8.Valid(body) {
		return nil, &jsonError{msg: "the body is not valid UTF-8"}
	}
	p := &treeParser{b: body}
	n, err := p.value("#", 0)
	if err != nil {
		return nil, err
	}
	if p.skipSpace(); p.i < len(p.b) {
		return nil, &jsonError{msg: "the body holds more than one JSON value"}
	}
	return n, nil
}

type treeParser struct {
	b      []byte
	i      int
	values int
}

// syntax is a malformed-JSON error at the current byte.
func (p *treeParser) syntax(what string) error {
	if p.i >= len(p.b) {
		return &jsonError{msg: "malformed JSON: unexpected end of the body"}
	}
	return &jsonError{msg: "malformed JSON at byte " + strconv.Itoa(p.i) + ": " + what}
}

func (p *treeParser) skipSpace() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) value(ptr string, depth int) (*jnode, error) {
	if p.values++; p.values > maxJSONValues {
		return nil, &jsonError{pointer: ptr, msg: "the body holds more than " + strconv.Itoa(maxJSONValues) + " JSON values"}
	}
	p.skipSpace()
	if p.i >= len(p.b) {
		return nil, p.syntax("a value was expected")
	}
	switch c := p.b[p.i]; {
	case c == '{' || c == '[':
		if depth >= maxJSONDepth {
			return nil, &jsonError{pointer: ptr, msg: "nested deeper than " + strconv.Itoa(maxJSONDepth) + " levels"}
		}
		p.i++
		if c == '[' {
			return p.array(ptr, depth+1)
		}
		return p.object(ptr, depth+1)
	case c == '"':
		s, err := p.str(ptr)
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, text: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", &jnode{kind: jBool, b: true})
	case c == 'f':
		return p.literal("false", &jnode{kind: jBool})
	case c == 'n':
		return p.literal("null", &jnode{kind: jNull})
	}
	return nil, p.syntax("invalid character " + strconv.QuoteRune(rune(p.b[p.i])) + " looking for a value")
}

func (p *treeParser) literal(word string, n *jnode) (*jnode, error) {
	if !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		return nil, p.syntax("invalid literal")
	}
	p.i += len(word)
	return n, nil
}

// number scans a JSON number (RFC 8259 grammar) and keeps its literal.
func (p *treeParser) number() (*jnode, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, p.syntax("invalid number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, p.syntax("invalid number: digits expected after the decimal point")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, p.syntax("invalid number: digits expected in the exponent")
		}
	}
	if p.i-start > maxJSONString {
		return nil, &jsonError{msg: "a number longer than " + strconv.Itoa(maxJSONString) + " bytes"}
	}
	return &jnode{kind: jNumber, text: string(p.b[start:p.i])}, nil
}

func (p *treeParser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// str scans a string at p.i (its opening quote) and returns its value.
func (p *treeParser) str(ptr string) (string, error) {
	start := p.i
	p.i++
	escaped := false
	for {
		if p.i >= len(p.b) {
			return "", p.syntax("unterminated string")
		}
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if p.i-start-2 > maxJSONString {
				return "", &jsonError{pointer: ptr, msg: "a string longer than " + strconv.Itoa(maxJSONString) + " bytes"}
			}
			if !escaped {
				return string(p.b[start+1 : p.i-1]), nil
			}
			var s string
			if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
				p.i = start
				return "", p.syntax("invalid string escape")
			}
			return s, nil
		case c == '\\':
			escaped = true
			p.i += 2
		case c < 0x20:
			return "", p.syntax("control character in a string")
		default:
			p.i++
		}
	}
}

func (p *treeParser) array(ptr string, depth int) (*jnode, error) {
	n := &jnode{kind: jArray}
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return n, nil
	}
	for {
		itemPtr := ptr + "[" + strconv.Itoa(len(n.items)) + "]"
		if len(n.items) >= maxJSONItems {
			return nil, &jsonError{pointer: itemPtr, msg: "an array of more than " + strconv.Itoa(maxJSONItems) + " items"}
		}
		item, err := p.value(itemPtr, depth)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
		p.skipSpace()
		if p.i >= len(p.b) {
			return nil, p.syntax("unterminated array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return n, nil
		default:
			return nil, p.syntax("',' or ']' expected after an array item")
		}
	}
}

func (p *treeParser) object(ptr string, depth int) (*jnode, error) {
	n := &jnode{kind: jObject}
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return n, nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.syntax("a member name was expected")
		}
		name, err := p.str(ptr)
		if err != nil {
			return nil, err
		}
		memberPtr := ptr + "/" + escapePointer(name)
		for _, m := range n.members {
			if m.name == name {
				return nil, &jsonError{pointer: memberPtr, msg: "member " + strconv.Quote(name) + " appears twice"}
			}
		}
		p.skipSpace()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.syntax("':' expected after a member name")
		}
		p.i++
		v, err := p.value(memberPtr, depth)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{name: name, value: v})
		p.skipSpace()
		if p.i >= len(p.b) {
			return nil, p.syntax("unterminated object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return n, nil
		default:
			return nil, p.syntax("',' or '}' expected after a member")
		}
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
