package osdmlegacy

import (
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// treeReader reads a request tree into Go values, keeping the first
// problem: a wrong type, a value out of range, a member the OSDM schema
// does not have (400), or one outside the restrictions (422). Every
// method is a no-op once a problem is kept.
type treeReader struct {
	// code is the 400 code of the call's area (osdm.CodeOfferInvalid, osdm.CodeInvalidRequest).
	code string
	// outCode is the 422 code of the call's area (osdm.CodeOfferOutOfBounds, osdm.CodeOutOfBounds).
	outCode string
	err     *osdm.ProblemError
}

func (r *treeReader) ok() bool { return r.err == nil }

// invalid keeps a 400 about ptr.
func (r *treeReader) invalid(ptr, detail string) {
	if r.err == nil {
		r.err = osdm.Invalid(r.code, ptr, detail)
	}
}

// restricted keeps a 422 about ptr under restriction res.
func (r *treeReader) restricted(res Restriction, ptr, detail string) {
	if r.err == nil {
		r.err = restricted(res, r.outCode, ptr, detail)
	}
}

// given says whether v holds a value: absent members and JSON null (the
// spec makes most members nullable) are both "not given".
func given(v *jnode) bool { return v != nil && v.Kind != jsontree.Null }

// members walks an object's members, calling member for each; a member
// for which member returns false is not in the schema and is refused,
// except a discriminator: objectType naming the object's own schema (as
// consumers send on every object) is accepted and ignored.
func (r *treeReader) members(n *jnode, ptr, schema string, member func(name string, v *jnode, ptr string) bool) {
	if !r.ok() {
		return
	}
	if n.Kind != jsontree.Object {
		r.invalid(ptr, "must be an object ("+schema+"), not "+n.Kind.String())
		return
	}
	for _, m := range n.Members {
		p := ptr + "/" + jsontree.EscapePointer(m.Name)
		if !member(m.Name, m.Value, p) && r.ok() && !r.discriminator(m.Name, m.Value, p, schema) {
			r.invalid(p, "member "+strconv.Quote(shorten(m.Name, 64))+" is not in OSDM's "+schema)
		}
		if !r.ok() {
			return
		}
	}
}

// discriminator reports whether member name is an objectType that names
// schema, which the spec does not list but consumers send; an objectType
// naming another schema is refused here, naming the one expected.
func (r *treeReader) discriminator(name string, v *jnode, ptr, schema string) bool {
	if name != osdm.MemberObjectType {
		return false
	}
	if given(v) && v.Kind == jsontree.String && v.Text == schema {
		return true
	}
	if r.ok() {
		r.invalid(ptr, "objectType must name this object's schema, "+strconv.Quote(schema))
	}
	return true
}

// str reads a string of 1..max bytes.
func (r *treeReader) str(v *jnode, ptr string, max int) string {
	if !r.ok() || !given(v) {
		return ""
	}
	if v.Kind != jsontree.String {
		r.invalid(ptr, "must be a string, not "+v.Kind.String())
		return ""
	}
	if v.Text == "" || len(v.Text) > max {
		r.invalid(ptr, "must be 1.."+strconv.Itoa(max)+" characters")
		return ""
	}
	return v.Text
}

// integer reads an int32 within [min, max]; it returns def when absent.
func (r *treeReader) integer(v *jnode, ptr string, min, max, def int) int {
	if !r.ok() || !given(v) {
		return def
	}
	if v.Kind != jsontree.Number {
		r.invalid(ptr, "must be an integer, not "+v.Kind.String())
		return def
	}
	n, err := strconv.ParseInt(v.Text, 10, 32)
	if err != nil {
		r.invalid(ptr, "must be an integer (int32), not "+shorten(v.Text, 32))
		return def
	}
	if int(n) < min || int(n) > max {
		r.invalid(ptr, "must be "+strconv.Itoa(min)+".."+strconv.Itoa(max)+", not "+v.Text)
		return def
	}
	return int(n)
}

// boolean reads a boolean; def when absent.
func (r *treeReader) boolean(v *jnode, ptr string, def bool) bool {
	if !r.ok() || !given(v) {
		return def
	}
	if v.Kind != jsontree.Bool {
		r.invalid(ptr, "must be a boolean, not "+v.Kind.String())
		return def
	}
	return v.Bool
}

// array reads an array's items; nil when absent.
func (r *treeReader) array(v *jnode, ptr string) []*jnode {
	if !r.ok() || !given(v) {
		return nil
	}
	if v.Kind != jsontree.Array {
		r.invalid(ptr, "must be an array, not "+v.Kind.String())
		return nil
	}
	return v.Items
}

// object checks that v is an object; false (and a problem) if not.
func (r *treeReader) object(v *jnode, ptr, schema string) bool {
	if !r.ok() {
		return false
	}
	if v.Kind != jsontree.Object {
		r.invalid(ptr, "must be an object ("+schema+"), not "+v.Kind.String())
		return false
	}
	return true
}

// item is the pointer of an array item, OSDM's style: "#/legs[0]".
func item(ptr string, i int) string { return ptr + "[" + strconv.Itoa(i) + "]" }

// localTime is a date-time as a request gave it: with an offset it is an
// instant; without one it is a wall clock read later in a station's zone.
type localTime struct {
	text   string
	ptr    string
	offset bool
	t      time.Time // with offset: the instant; without: the wall clock at UTC
}

// dateTime reads an RFC 3339 date-time, with or without its offset
// ("2026-12-01T07:56:00+01:00", "2026-12-01T07:56:00Z",
// "2026-12-01T07:56:00"); fractional seconds are allowed.
func (r *treeReader) dateTime(v *jnode, ptr string) *localTime {
	s := r.str(v, ptr, 64)
	if s == "" {
		return nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return &localTime{text: s, ptr: ptr, offset: true, t: t}
	}
	if !strings.ContainsAny(s[min(len(s), 10):], "Z+z") && strings.Count(s[min(len(s), 10):], "-") == 0 {
		if t, err := time.Parse("2006-01-02T15:04:05", s); err == nil {
			return &localTime{text: s, ptr: ptr, t: t}
		}
	}
	r.invalid(ptr, "must be an RFC 3339 date-time such as 2026-12-01T07:56:00+01:00 (the offset may be left out: local time at the station), not "+strconv.Quote(shorten(s, 40)))
	return nil
}

// in returns the instant of lt, reading a time without offset in loc.
func (lt *localTime) in(loc *time.Location) time.Time {
	if lt.offset {
		return lt.t
	}
	y, m, d := lt.t.Date()
	return time.Date(y, m, d, lt.t.Hour(), lt.t.Minute(), lt.t.Second(), lt.t.Nanosecond(), loc)
}

// date reads a "YYYY-MM-DD" date.
func (r *treeReader) date(v *jnode, ptr string) string {
	s := r.str(v, ptr, 10)
	if s == "" {
		return ""
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		r.invalid(ptr, "must be a date YYYY-MM-DD, not "+strconv.Quote(s))
		return ""
	}
	return s
}
