package converter

import (
	"encoding/json"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"
)

// maxJSONDepth is how deeply a partner's answer may nest, encoding/json's
// own limit.
const maxJSONDepth = 10000

// jsonReader reads a partner's answer in one pass straight into the
// converter's types. encoding/json checks the whole body first and then
// reads it again by reflection: for an offer search, the answer the
// converter reads most, that was half the time of the whole legacy
// exchange.
//
// It accepts exactly the JSON that encoding/json accepts (RFC 8259, at
// most maxJSONDepth deep, nothing but white space after the value) and
// reads each value as encoding/json reads it into the same Go type: null
// leaves the Go value as it is, strings are unescaped by encoding/json
// itself, integers must be written as integers. One difference is
// deliberate: member names are matched exactly, as the OSDM spec writes
// them, where encoding/json would also take "OfferId" for "offerId". A
// repeated member is read over what the earlier one set, as encoding/json
// does, except that an array replaces the earlier one whole (encoding/json
// would decode into its old elements). FuzzOfferAnswerMatchesEncodingJSON
// holds it to all this.
//
// The first error stops the reading; every method is then a no-op, and
// err says what and where.
//
// Each string read is a copy of its own, not cut from one copy of the
// body: what the converter puts in a legacy reply (an offerId, a
// currency) lives on in the reply cache, and must not keep the partner's
// whole answer alive with it.
type jsonReader struct {
	b     []byte
	i     int
	depth int
	err   error
}

func newJSONReader(body []byte) *jsonReader {
	return &jsonReader{b: body}
}

// end checks that nothing but white space follows the value read, and
// returns the reader's error.
func (r *jsonReader) end() error {
	if r.err == nil {
		if r.next(); r.i < len(r.b) {
			r.syntax("after top-level value")
		}
	}
	return r.err
}

// next skips white space and returns the next byte, 0 at the end.
func (r *jsonReader) next() byte {
	for r.i < len(r.b) {
		switch c := r.b[r.i]; c {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return c
		}
	}
	return 0
}

// syntax records a syntax error at the current byte.
func (r *jsonReader) syntax(context string) {
	if r.i >= len(r.b) {
		r.fail("unexpected end of JSON input")
		return
	}
	r.fail("invalid character " + strconv.QuoteRune(rune(r.b[r.i])) + " " + context)
}

// mismatch records a value of the wrong type for the Go value it is read
// into.
func (r *jsonReader) mismatch(want string) {
	var got string
	switch c := r.next(); {
	case c == '{':
		got = "an object"
	case c == '[':
		got = "an array"
	case c == '"':
		got = "a string"
	case c == 't' || c == 'f':
		got = "a boolean"
	case c == '-' || c >= '0' && c <= '9':
		got = "a number"
	default:
		r.syntax("looking for beginning of value")
		return
	}
	r.fail(got + " where " + want + " belongs")
}

func (r *jsonReader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New(msg + " (byte " + strconv.Itoa(r.i) + ")")
	}
	r.i = len(r.b)
}

// null consumes a null and reports whether there was one.
func (r *jsonReader) null() bool {
	if r.err != nil || r.next() != 'n' {
		return false
	}
	r.literal("null")
	return true
}

func (r *jsonReader) literal(word string) {
	if len(r.b)-r.i >= len(word) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return
	}
	for j := 1; j < len(word); j++ {
		if r.i+j >= len(r.b) || r.b[r.i+j] != word[j] {
			r.i += j
			r.syntax("in literal " + word)
			return
		}
	}
}

// object reads an object, or a null, handing each member's name to
// member, which must read the value (skip for names it does not know).
// The name is valid only during the call.
func (r *jsonReader) object(member func(name []byte)) {
	if r.null() || r.err != nil {
		return
	}
	if r.next() != '{' {
		r.mismatch("an object")
		return
	}
	if !r.enter() {
		return
	}
	if r.next() == '}' {
		r.leave()
		return
	}
	for r.err == nil {
		if r.next() != '"' {
			r.syntax("looking for beginning of object key string")
			return
		}
		start, end, plain := r.scanString()
		name := r.b[start:end]
		if !plain && r.err == nil {
			name = []byte(r.unquote(start-1, end+1))
		}
		if r.next() != ':' {
			r.syntax("after object key")
			return
		}
		r.i++
		member(name)
		switch r.next() {
		case ',':
			r.i++
		case '}':
			r.leave()
			return
		default:
			r.syntax("after object key:value pair")
		}
	}
}

// array reads an array, calling elem for each element, which must read
// it. The caller has dealt with null, which encoding/json reads as a nil
// slice.
func (r *jsonReader) array(elem func()) {
	if r.err != nil {
		return
	}
	if r.next() != '[' {
		r.mismatch("an array")
		return
	}
	if !r.enter() {
		return
	}
	if r.next() == ']' {
		r.leave()
		return
	}
	for r.err == nil {
		elem()
		switch r.next() {
		case ',':
			r.i++
		case ']':
			r.leave()
			return
		default:
			r.syntax("after array element")
		}
	}
}

// enter consumes the opening bracket of an object or array.
func (r *jsonReader) enter() bool {
	r.i++
	if r.depth++; r.depth > maxJSONDepth {
		r.fail("exceeded max depth")
		return false
	}
	return true
}

// leave consumes the closing bracket.
func (r *jsonReader) leave() {
	r.i++
	r.depth--
}

// skip reads any value and drops it.
func (r *jsonReader) skip() {
	switch c := r.next(); {
	case c == '{':
		r.object(func([]byte) { r.skip() })
	case c == '[':
		r.array(r.skip)
	case c == '"':
		r.scanString()
	case c == '-' || c >= '0' && c <= '9':
		r.number()
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	default:
		r.syntax("looking for beginning of value")
	}
}

// raw reads any value and returns its text, for encoding/json to read.
func (r *jsonReader) raw() []byte {
	r.next()
	start := r.i
	r.skip()
	if r.err != nil {
		return nil
	}
	return r.b[start:r.i]
}

// str reads a string, or a null as "".
func (r *jsonReader) str() string {
	if r.null() || r.err != nil {
		return ""
	}
	if r.next() != '"' {
		r.mismatch("a string")
		return ""
	}
	start, end, plain := r.scanString()
	if !plain {
		return r.unquote(start-1, end+1)
	}
	return string(r.b[start:end])
}

// strings reads an array of strings; null is a nil slice.
func (r *jsonReader) strings() []string {
	if r.null() {
		return nil
	}
	out := []string{}
	r.array(func() { out = append(out, r.str()) })
	return out
}

// int64 reads an integer, or a null as 0.
func (r *jsonReader) int64() int64 {
	if r.null() || r.err != nil {
		return 0
	}
	c := r.next()
	if c != '-' && (c < '0' || c > '9') {
		r.mismatch("an integer")
		return 0
	}
	start := r.i
	text := r.number()
	if r.err != nil {
		return 0
	}
	if n, ok := smallInt(text); ok {
		return n
	}
	n, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		r.i = start
		r.fail("the number " + strconv.Quote(string(text)) + " where an integer belongs")
	}
	return n
}

// intPtr reads an integer, or a null as nil.
func (r *jsonReader) intPtr() *int {
	if r.null() || r.err != nil {
		return nil
	}
	n := int(r.int64())
	return &n
}

// time reads an RFC 3339 time as time.Time's UnmarshalJSON does, or a
// null as the zero time.
func (r *jsonReader) time() time.Time {
	var t time.Time
	if r.null() || r.err != nil {
		return t
	}
	if r.next() != '"' {
		r.mismatch("an RFC 3339 time")
		return t
	}
	at := r.i
	_, end, _ := r.scanString()
	if r.err != nil {
		return t
	}
	if err := t.UnmarshalJSON(r.b[at : end+1]); err != nil {
		r.i = at
		r.fail(err.Error())
	}
	return t
}

// scanString reads a string starting at its opening quote and returns
// the bounds of its content; plain means it holds no escape and no byte
// that is not ASCII, so the content is the value as it stands.
func (r *jsonReader) scanString() (start, end int, plain bool) {
	r.i++
	start, plain = r.i, true
	for r.i < len(r.b) {
		switch c := r.b[r.i]; {
		case c == '"':
			end = r.i
			r.i++
			return start, end, plain
		case c == '\\':
			plain = false
			r.i++
			if r.i >= len(r.b) {
				break
			}
			switch r.b[r.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i++
			case 'u':
				r.i++
				for k := 0; k < 4; k++ {
					if r.i >= len(r.b) || !isHex(r.b[r.i]) {
						r.syntax("in \\u hexadecimal character escape")
						return start, start, false
					}
					r.i++
				}
			default:
				r.syntax("in string escape code")
				return start, start, false
			}
		case c < 0x20:
			r.syntax("in string literal")
			return start, start, false
		default:
			if c >= utf8.RuneSelf {
				plain = false
			}
			r.i++
		}
	}
	r.fail("unexpected end of JSON input")
	return start, start, false
}

// unquote is the value of the string b[from:to], quotes included, as
// encoding/json reads it: escapes resolved, invalid UTF-8 and lone
// surrogates replaced by U+FFFD.
func (r *jsonReader) unquote(from, to int) string {
	if r.err != nil {
		return ""
	}
	var s string
	if err := json.Unmarshal(r.b[from:to], &s); err != nil {
		r.i = from
		r.fail(err.Error())
	}
	return s
}

// number reads a number as RFC 8259 writes one and returns its text.
func (r *jsonReader) number() []byte {
	start := r.i
	if r.b[r.i] == '-' {
		r.i++
	}
	switch {
	case r.i < len(r.b) && r.b[r.i] == '0':
		r.i++
	case r.i < len(r.b) && r.b[r.i] >= '1' && r.b[r.i] <= '9':
		r.digits()
	default:
		r.syntax("in numeric literal")
		return nil
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if !r.digits() {
			r.syntax("after decimal point in numeric literal")
			return nil
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if !r.digits() {
			r.syntax("in exponent of numeric literal")
			return nil
		}
	}
	return r.b[start:r.i]
}

// digits consumes one or more decimal digits and reports whether there
// was one.
func (r *jsonReader) digits() bool {
	from := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i > from
}

// smallInt is the value of an integer of at most 18 digits, which cannot
// overflow, without the string strconv.ParseInt would need.
func smallInt(text []byte) (int64, bool) {
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(digits) < len(text) {
		n = -n
	}
	return n, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
