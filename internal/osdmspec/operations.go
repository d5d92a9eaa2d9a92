package osdmspec

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// Operation is one operation of a specification, as a test compares a
// table of operations with it.
type Operation struct {
	// ID is the operationId.
	ID string
	// Method is the HTTP method, upper case.
	Method string
	// Path is the path template.
	Path string
	// Success are the 2xx statuses, sorted.
	Success []int
	// Body: the operation has a request body.
	Body bool
	// Idempotent: the operation (or its path) declares an Idempotency-Key header.
	Idempotent bool
}

// Operations returns every operation of the specification of version,
// sorted by path and method.
func Operations(tb testing.TB, version Version) []Operation {
	tb.Helper()
	s, err := load(version)
	if err != nil {
		tb.Fatal(err)
		return nil
	}
	var out []Operation
	for path, item := range s.doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := Operation{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, Body: op.RequestBody != nil}
			for _, p := range append(append(openapi3.Parameters(nil), item.Parameters...), op.Parameters...) {
				if p.Value != nil && p.Value.Name == "Idempotency-Key" && p.Value.In == openapi3.ParameterInHeader {
					o.Idempotent = true
				}
			}
			for code := range op.Responses.Map() {
				if n, convErr := strconv.Atoi(code); convErr == nil && n >= 200 && n < 300 {
					o.Success = append(o.Success, n)
				}
			}
			sort.Ints(o.Success)
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}
