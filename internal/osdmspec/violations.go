package osdmspec

import (
	"errors"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// violationList is a validation failure as readable lines, one per
// violation, each "<JSON pointer>: <reason>". kin-openapi's own messages dump
// the whole (resolved) schema and value, which for OSDM runs to pages.
type violationList []string

func (v violationList) Error() string { return "  " + strings.Join(v, "\n  ") }

// violations turns a kin-openapi error into a violationList (nil for nil).
func violations(err error) error {
	if err == nil {
		return nil
	}
	var out violationList
	collect(err, "", &out)
	if len(out) == 0 {
		out = append(out, err.Error())
	}
	return out
}

// collect uses type switches rather than errors.As: kin's MultiError.As and
// SchemaError.Unwrap would make errors.As match nested errors first and lose
// the outer ones.
func collect(err error, prefix string, out *violationList) {
	switch e := err.(type) {
	case openapi3.MultiError:
		for _, inner := range e {
			collect(inner, prefix, out)
		}
	case *openapi3filter.RequestError:
		where := "request"
		switch {
		case e.Parameter != nil:
			where = "parameter " + e.Parameter.In + " " + e.Parameter.Name
		case e.RequestBody != nil:
			where = "body"
		}
		if e.Err == nil || !hasSchemaError(e.Err) {
			*out = append(*out, where+": "+e.Error())
			return
		}
		if e.Parameter != nil {
			// A parameter's schema errors point into the parameter value.
			prefix = where
		}
		collect(e.Err, prefix, out)
	case *openapi3filter.ResponseError:
		if e.Err == nil || !hasSchemaError(e.Err) {
			*out = append(*out, "response: "+e.Error())
			return
		}
		collect(e.Err, prefix, out)
	case *openapi3.SchemaError:
		pointer := prefix + jsonPointer(e.JSONPointer())
		if pointer == "" {
			pointer = "/" // the whole document
		}
		reason := e.Reason
		if reason == "" {
			reason = "violates " + e.SchemaField
		}
		*out = append(*out, pointer+": "+reason)
		// oneOf/anyOf failures carry the errors of each branch (their
		// pointers are already complete); they say what was actually wrong.
		if e.Origin != nil && hasSchemaError(e.Origin) {
			collect(e.Origin, prefix, out)
		}
	default:
		if inner := errors.Unwrap(err); inner != nil && hasSchemaError(inner) {
			collect(inner, prefix, out)
			return
		}
		*out = append(*out, err.Error())
	}
}

// hasSchemaError reports whether err is, or wraps, schema violations.
func hasSchemaError(err error) bool {
	for err != nil {
		switch e := err.(type) {
		case *openapi3.SchemaError:
			return true
		case openapi3.MultiError:
			for _, inner := range e {
				if hasSchemaError(inner) {
					return true
				}
			}
			return false
		}
		err = errors.Unwrap(err)
	}
	return false
}

// jsonPointer renders path segments as an RFC 6901 pointer.
func jsonPointer(segments []string) string {
	var b strings.Builder
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(s))
	}
	return b.String()
}
