package osdmlegacy

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
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

// treeDecoders are reused: a decoder's state is a few hundred bytes.
var treeDecoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// noInput is what a pooled decoder reads between uses, so that it keeps
// no body alive.
var noInput = new(bytes.Buffer)

// parseJSONTree reads body as one JSON value into a tree, from the tokens
// of a jsontext.Decoder (the implementation behind encoding/json/v2): RFC
// 8259 syntax, valid UTF-8 (no lone surrogate escape either) and no
// object repeating a member name (after unescaping) are the decoder's
// checks; the bounds above are this function's.
func parseJSONTree(body []byte) (*jnode, error) {
	if !utf8.Valid(body) {
		return nil, &jsonError{msg: "the body is not valid UTF-8"}
	}
	if len(trimJSONSpace(body)) == 0 {
		return nil, &jsonError{msg: "malformed JSON: unexpected end of the body"}
	}
	p := &treeParser{d: treeDecoders.Get().(*jsontext.Decoder), path: make([]pathStep, 0, maxJSONDepth)}
	// A bytes.Buffer is read in place, without a copy.
	p.d.Reset(bytes.NewBuffer(body))
	defer func() {
		p.d.Reset(noInput)
		treeDecoders.Put(p.d)
	}()
	n := p.value(0)
	if p.err != nil {
		return nil, p.err
	}
	if len(trimJSONSpace(body[p.d.InputOffset():])) != 0 {
		return nil, &jsonError{msg: "the body holds more than one JSON value"}
	}
	return n, nil
}

// trimJSONSpace drops the white space RFC 8259 allows before b's first
// token.
func trimJSONSpace(b []byte) []byte {
	return bytes.TrimLeft(b, " \t\r\n")
}

type treeParser struct {
	d      *jsontext.Decoder
	values int
	err    *jsonError
	// path is where the value being read sits, from the root; its JSON
	// pointer is only written out for an error.
	path []pathStep
	// slab holds the nodes, allocated a chunk at a time; members and
	// items are the scratch stacks of the objects and arrays being read.
	slab    []jnode
	members []jmember
	items   []*jnode
}

// nodeChunk is how many nodes are allocated at once: a one-train search
// holds about 40 values.
const nodeChunk = 64

// node returns a new node holding v.
func (p *treeParser) node(v jnode) *jnode {
	if len(p.slab) == cap(p.slab) {
		p.slab = make([]jnode, 0, nodeChunk)
	}
	p.slab = append(p.slab, v)
	return &p.slab[len(p.slab)-1]
}

// pathStep is one step of a JSON pointer: an object's member or an
// array's item.
type pathStep struct {
	name string
	item int // -1 for a member
}

// pointer is the JSON pointer of the value being read, as the readers
// write it: "#", "/name" for a member, "[i]" for an item.
func (p *treeParser) pointer() string {
	var b strings.Builder
	b.WriteString("#")
	for _, s := range p.path {
		if s.item < 0 {
			b.WriteString("/")
			b.WriteString(escapePointer(s.name))
		} else {
			b.WriteString("[")
			b.WriteString(strconv.Itoa(s.item))
			b.WriteString("]")
		}
	}
	return b.String()
}

func (p *treeParser) fail(ptr, msg string) {
	if p.err == nil {
		p.err = &jsonError{pointer: ptr, msg: msg}
	}
}

// failHere fails at the value being read.
func (p *treeParser) failHere(msg string) {
	if p.err == nil {
		p.fail(p.pointer(), msg)
	}
}

// readError keeps what the decoder found wrong in the value being read
// (the object holding the member, for a repeated name): a repeated
// member, a syntax error, or the end of the body.
func (p *treeParser) readError(err error) {
	if p.err != nil {
		return
	}
	var se *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		p.fail("", "malformed JSON: unexpected end of the body")
	case errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName):
		name := se.JSONPointer.LastToken()
		p.fail(p.pointer()+"/"+escapePointer(name), "member "+strconv.Quote(name)+" appears twice")
	case errors.As(err, &se) && se.Err != nil:
		p.fail("", "malformed JSON at byte "+strconv.FormatInt(se.ByteOffset, 10)+": "+strings.TrimPrefix(se.Err.Error(), "jsontext: "))
	default:
		p.fail("", "malformed JSON: "+err.Error())
	}
}

// value reads the value at the end of p.path, at nesting depth; nil after
// an error.
func (p *treeParser) value(depth int) *jnode {
	if p.values++; p.values > maxJSONValues {
		p.failHere("the body holds more than " + strconv.Itoa(maxJSONValues) + " JSON values")
		return nil
	}
	k := p.d.PeekKind()
	if (k == jsontext.KindBeginObject || k == jsontext.KindBeginArray) && depth >= maxJSONDepth {
		p.failHere("nested deeper than " + strconv.Itoa(maxJSONDepth) + " levels")
		return nil
	}
	tok, err := p.d.ReadToken()
	if err != nil {
		p.readError(err)
		return nil
	}
	switch tok.Kind() {
	case jsontext.KindBeginObject:
		return p.object(depth + 1)
	case jsontext.KindBeginArray:
		return p.array(depth + 1)
	case jsontext.KindString:
		s := tok.String()
		if len(s) > maxJSONString {
			p.failHere("a string longer than " + strconv.Itoa(maxJSONString) + " bytes")
			return nil
		}
		return p.node(jnode{kind: jString, text: s})
	case jsontext.KindNumber:
		s := tok.String() // the number as written
		if len(s) > maxJSONString {
			p.fail("", "a number longer than "+strconv.Itoa(maxJSONString)+" bytes")
			return nil
		}
		return p.node(jnode{kind: jNumber, text: s})
	case jsontext.KindTrue:
		return p.node(jnode{kind: jBool, b: true})
	case jsontext.KindFalse:
		return p.node(jnode{kind: jBool})
	case jsontext.KindNull:
		return p.node(jnode{kind: jNull})
	}
	// The decoder returns no other token where a value begins.
	p.fail("", "malformed JSON: unexpected "+tok.Kind().String())
	return nil
}

func (p *treeParser) array(depth int) *jnode {
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
			n := p.node(jnode{kind: jArray})
			if i > 0 {
				n.items = append([]*jnode(nil), p.items[base:]...)
			}
			return n
		}
		p.path = append(p.path, pathStep{item: i})
		if i >= maxJSONItems {
			p.failHere("an array of more than " + strconv.Itoa(maxJSONItems) + " items")
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

func (p *treeParser) object(depth int) *jnode {
	// The members gather on p.members, as items do on p.items.
	base := len(p.members)
	defer func() { p.members = p.members[:base] }()
	for {
		if p.d.PeekKind() == jsontext.KindEndObject {
			if _, err := p.d.ReadToken(); err != nil {
				p.readError(err)
				return nil
			}
			n := p.node(jnode{kind: jObject})
			if len(p.members) > base {
				n.members = append([]jmember(nil), p.members[base:]...)
			}
			return n
		}
		raw, err := p.d.ReadValue() // the name, quoted, checked by the decoder
		if err != nil {
			p.readError(err)
			return nil
		}
		name, ok := memberName(raw)
		if !ok {
			p.fail("", "malformed JSON: an object member name that cannot be read")
			return nil
		}
		if len(name) > maxJSONString {
			p.failHere("a string longer than " + strconv.Itoa(maxJSONString) + " bytes")
			return nil
		}
		p.path = append(p.path, pathStep{name: name, item: -1})
		v := p.value(depth)
		if v == nil {
			return nil
		}
		p.path = p.path[:len(p.path)-1]
		p.members = append(p.members, jmember{name: name, value: v})
	}
}

// osdmMemberNames are the member names of the requests read into trees,
// so that a name read is one of these strings rather than a new one.
var osdmMemberNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range strings.Fields(`age anonymousPassengerSpecifications arrivalTime cards carrierFilter carriers
		corporateCodes currency dataFilter dateOfBirth departureTime destination embed end estimatedTime exclude
		externalRef flexibilities gender ignoreRealtimeData inboundDate inboundTripIds inboundTripSpecifications
		intermediates isPartOfInternationalTrip itModesToCover legs lineNumbers mobilityFilter name
		nonTripSearchCriteria notVias numberOfResults numberOfResultsAfter numberOfResultsBefore objectType
		observedTime offerMode offerSearchCriteria origin parameters policyFilter prmNeeds productSelections
		productTags promotionCodes ptModeFilter ref replacedPlaceRef requestedFulfillmentOptions
		requestedOfferParts requestedSections residency returnSearchParameters service serviceBrandFilter
		serviceClassTypes start stopPlaceRef timedLeg timetabledTime transferLeg transferLimit transportable
		travelClasses tripIds tripResponseParameters tripSearchCriteria tripSpecifications type vehicleFilter
		vehicleNumbers vias`) {
		m[n] = n
	}
	return m
}()

// memberName unquotes a member name the decoder read (raw, quoted, valid
// JSON): a known name without escapes costs no allocation.
func memberName(raw jsontext.Value) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		if n, ok := osdmMemberNames[string(inner)]; ok {
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

// escapePointer escapes a member name for a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
