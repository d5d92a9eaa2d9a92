package legacy

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
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

// jsonScanner is a small RFC 8259 parser. encoding/json cannot refuse
// duplicate keys and its Token API costs several allocations per token;
// this one builds the tree directly, bounded by MaxDepth and MaxElements.
// Strings are decoded as encoding/json decodes them (invalid UTF-8 and lone
// surrogates become U+FFFD).
type jsonScanner struct {
	b         []byte
	text      string // b as a string: strings without escapes are cut from it
	slab      []jnode
	i         int
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

// parseJSON reads body into a tree. The body must be one object. The second
// result is the top-level messageId if it was read and is valid, so an
// error found later can still be answered with a correlationId.
func parseJSON(body []byte) (*jnode, string, *Error) {
	s := &jsonScanner{b: body, text: string(body)}
	s.ws()
	if s.i == len(s.b) {
		s.fail("the message is empty: a JSON object is required")
		return nil, "", s.err
	}
	if s.b[s.i] != '{' {
		if n := s.value(0); n != nil {
			s.fail("must be a JSON object, not " + n.kind.String())
		}
		return nil, s.messageID, s.err
	}
	root := s.value(0)
	if s.err != nil {
		return nil, s.messageID, s.err
	}
	s.ws()
	if s.i != len(s.b) {
		s.fail("only one JSON object is allowed")
		return nil, s.messageID, s.err
	}
	return root, s.messageID, nil
}

func (s *jsonScanner) fail(rule string) {
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
	s.err = &Error{Code: CodeInvalidMessage, Field: field.String(), Rule: rule, MessageID: strings.Clone(s.messageID)}
}

// syntax fails at the current position.
func (s *jsonScanner) syntax(what string) {
	if s.i >= len(s.b) {
		s.fail("is not well-formed JSON: unexpected end of input")
		return
	}
	r, _ := utf8.DecodeRune(s.b[s.i:])
	s.fail("is not well-formed JSON at offset " + strconv.Itoa(s.i) + ": " + strconv.QuoteRuneToASCII(r) + " " + what)
}

func (s *jsonScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// node returns a new node of kind, carved from a slab.
func (s *jsonScanner) node(kind jkind) *jnode {
	if len(s.slab) == 0 {
		s.slab = make([]jnode, 32)
	}
	n := &s.slab[0]
	s.slab = s.slab[1:]
	n.kind = kind
	return n
}

// value reads one value at nesting depth; nil after an error.
func (s *jsonScanner) value(depth int) *jnode {
	s.ws()
	if s.i >= len(s.b) {
		s.syntax("")
		return nil
	}
	s.count++
	if s.count > MaxElements {
		s.fail("has more than 1024 values")
		return nil
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			s.fail("nests values deeper than 8")
			return nil
		}
		s.i++
		if c == '{' {
			return s.object(depth)
		}
		return s.array(depth)
	case c == '"':
		str, ok := s.str()
		if !ok {
			return nil
		}
		n := s.node(jString)
		n.s = str
		return n
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	case c == 't':
		n := s.literal("true", s.node(jBool))
		if n != nil {
			n.b = true
		}
		return n
	case c == 'f':
		return s.literal("false", s.node(jBool))
	case c == 'n':
		return s.literal("null", s.node(jNull))
	}
	s.syntax("cannot begin a value")
	return nil
}

func (s *jsonScanner) literal(word string, n *jnode) *jnode {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		for k := 0; k < len(word) && s.i < len(s.b) && s.b[s.i] == word[k]; k++ {
			s.i++
		}
		s.syntax("in literal " + word)
		return nil
	}
	s.i += len(word)
	return n
}

func (s *jsonScanner) object(depth int) *jnode {
	n := s.node(jObject)
	n.keys, n.vals = make([]string, 0, 8), make([]*jnode, 0, 8)
	s.path = append(s.path, jseg{index: -1})
	seg := len(s.path) - 1
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		s.path = s.path[:seg]
		return n
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			s.syntax("where an object key was expected")
			return nil
		}
		key, ok := s.str()
		if !ok {
			return nil
		}
		s.path[seg].key = key
		for _, k := range n.keys {
			if k == key {
				s.fail(ruleOnce)
				return nil
			}
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			s.syntax("after an object key")
			return nil
		}
		s.i++
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
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(s.b) && s.b[s.i] == '}' {
			s.i++
			s.path = s.path[:seg]
			return n
		}
		s.syntax("after an object value")
		return nil
	}
}

func (s *jsonScanner) array(depth int) *jnode {
	n := s.node(jArray)
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return n
	}
	s.path = append(s.path, jseg{index: 0})
	seg := len(s.path) - 1
	for {
		s.path[seg].index = len(n.vals)
		v := s.value(depth + 1)
		if v == nil {
			return nil
		}
		n.vals = append(n.vals, v)
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			s.path = s.path[:seg]
			return n
		}
		s.syntax("after an array element")
		return nil
	}
}

// number reads a number as RFC 8259 writes it, keeping its text.
func (s *jsonScanner) number() *jnode {
	start := s.i
	digits := func() int {
		k := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			k++
		}
		return k
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		s.syntax("in a number")
		return nil
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			s.syntax("in a number")
			return nil
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			s.syntax("in a number")
			return nil
		}
	}
	n := s.node(jNumber)
	n.s = s.text[start:s.i]
	return n
}

// str reads a string starting at its opening quote.
func (s *jsonScanner) str() (string, bool) {
	s.i++
	start := s.i
	// Fast path: no escapes, nothing to replace.
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '"' {
			out := s.text[start:s.i]
			s.i++
			return out, true
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		s.i++
	}
	buf := append([]byte(nil), s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return string(buf), true
		case c < 0x20:
			s.syntax("in a string (control characters must be escaped)")
			return "", false
		case c == '\\':
			s.i++
			if s.i >= len(s.b) {
				s.syntax("")
				return "", false
			}
			switch e := s.b[s.i]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := s.hex4(s.i + 1)
				if !ok {
					s.syntax("in a \\u escape")
					return "", false
				}
				s.i += 4
				if utf16.IsSurrogate(r) {
					r2, ok2 := rune(-1), false
					if s.i+2 < len(s.b) && s.b[s.i+1] == '\\' && s.b[s.i+2] == 'u' {
						r2, ok2 = s.hex4(s.i + 3)
					}
					if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
						r = dec
						s.i += 6
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				s.syntax("is not a valid escape")
				return "", false
			}
			s.i++
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			s.i++
		default:
			r, size := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, "\uFFFD"...)
			} else {
				buf = append(buf, s.b[s.i:s.i+size]...)
			}
			s.i += size
		}
	}
	s.syntax("")
	return "", false
}

// hex4 reads four hex digits at j.
func (s *jsonScanner) hex4(j int) (rune, bool) {
	if j+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[j : j+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
