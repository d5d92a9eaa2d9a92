package osdmsandbox

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/caddy-osdm/caddy-osdm/internal/jsontree"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// decode parses a JSON request body into v, an osdm type or one of the
// sandbox's request shapes, the way the converter reads a partner's
// answer into the osdm types (github.com/go-json-experiment/json, the
// implementation behind encoding/json/v2, default options): member names
// match exactly as the spec writes them, an object may not repeat a
// name, strings must be valid UTF-8, nothing may follow the value.
// Members the types do not have are ignored, as OSDM readers should. An
// empty body (or only white space) is an error unless emptyOK.
//
// A body that cannot be read is a 400 MALFORMED_REQUEST that says what is
// wrong and, where a member is at fault (a wrong type, a repeated name,
// bad UTF-8 in a string), points at it.
func decode(body []byte, v any, emptyOK bool) *osdm.ProblemError {
	if len(bytes.TrimSpace(body)) == 0 {
		if emptyOK {
			return nil
		}
		return osdm.Invalid(osdm.CodeValidationError, "", "a JSON body is required")
	}
	return decodeAt("", body, v)
}

// decodeAt is decode of the member of the body at pointer base ("" for
// the whole body), a JSON value that was kept raw.
func decodeAt(base string, raw []byte, v any) *osdm.ProblemError {
	// json.Unmarshal reads null as the zero value: a null body or array
	// item would pass as an empty one.
	if ptr, null := jsontree.NullItem(raw); null {
		switch {
		case ptr != "":
			return osdm.Invalid(osdm.CodeMalformedRequest, "#"+base+ptr, "malformed JSON body: #"+base+ptr+" must not be null (an array item is a value)")
		case base != "":
			return osdm.Invalid(osdm.CodeMalformedRequest, "#"+base, "malformed JSON body: #"+base+" must be an object, not null")
		}
		return osdm.Invalid(osdm.CodeMalformedRequest, "", "malformed JSON body: the body must be an object, not null")
	}
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var syn *jsontext.SyntacticError
	if errors.As(err, &syn) {
		at := "#" + base + string(syn.JSONPointer)
		switch {
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return osdm.Invalid(osdm.CodeMalformedRequest, at, "malformed JSON body: "+at+" appears twice in one object")
		case !utf8.Valid(raw):
			return osdm.Invalid(osdm.CodeMalformedRequest, at, "malformed JSON body: "+at+" is not valid UTF-8 (at byte "+strconv.FormatInt(syn.ByteOffset, 10)+")")
		}
		return osdm.Invalid(osdm.CodeMalformedRequest, "", "malformed JSON body at byte "+strconv.FormatInt(syn.ByteOffset, 10)+": "+syn.Err.Error())
	}
	var se *json.SemanticError
	if errors.As(err, &se) && se.GoType != nil {
		at, where := "", "the body"
		if p := base + string(se.JSONPointer); p != "" {
			at = "#" + p
			where = at
		}
		want, got := jsonKindOf(se.GoType), jsonKindName(se.JSONKind)
		switch {
		case se.JSONKind != 0 && got != want && !(want == "an integer" && got == "a number"):
			return osdm.Invalid(osdm.CodeMalformedRequest, at, "malformed JSON body: "+where+" must be "+want+", not "+got)
		case want == "an integer":
			return osdm.Invalid(osdm.CodeMalformedRequest, at, "malformed JSON body: "+where+" must be an integer (a whole number within range)")
		case se.Err != nil:
			return osdm.Invalid(osdm.CodeMalformedRequest, at, "malformed JSON body: "+where+": "+se.Err.Error())
		}
		return osdm.Invalid(osdm.CodeMalformedRequest, at, "malformed JSON body: "+where+" must be "+want)
	}
	return osdm.Invalid(osdm.CodeMalformedRequest, "", "malformed JSON body: "+err.Error())
}

// jsonKindOf names the JSON value a Go type is read from.
func jsonKindOf(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a JSON value"
}

// jsonKindName names a JSON kind as a client reads it.
func jsonKindName(k jsontext.Kind) string {
	switch k {
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "another JSON value"
}
