package osdmspec

import (
	"net/http"
	"sort"
	"strconv"
	"testing"
)

// SuccessStatuses returns the 2xx statuses the spec lists for the operation
// that method and path select, sorted (e.g. [200 202] for
// POST /bookings/{id}/fulfillments), so a test can compare a client's or the
// sandbox's idea of success with the spec's.
func SuccessStatuses(tb testing.TB, version Version, method, path string) []int {
	tb.Helper()
	s, err := load(version)
	if err == nil {
		var in *requestInput
		in, err = newRequest(s, method, path, http.Header{}, nil)
		if err == nil {
			var codes []int
			for code := range in.Route.Operation.Responses.Map() {
				if n, convErr := strconv.Atoi(code); convErr == nil && n >= 200 && n < 300 {
					codes = append(codes, n)
				}
			}
			sort.Ints(codes)
			return codes
		}
	}
	tb.Errorf("OSDM %s %s %s: %v", version, method, path, err)
	return nil
}
