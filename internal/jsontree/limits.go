package jsontree

// Limits bound what Parse reads; each caller sets its own.
type Limits struct {
	// Depth is the most containers (objects, arrays) nested in one
	// another; the root container counts one.
	Depth int
	// Values is the most values in the body, containers included.
	Values int
	// Items is the most items of one array; 0 sets no bound.
	Items int
	// String is the longest string value, member name or number literal,
	// in bytes; 0 sets no bound.
	String int
	// UTF8First refuses a body that is not valid UTF-8 anywhere before
	// reading it (fault InvalidUTF8, at the root). Without it, invalid
	// UTF-8 is found as it is read: a Syntax fault at the value that
	// holds it.
	UTF8First bool
	// Names are the member names a caller expects, each mapped to
	// itself: a name read that is one of them, written without escapes,
	// is that string rather than a new one.
	Names map[string]string
}
