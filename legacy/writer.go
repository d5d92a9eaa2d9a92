package legacy

import (
	"encoding/base64"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"
)

// writer writes one message in either form with the same calls, mirroring
// reader. XML is indented by two spaces, one element per line, attributes
// before child elements; JSON is compact, keys in call order.
type writer struct {
	format    Format
	buf       []byte
	names     []string // XML: open elements
	startOpen bool     // XML: the last start tag still awaits its ">"
	textOpen  bool     // XML: the open element holds text, its end tag follows at once
	first     []bool   // JSON: per open object or array, nothing written in it yet
}

const xmlDecl = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// begin opens the root element or object of a message of kind, or a
// message nested in another (see nested): that one has no XML declaration
// and no namespace declaration of its own.
func (w *writer) begin(kind Kind, namespaced bool) {
	if w.format == XML {
		root := len(w.names) == 0
		if root {
			w.buf = append(w.buf, xmlDecl...)
		}
		w.xmlStart(string(kind))
		if namespaced && root {
			w.attrString("xmlns", Namespace)
		}
		return
	}
	w.buf = append(w.buf, `{"type":`...)
	w.buf = appendJSONString(w.buf, string(kind))
	w.first = append(w.first, false)
}

// finish closes the root and returns the message.
func (w *writer) finish() []byte {
	w.end()
	return append(w.buf, '\n')
}

func (w *writer) indent() {
	w.buf = append(w.buf, '\n')
	for range len(w.names) {
		w.buf = append(w.buf, ' ', ' ')
	}
}

func (w *writer) xmlStart(name string) {
	if w.startOpen {
		w.buf = append(w.buf, '>')
	}
	if len(w.names) > 0 {
		w.indent()
	}
	w.buf = append(w.buf, '<')
	w.buf = append(w.buf, name...)
	w.names = append(w.names, name)
	w.startOpen = true
}

// key writes a JSON key: name as is for an attribute, else lower-cased first.
func (w *writer) key(name string, attr bool) {
	top := len(w.first) - 1
	if !w.first[top] {
		w.buf = append(w.buf, ',')
	}
	w.first[top] = false
	w.buf = append(w.buf, '"')
	if !attr && name[0] >= 'A' && name[0] <= 'Z' {
		w.buf = append(w.buf, name[0]+'a'-'A')
		w.buf = append(w.buf, name[1:]...)
	} else {
		w.buf = append(w.buf, name...)
	}
	w.buf = append(w.buf, '"', ':')
}

// raw writes the field name with value v: quoted marks a JSON string.
func (w *writer) raw(name string, attr bool, v string, quoted bool) {
	switch {
	case w.format == JSON:
		w.key(name, attr)
		if quoted {
			w.buf = appendJSONString(w.buf, v)
		} else {
			w.buf = append(w.buf, v...)
		}
	case attr:
		w.buf = append(w.buf, ' ')
		w.buf = append(w.buf, name...)
		w.buf = append(w.buf, '=', '"')
		w.buf = appendXMLEscaped(w.buf, v, true)
		w.buf = append(w.buf, '"')
	default:
		w.xmlStart(name)
		w.buf = append(w.buf, '>')
		w.buf = appendXMLEscaped(w.buf, v, false)
		w.buf = append(w.buf, '<', '/')
		w.buf = append(w.buf, name...)
		w.buf = append(w.buf, '>')
		w.names = w.names[:len(w.names)-1]
		w.startOpen = false
	}
}

// attrString and the like write an XML attribute or a JSON key; the
// elem variants an XML text-only element or a JSON key. The opt variants
// write nothing for the zero value.
func (w *writer) attrString(name, v string) { w.raw(name, true, v, true) }
func (w *writer) elemString(name, v string) { w.raw(name, false, v, true) }
func (w *writer) optAttrString(name, v string) {
	if v != "" {
		w.attrString(name, v)
	}
}
func (w *writer) optElemString(name, v string) {
	if v != "" {
		w.elemString(name, v)
	}
}
func (w *writer) attrInt(name string, v int) { w.raw(name, true, strconv.Itoa(v), false) }
func (w *writer) elemInt(name string, v int) { w.raw(name, false, strconv.Itoa(v), false) }
func (w *writer) optAttrInt(name string, v int) {
	if v != 0 {
		w.attrInt(name, v)
	}
}
func (w *writer) optElemInt(name string, v int) {
	if v != 0 {
		w.elemInt(name, v)
	}
}
func (w *writer) attrBool(name string, v bool) { w.raw(name, true, strconv.FormatBool(v), false) }
func (w *writer) elemBool(name string, v bool) { w.raw(name, false, strconv.FormatBool(v), false) }
func (w *writer) optAttrTime(name string, t time.Time) {
	if !t.IsZero() {
		w.attrString(name, formatDateTime(t))
	}
}
func (w *writer) optElemTime(name string, t time.Time) {
	if !t.IsZero() {
		w.elemString(name, formatDateTime(t))
	}
}

// formatDateTime writes t as parseDateTime reads it: RFC 3339, with the
// fraction of a second when it has one.
func formatDateTime(t time.Time) string { return t.Format(time.RFC3339Nano) }

// base64Text writes b in base64 as the text of the open XML element
// (after its attributes; nothing else may follow before end), or as the
// JSON string key. The base64 alphabet needs no escaping in either form,
// so it is encoded straight into the buffer.
func (w *writer) base64Text(key string, b []byte) {
	if w.format == JSON {
		w.key(key, true)
		w.buf = append(w.buf, '"')
		w.buf = base64.StdEncoding.AppendEncode(w.buf, b)
		w.buf = append(w.buf, '"')
		return
	}
	if w.startOpen {
		w.buf = append(w.buf, '>')
		w.startOpen = false
	}
	w.buf = base64.StdEncoding.AppendEncode(w.buf, b)
	w.textOpen = true
}

// open starts the element or object name; end closes it.
func (w *writer) open(name string) {
	if w.format == XML {
		w.xmlStart(name)
		return
	}
	w.key(name, false)
	w.buf = append(w.buf, '{')
	w.first = append(w.first, true)
}

func (w *writer) end() {
	if w.format == JSON {
		w.buf = append(w.buf, '}')
		w.first = w.first[:len(w.first)-1]
		return
	}
	name := w.names[len(w.names)-1]
	w.names = w.names[:len(w.names)-1]
	if w.startOpen {
		w.buf = append(w.buf, '/', '>')
		w.startOpen = false
		return
	}
	if w.textOpen {
		w.textOpen = false
	} else {
		w.indent()
	}
	w.buf = append(w.buf, '<', '/')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '>')
}

// nested writes the message m inside the element name (XML
// <name><Kind ...>...</Kind></name>) or as the object of key name, with
// its "type" (JSON "name":{"type":"Kind",...}); nothing if m is nil or no
// legacy message.
func (w *writer) nested(name string, m Message) {
	if m == nil || reflect.ValueOf(m).Kind() != reflect.Pointer || reflect.ValueOf(m).IsNil() {
		return
	}
	if w.format == XML {
		w.xmlStart(name)
	} else {
		w.key(name, false)
	}
	if !writeMessage(w, m) {
		// A non-nil pointer of no legacy type: keep the output well-formed.
		if w.format == JSON {
			w.buf = append(w.buf, "null"...)
		} else {
			w.end()
		}
		return
	}
	w.end()
	if w.format == XML {
		w.end()
	}
}

// list writes n items: XML as repeated elements xmlName, JSON as the array
// jsonKey (written even when empty if always). item writes the fields of
// item i between open and end.
func (w *writer) list(xmlName, jsonKey string, n int, always bool, item func(i int)) {
	if w.format == XML {
		for i := range n {
			w.xmlStart(xmlName)
			item(i)
			w.end()
		}
		return
	}
	if n == 0 && !always {
		return
	}
	w.key(jsonKey, true)
	w.buf = append(w.buf, '[')
	for i := range n {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, '{')
		w.first = append(w.first, true)
		item(i)
		w.end()
	}
	w.buf = append(w.buf, ']')
}

// appendXMLEscaped escapes s for XML text or, if attr, a quoted attribute
// value: white space that XML would normalise is written as a character
// reference, and characters XML cannot carry become U+FFFD.
func appendXMLEscaped(b []byte, s string, attr bool) []byte {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '&':
			b = append(b, "&amp;"...)
		case r == '<':
			b = append(b, "&lt;"...)
		case r == '>':
			b = append(b, "&gt;"...)
		case r == '"' && attr:
			b = append(b, "&quot;"...)
		case r == '\r':
			b = append(b, "&#xD;"...)
		case r == '\n' && attr:
			b = append(b, "&#xA;"...)
		case r == '\t' && attr:
			b = append(b, "&#x9;"...)
		case r == '\n' || r == '\t':
			b = append(b, byte(r))
		case r == utf8.RuneError && size == 1, !isXMLChar(r):
			b = append(b, "\uFFFD"...)
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

// isXMLChar reports whether r may appear in an XML 1.0 document.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string; invalid UTF-8 becomes U+FFFD,
// and <, >, & and U+2028/2029 are escaped as encoding/json does, so the
// output is safe to embed anywhere.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
