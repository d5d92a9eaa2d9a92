package jsontree

import (
	"strconv"
	"strings"
)

// Fault is the rule a refused body broke.
type Fault uint8

// The faults Parse finds.
const (
	// Empty: the body holds nothing but white space.
	Empty Fault = iota
	// InvalidUTF8: the body is not valid UTF-8 (Limits.UTF8First).
	InvalidUTF8
	// Truncated: the body ends inside the value.
	Truncated
	// Syntax: the body is not JSON at Offset (invalid UTF-8 in a string,
	// a lone surrogate escape included); Detail is the decoder's reason.
	Syntax
	// Unreadable: the body cannot be read for another reason, in Detail.
	Unreadable
	// Duplicate: an object repeats the member Name (after unescaping).
	Duplicate
	// TooDeep: containers nest deeper than Limits.Depth.
	TooDeep
	// TooManyValues: the body holds more than Limits.Values values.
	TooManyValues
	// TooManyItems: an array holds more than Limits.Items items.
	TooManyItems
	// StringTooLong: a string value or member name is longer than
	// Limits.String.
	StringTooLong
	// NumberTooLong: a number literal is longer than Limits.String.
	NumberTooLong
	// Trailing: more than white space follows the value.
	Trailing
)

// Error is a refused body: the fault, and where it was found.
type Error struct {
	// Fault is the rule broken.
	Fault Fault
	// Path leads from the root to the value at fault: for Duplicate, to
	// the repeated member; for StringTooLong of a member name, to its
	// object; for a fault of the body as a whole, nowhere (empty).
	Path []Step
	// Offset is the byte offset of a Syntax fault.
	Offset int64
	// Detail is the reason of a Syntax or Unreadable fault.
	Detail string
	// Name is the repeated member name of a Duplicate fault.
	Name string
	// Read are the root object's members read whole before the fault (all
	// of them for Trailing), so that a caller can still answer with what
	// it identifies (a message id).
	Read []Member
	// Value is the value read, for a Trailing fault.
	Value *Node
}

// Step is one step of a Path: an object's member, or an array's item.
type Step struct {
	// Name is the member's name, when Index is -1.
	Name string
	// Index is the item's index, or -1 for a member.
	Index int
}

// Pointer is the RFC 6901 JSON pointer of e.Path ("" for the root).
func (e *Error) Pointer() string {
	var b strings.Builder
	for _, s := range e.Path {
		b.WriteByte('/')
		if s.Index >= 0 {
			b.WriteString(strconv.Itoa(s.Index))
		} else {
			b.WriteString(EscapePointer(s.Name))
		}
	}
	return b.String()
}

// Error says the fault and its pointer.
func (e *Error) Error() string {
	var msg string
	switch e.Fault {
	case Empty:
		msg = "empty body"
	case InvalidUTF8:
		msg = "not valid UTF-8"
	case Truncated:
		msg = "unexpected end of input"
	case Syntax:
		msg = "invalid JSON at byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Detail
	case Unreadable:
		msg = "unreadable JSON: " + e.Detail
	case Duplicate:
		msg = "member " + strconv.Quote(e.Name) + " appears twice"
	case TooDeep:
		msg = "nested too deep"
	case TooManyValues:
		msg = "too many values"
	case TooManyItems:
		msg = "an array with too many items"
	case StringTooLong:
		msg = "a string too long"
	case NumberTooLong:
		msg = "a number too long"
	case Trailing:
		msg = "more than one JSON value"
	}
	return "jsontree: " + msg + " at " + strconv.Quote(e.Pointer())
}

// EscapePointer escapes a member name for a JSON pointer (RFC 6901).
func EscapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
