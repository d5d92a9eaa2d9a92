package legacy

import (
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
)

// decoder holds what the readers of one message share: the form, the first
// error, and what that error must carry.
type decoder struct {
	format     Format
	usedSlab   []bool // carved into reader.used
	err        *Error
	messageID  string
	namespaced bool
	kind       Kind // once read and one the decoder takes
}

// fail records the first error; later ones are consequences.
func (d *decoder) fail(code Code, field, rule string) {
	if d.err == nil {
		d.err = &Error{Code: code, Field: field, Rule: rule, MessageID: strings.Clone(d.messageID), Namespaced: d.namespaced, Kind: d.kind}
	}
}

// reader reads the fields of one XML element or JSON object with the same
// calls in both forms, so the two cannot drift apart. A field is named by
// its XML name: an attribute name (same in JSON) or an element name (JSON:
// first letter lower-cased). After the first error every read returns zero
// values; the caller checks d.err once at the end.
type reader struct {
	d      *decoder
	parent *reader
	seg    string // the XML name of this node in its parent
	index  int    // position in a repeated element, or -1
	jseg   string // the JSON key of this node
	x      *xnode
	j      *jnode
	used   []bool // per XML attribute then child, or per JSON key
	// textRead: the XML element's own text was read (text), so done
	// does not refuse it.
	textRead bool
}

func newReader(d *decoder, parent *reader, seg, jseg string, index int, x *xnode, j *jnode) *reader {
	r := &reader{d: d, parent: parent, seg: seg, jseg: jseg, index: index, x: x, j: j}
	n := 0
	if j != nil {
		n = len(j.Members)
	}
	if x != nil {
		n = len(x.attrs) + len(x.kids)
	}
	if len(d.usedSlab) < n {
		d.usedSlab = make([]bool, max(n, 64))
	}
	r.used, d.usedSlab = d.usedSlab[:n:n], d.usedSlab[n:]
	return r
}

// path is this node's path in the message's own form ("" for the root).
func (r *reader) path() string {
	if r.parent == nil {
		return ""
	}
	p := r.parent.path()
	var s string
	if r.d.format == XML {
		s = r.seg
		if r.index >= 0 {
			s += "[" + strconv.Itoa(r.index+1) + "]"
		}
		if p != "" {
			s = p + "/" + s
		}
		return s
	}
	s = r.jseg
	if r.index >= 0 {
		s += "[" + strconv.Itoa(r.index) + "]"
	}
	if p != "" {
		s = p + "." + s
	}
	return s
}

// fieldPath is the path of the field name (an attribute if attr) of r.
func (r *reader) fieldPath(name string, attr bool) string {
	p := r.path()
	var s string
	switch {
	case r.d.format == JSON && attr:
		s = name
	case r.d.format == JSON:
		s = lowerFirst(name)
	case attr:
		s = "@" + name
	default:
		s = name
	}
	if p == "" {
		return s
	}
	if r.d.format == XML {
		return p + "/" + s
	}
	return p + "." + s
}

// fail records that field name of r breaks rule.
func (r *reader) fail(name string, attr bool, rule string) {
	if r.d.err == nil {
		r.d.fail(CodeInvalidMessage, r.fieldPath(name, attr), rule)
	}
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}

// jsonKeyIs reports whether key is the JSON form of the XML name.
func jsonKeyIs(key, name string, attr bool) bool {
	if attr || name == "" || name[0] < 'A' || name[0] > 'Z' {
		return key == name
	}
	return len(key) == len(name) && key[0] == name[0]+'a'-'A' && key[1:] == name[1:]
}

// jfield returns the value of JSON key for name, nil if absent or null.
func (r *reader) jfield(name string, attr bool) *jnode {
	for i, m := range r.j.Members {
		if jsonKeyIs(m.Name, name, attr) {
			r.used[i] = true
			if v := m.Value; v.Kind != jsontree.Null {
				return v
			}
			return nil
		}
	}
	return nil
}

// xattr returns the attribute name, and whether it is there.
func (r *reader) xattr(name string) (string, bool) {
	val, found := "", false
	for i, a := range r.x.attrs {
		if a.Name.Space == "" && a.Name.Local == name {
			if found {
				r.fail(name, true, ruleOnce)
				return "", false
			}
			r.used[i] = true
			val, found = a.Value, true
		}
	}
	return val, found
}

// xchild returns the single child element name, nil if absent.
func (r *reader) xchild(name string) *xnode {
	var found *xnode
	off := len(r.x.attrs)
	for i, k := range r.x.kids {
		if k.name == name {
			if found != nil {
				r.fail(name, false, ruleOnce)
				return nil
			}
			r.used[off+i] = true
			found = k
		}
	}
	return found
}

// scalar returns the text of field name: an XML attribute or text-only
// element, or a JSON value of kind want. ok is false when it is absent or
// when r failed.
func (r *reader) scalar(name string, attr bool, want jsontree.Kind) (string, bool, *jnode) {
	if r.d.err != nil {
		return "", false, nil
	}
	if r.x != nil {
		if attr {
			v, ok := r.xattr(name)
			return v, ok, nil
		}
		k := r.xchild(name)
		if k == nil {
			return "", false, nil
		}
		if len(k.kids) != 0 || len(k.attrs) != 0 {
			r.fail(name, false, "must be an element with text only")
			return "", false, nil
		}
		return k.text, true, nil
	}
	v := r.jfield(name, attr)
	if v == nil {
		return "", false, nil
	}
	if v.Kind != want {
		r.fail(name, attr, "must be "+want.String()+", not "+v.Kind.String())
		return "", false, nil
	}
	return v.Text, true, v
}

// str reads a string field; ok reports presence. encoding/xml and
// jsontext make each string of the tree a copy of its own, so a reply kept
// in the reply cache (its correlationId, say) keeps no more of the request
// alive than that string.
func (r *reader) str(name string, attr bool) (string, bool) {
	s, ok, _ := r.scalar(name, attr, jsontree.String)
	return s, ok
}

// strRule reads a string field that must pass valid when present, and must
// be present if required.
func (r *reader) strRule(name string, attr, required bool, valid func(string) bool, rule string) string {
	s, ok := r.str(name, attr)
	switch {
	case !ok && required:
		r.fail(name, attr, ruleRequired)
	case ok && !valid(s):
		r.fail(name, attr, rule)
	}
	if r.d.err != nil {
		return ""
	}
	return s
}

// integer reads a non-negative integer field (at most 9 digits).
func (r *reader) integer(name string, attr bool) (int, bool) {
	s, ok, _ := r.scalar(name, attr, jsontree.Number)
	if !ok {
		return 0, false
	}
	if len(s) < 1 || len(s) > 9 || !isDigits(s, len(s)) {
		r.fail(name, attr, ruleInteger)
		return 0, false
	}
	n, _ := strconv.Atoi(s)
	return n, true
}

// intRule reads an integer field in min..max.
func (r *reader) intRule(name string, attr, required bool, min, max int, rule string) (int, bool) {
	n, ok := r.integer(name, attr)
	switch {
	case r.d.err != nil:
		return 0, false
	case !ok && required:
		r.fail(name, attr, ruleRequired)
		return 0, false
	case ok && (n < min || n > max):
		r.fail(name, attr, rule)
		return 0, false
	}
	return n, ok
}

// boolean reads a boolean field: XML true, false, 1 or 0 (xsd:boolean),
// JSON true or false.
func (r *reader) boolean(name string, attr bool) bool {
	s, ok, v := r.scalar(name, attr, jsontree.Bool)
	if !ok {
		return false
	}
	if v != nil {
		return v.Bool
	}
	switch s {
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	r.fail(name, attr, ruleBool)
	return false
}

// parseDateTime parses an RFC 3339 date-time. The zone is normalised (UTC
// for offset zero, an unnamed fixed zone otherwise) so the value does not
// depend on the machine's local zone and survives a round trip unchanged.
func parseDateTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, false
	}
	_, off := t.Zone()
	if off == 0 {
		return t.UTC(), true
	}
	return t.In(time.FixedZone("", off)), true
}

// dateTime reads an RFC 3339 date-time field; zero when absent.
func (r *reader) dateTime(name string, attr, required bool) time.Time {
	s, ok := r.str(name, attr)
	if !ok {
		if required {
			r.fail(name, attr, ruleRequired)
		}
		return time.Time{}
	}
	t, valid := parseDateTime(s)
	if !valid {
		r.fail(name, attr, ruleDateTime)
	}
	return t
}

// text reads the content of r: the text of its own XML element, or its
// JSON string key. ok reports presence (XML: text that is not empty).
func (r *reader) text(key string) (string, bool) {
	if r.d.err != nil {
		return "", false
	}
	if r.x != nil {
		r.textRead = true
		return r.x.text, r.x.text != ""
	}
	return r.str(key, true)
}

// failText records that the content of r (see text) breaks rule: XML
// names the element, JSON the key.
func (r *reader) failText(key, rule string) {
	if r.x != nil {
		if r.d.err == nil {
			r.d.fail(CodeInvalidMessage, r.path(), rule)
		}
		return
	}
	r.fail(key, true, rule)
}

// child returns a reader of the single element or object name, nil if
// absent (or required and absent, which fails).
func (r *reader) child(name string, required bool) *reader {
	if r.d.err != nil {
		return nil
	}
	var c *reader
	if r.x != nil {
		if k := r.xchild(name); k != nil {
			c = newReader(r.d, r, name, "", -1, k, nil)
		}
	} else if v := r.jfield(name, false); v != nil {
		if v.Kind != jsontree.Object {
			r.fail(name, false, "must be an object, not "+v.Kind.String())
			return nil
		}
		c = newReader(r.d, r, name, lowerFirst(name), -1, nil, v)
	}
	if c == nil && required && r.d.err == nil {
		r.fail(name, false, ruleRequired)
	}
	return c
}

// list returns readers of the repeated element xmlName (XML) or of the
// items of the array jsonKey (JSON); at most max of them.
func (r *reader) list(xmlName, jsonKey string, max int) []*reader {
	if r.d.err != nil {
		return nil
	}
	var out []*reader
	tooMany := func() []*reader {
		if r.x != nil {
			r.fail(xmlName, false, "must appear at most "+strconv.Itoa(max)+" times")
		} else {
			r.fail(jsonKey, true, "must have at most "+strconv.Itoa(max)+" items")
		}
		return nil
	}
	if r.x != nil {
		off := len(r.x.attrs)
		for i, k := range r.x.kids {
			if k.name != xmlName {
				continue
			}
			if len(out) == max {
				return tooMany()
			}
			r.used[off+i] = true
			out = append(out, newReader(r.d, r, xmlName, "", len(out), k, nil))
		}
		return out
	}
	v := r.jfield(jsonKey, true)
	if v == nil {
		return nil
	}
	if v.Kind != jsontree.Array {
		r.fail(jsonKey, true, "must be an array, not "+v.Kind.String())
		return nil
	}
	if len(v.Items) > max {
		return tooMany()
	}
	for i, item := range v.Items {
		c := newReader(r.d, r, xmlName, jsonKey, i, nil, item)
		if item.Kind != jsontree.Object {
			r.d.fail(CodeInvalidMessage, c.path(), "must be an object, not "+item.Kind.String())
			return nil
		}
		out = append(out, c)
	}
	return out
}

// done fails on the first field of r that no read asked for, and on text
// in an XML element that holds elements.
func (r *reader) done() {
	if r.d.err != nil {
		return
	}
	if r.x != nil {
		for i, a := range r.x.attrs {
			if !r.used[i] {
				name := a.Name.Local
				if a.Name.Space != "" {
					name = a.Name.Space + ":" + name
				}
				r.d.fail(CodeInvalidMessage, r.fieldPath(shortName(name), true), "is not a known attribute here")
				return
			}
		}
		for i, k := range r.x.kids {
			if !r.used[len(r.x.attrs)+i] {
				r.d.fail(CodeInvalidMessage, r.fieldPath(shortName(k.name), false), "is not a known element here")
				return
			}
		}
		if r.x.text != "" && !r.textRead {
			r.d.fail(CodeInvalidMessage, r.path(), "must hold elements, not text")
		}
		return
	}
	for i, m := range r.j.Members {
		if !r.used[i] {
			r.d.fail(CodeInvalidMessage, r.fieldPath(shortName(m.Name), true), "is not a known field here")
			return
		}
	}
}
