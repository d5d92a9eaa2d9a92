package jsontree

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

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
