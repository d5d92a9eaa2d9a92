// Package jsontree reads one JSON value of outside input into a tree,
// strictly and within bounds the caller sets: RFC 8259 syntax, valid
// UTF-8, no object that repeats a member name, member order kept. Every
// refusal is an *Error that says which rule the body broke and where, so
// that each caller can word it in its own protocol.
package jsontree

// Kind is the kind of a JSON value.
type Kind uint8

// The kinds of JSON values.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// String names the kind as an error message does: "a string", "null".
func (k Kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// Node is one JSON value read by Parse.
type Node struct {
	// Kind is the value's kind.
	Kind Kind
	// Text is a string's value (escapes resolved) or a number's literal
	// as written.
	Text string
	// Bool is a boolean's value.
	Bool bool
	// Members are an object's members, in the body's order, no name twice.
	Members []Member
	// Items are an array's items.
	Items []*Node
}

// Member is one member of an object.
type Member struct {
	// Name is the member's name, escapes resolved.
	Name string
	// Value is the member's value.
	Value *Node
}
