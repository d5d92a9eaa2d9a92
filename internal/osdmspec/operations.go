package osdmspec

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// operation is one operation of a specification, as Operations reads it.
type operation struct {
	id, method, path string
	success          []int
	body, idempotent bool
}

// Operations returns every operation of the specification of version,
// sorted by path and method, each as op makes it from its operationId,
// upper-case method, path template, sorted 2xx statuses, whether it has a
// request body and whether it (or its path) declares an Idempotency-Key
// header: a test compares its own table of operations with them.
func Operations[O any](tb testing.TB, version Version, op func(id, method, path string, success []int, body, idempotent bool) O) []O {
	tb.Helper()
	read := readOperations(tb, version)
	out := make([]O, len(read))
	for i, r := range read {
		out[i] = op(r.id, r.method, r.path, r.success, r.body, r.idempotent)
	}
	return out
}

// readOperations reads every operation of the specification of version,
// sorted by path and method.
func readOperations(tb testing.TB, version Version) []operation {
	tb.Helper()
	s, err := load(version)
	if err != nil {
		tb.Fatal(err)
		return nil
	}
	var read []operation
	for path, item := range s.doc.Paths.Map() {
		for method, o := range item.Operations() {
			r := operation{id: o.OperationID, method: strings.ToUpper(method), path: path, body: o.RequestBody != nil}
			for _, p := range append(append(openapi3.Parameters(nil), item.Parameters...), o.Parameters...) {
				if p.Value != nil && p.Value.Name == "Idempotency-Key" && p.Value.In == openapi3.ParameterInHeader {
					r.idempotent = true
				}
			}
			for code := range o.Responses.Map() {
				if n, convErr := strconv.Atoi(code); convErr == nil && n >= 200 && n < 300 {
					r.success = append(r.success, n)
				}
			}
			sort.Ints(r.success)
			read = append(read, r)
		}
	}
	sort.Slice(read, func(i, j int) bool {
		if read[i].path != read[j].path {
			return read[i].path < read[j].path
		}
		return read[i].method < read[j].method
	})
	return read
}
