package legacy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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

// The rules of legacy-protocol.md a field can break: what the reader
// checks each field against, requests and replies alike.

// The rules a field can break, as Error.Rule phrases them.
const (
	ruleRequired      = "is required"
	ruleOnce          = "must appear at most once"
	ruleMessageID     = "must be 1..64 characters of A-Z a-z 0-9 . _ : -"
	ruleDateTime      = "must be an RFC 3339 date-time"
	ruleSender        = "must be a reservation system code 1..9999"
	ruleTrainNumber   = "must be 1..5 letters or digits"
	ruleDate          = "must be a calendar date YYYY-MM-DD"
	ruleTime          = "must be a time HH:MM"
	ruleStation       = "must be a 7-digit UIC station code, or urn:uic:stn: and 7 digits"
	ruleSameStation   = "must differ from the departure station"
	ruleRICS          = "must be a 4-digit RICS company code"
	ruleTravelClass   = "must be 1 or 2"
	ruleServiceCode   = "must be 1, 2 or 3"
	ruleServiceLevel  = "must be 1..8 letters or digits"
	ruleTariffs       = "at least one is required"
	ruleTariffCode    = "must be a tariff code 0..9999"
	ruleCount         = "must be 1..9"
	rulePlaces        = "the tariff counts must add up to at most 9 places"
	ruleName          = "must be 1..70 characters, not only white space, without control or bidirectional formatting characters"
	ruleOfferRef      = "must be 1..512 printable ASCII characters without spaces"
	ruleRef           = "must be 1..128 printable ASCII characters without spaces"
	ruleReasonCode    = "must be a reason code 0..9999"
	ruleBool          = "must be true or false"
	ruleInteger       = "must be a non-negative integer"
	ruleAmount        = "must be a non-negative decimal amount such as 49.90"
	ruleCurrency      = "must be an ISO 4217 currency code of 3 capital letters"
	ruleText          = "must be 1..1000 characters without control characters"
	ruleToken         = "must be 1..64 characters of A-Z a-z 0-9 _ . : -"
	ruleIndex         = "must be a passenger index 1..9"
	rulePassengers    = "at least one is required"
	rulePassengerData = "must set at least one of firstName, lastName, dateOfBirth"
)

func validMessageID(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '.' && c != '_' && c != ':' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// alnum reports whether s is min..max ASCII letters or digits.
func alnum(s string, min, max int) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

// printableASCII reports whether s is 1..max of '!'..'~'.
func printableASCII(s string, max int) bool {
	if len(s) < 1 || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// PlainText reports whether s is 1..max characters of valid UTF-8 with no
// control characters (XML cannot carry most of them): the protocol's rule
// for a text, and the base of its rule for a name (NameFault).
func PlainText(s string, max int) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == 0xFFFE || r == 0xFFFF {
			return false
		}
	}
	return true
}

// validDate reports whether s is a real calendar date YYYY-MM-DD.
func validDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// validClock reports whether s is HH:MM, 00:00..23:59.
func validClock(s string) bool {
	if len(s) != 5 || s[2] != ':' || !isDigits(s[:2], 2) || !isDigits(s[3:], 2) {
		return false
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	return h < 24 && m < 60
}

// normStation returns the 7-digit form of a UIC station code, or "" if s is
// not one.
func normStation(s string) string {
	s = strings.TrimPrefix(s, "urn:uic:stn:")
	if isDigits(s, 7) {
		return s
	}
	return ""
}

// validAmount reports whether s is a non-negative decimal: 1..15 digits,
// optionally a point and 1..6 digits.
func validAmount(s string) bool {
	whole, frac, dot := strings.Cut(s, ".")
	if len(whole) < 1 || len(whole) > 15 || !isDigits(whole, len(whole)) {
		return false
	}
	return !dot || len(frac) >= 1 && len(frac) <= 6 && isDigits(frac, len(frac))
}

// ValidCurrency reports whether s is a currency as the protocol carries
// it: an ISO 4217 code of 3 capital letters.
func ValidCurrency(s string) bool {
	return len(s) == 3 && s[0] >= 'A' && s[0] <= 'Z' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'A' && s[2] <= 'Z'
}

// ValidTrainNumber reports whether s is a train number the protocol
// carries: 1..5 letters or digits.
func ValidTrainNumber(s string) bool { return alnum(s, 1, 5) }

// ValidRICS reports whether s is a RICS company code as the protocol
// carries it: 4 digits.
func ValidRICS(s string) bool { return isDigits(s, 4) }

func validServiceLevel(s string) bool {
	return alnum(s, 1, 8)
}

// ValidOfferRef reports whether s is an OfferRef as the protocol carries
// it: 1..512 printable ASCII characters without spaces.
func ValidOfferRef(s string) bool { return printableASCII(s, 512) }

// ValidRef reports whether s is a reference (BookingRef, ExchangeOf,
// FulfilmentRef) as the protocol carries it: 1..128 printable ASCII
// characters without spaces.
func ValidRef(s string) bool { return printableASCII(s, 128) }

func validName(s string) bool { return NameFault(s) == "" }

// NameFault says why s breaks the protocol's rule for a passenger's first
// or last name, "" when it keeps it: 1..70 characters of valid UTF-8
// (PlainText), not only white space, and no bidirectional formatting
// character (U+202E and the like, which make a name read otherwise than
// it is stored).
func NameFault(s string) string {
	switch {
	case !PlainText(s, 70):
		return "must be 1..70 characters without control characters"
	case strings.TrimSpace(s) == "":
		return "must not be only white space"
	}
	for _, r := range s {
		if unicode.Is(unicode.Bidi_Control, r) {
			return fmt.Sprintf("must not hold the bidirectional formatting character U+%04X", r)
		}
	}
	return ""
}
