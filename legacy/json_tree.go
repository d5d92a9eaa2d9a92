package legacy

import (
	"strconv"
	"strings"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
)

// jnode is one JSON value of a legacy message.
type jnode = jsontree.Node

// jsonLimits bound a legacy JSON message: MaxDepth and MaxElements.
var jsonLimits = jsontree.Limits{Depth: MaxDepth, Values: MaxElements}

// parseJSON reads body into a tree (see jsontree.Parse: RFC 8259 syntax,
// valid UTF-8, no object repeating a member name, bounded by MaxDepth and
// MaxElements). The body must be one object. The second result is the
// top-level messageId if it was read and is valid, so an error found
// later can still be answered with a correlationId.
func parseJSON(body []byte) (*jnode, string, *Error) {
	root, jerr := jsontree.Parse(body, jsonLimits)
	if jerr == nil {
		return checkRoot(root, messageIDOf(root.Members))
	}
	id := messageIDOf(jerr.Read)
	fail := func(field, rule string) (*jnode, string, *Error) {
		return nil, id, &Error{Code: CodeInvalidMessage, Field: field, Rule: rule, MessageID: id}
	}
	field := jsonField(jerr.Path)
	switch jerr.Fault {
	case jsontree.Empty:
		return fail("", "the message is empty: a JSON object is required")
	case jsontree.Truncated:
		return fail(field, "is not well-formed JSON: unexpected end of input")
	case jsontree.Duplicate:
		return fail(field, ruleOnce)
	case jsontree.Syntax:
		return fail(field, "is not well-formed JSON at offset "+strconv.FormatInt(jerr.Offset, 10)+": "+shortMsg(jerr.Detail))
	case jsontree.TooDeep:
		return fail(field, "nests values deeper than "+strconv.Itoa(MaxDepth))
	case jsontree.TooManyValues:
		return fail(field, "has more than "+strconv.Itoa(MaxElements)+" values")
	case jsontree.Trailing:
		if _, _, err := checkRoot(jerr.Value, id); err != nil {
			return nil, id, err
		}
		return fail("", "only one JSON object is allowed")
	}
	return fail(field, "is not well-formed JSON: "+shortMsg(jerr.Detail))
}

// checkRoot refuses a message that is not an object.
func checkRoot(root *jnode, id string) (*jnode, string, *Error) {
	if root.Kind != jsontree.Object {
		return nil, id, &Error{Code: CodeInvalidMessage, Rule: "must be a JSON object, not " + root.Kind.String(), MessageID: id}
	}
	return root, id, nil
}

// messageIDOf is the valid string messageId among the top-level members,
// or "".
func messageIDOf(members []jsontree.Member) string {
	for _, m := range members {
		if m.Name == "messageId" && m.Value.Kind == jsontree.String && validMessageID(m.Value.Text) {
			return m.Value.Text
		}
	}
	return ""
}

// jsonField writes a path as a legacy error's field: "a.b[2].c", each
// name made short and safe.
func jsonField(path []jsontree.Step) string {
	var field strings.Builder
	for _, p := range path {
		switch {
		case p.Index >= 0:
			field.WriteString("[" + strconv.Itoa(p.Index) + "]")
		case p.Name == "":
			// An empty name is left out, as the message's own paths do.
		default:
			if field.Len() > 0 {
				field.WriteByte('.')
			}
			field.WriteString(shortName(p.Name))
		}
	}
	return field.String()
}
