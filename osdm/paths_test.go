package osdm

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

// TestOperationsMatchSpec proves every operation exists in OSDM 3.9 with
// exactly the success codes we expect (POST /bookings is 200, not 201).
func TestOperationsMatchSpec(t *testing.T) {
	fill := strings.NewReplacer("{bookingId}", "bk-1", "{refundOfferId}", "ro-1")
	for _, op := range []Operation{OpCreateOffers, OpCreateBooking, OpGetBooking, OpDeleteBooking, OpCreateFulfillments, OpCreateRefundOffers, OpPatchRefundOffer} {
		path := fill.Replace(op.Path)
		spec := osdmspec.SuccessStatuses(t, osdmspec.V39, op.Method, path)
		got := slices.Sorted(slices.Values(op.Success))
		if !slices.Equal(got, spec) {
			t.Errorf("%s %s: success %v, spec says %v", op.Method, op.Path, op.Success, spec)
		}
		for _, status := range []int{http.StatusOK, http.StatusCreated, http.StatusAccepted, http.StatusNoContent} {
			if op.IsSuccess(status) != slices.Contains(spec, status) {
				t.Errorf("%s %s: IsSuccess(%d) = %v, spec says %v", op.Method, op.Path, status, op.IsSuccess(status), spec)
			}
		}
	}
}
