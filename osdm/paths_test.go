package osdm

import (
	"net/http"
	"slices"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

func TestExpandPath(t *testing.T) {
	params := map[string]string{ParamBookingID: "bk/1 x", ParamRefundOfferID: "ro-1"}
	got, err := ExpandPath(PathRefundOffer, params)
	if err != nil || got != "/bookings/bk%2F1%20x/refund-offers/ro-1" {
		t.Fatalf("ExpandPath = %q, %v", got, err)
	}
	// An override template of an older partner.
	got, err = ExpandPath("/booking/{bookingId}/fulfillments", params)
	if err != nil || got != "/booking/bk%2F1%20x/fulfillments" {
		t.Fatalf("override: %q, %v", got, err)
	}
	if got, err := ExpandPath(PathOffers, nil); err != nil || got != "/offers" {
		t.Fatalf("no placeholder: %q, %v", got, err)
	}
	for _, bad := range []string{"/bookings/{bookingId", "/bookings/{bookingID}", "/x/{refundOfferId}/{other}"} {
		if got, err := ExpandPath(bad, params); err == nil {
			t.Errorf("ExpandPath(%q) = %q, want an error", bad, got)
		}
	}
	if _, err := ExpandPath(PathBooking, map[string]string{ParamBookingID: ""}); err == nil {
		t.Error("empty bookingId accepted")
	}
}

// TestOperationsMatchSpec proves every operation exists in OSDM 3.9 with
// exactly the success codes we expect (POST /bookings is 200, not 201).
func TestOperationsMatchSpec(t *testing.T) {
	params := map[string]string{ParamBookingID: "bk-1", ParamRefundOfferID: "ro-1"}
	for _, op := range []Operation{OpCreateOffers, OpCreateBooking, OpGetBooking, OpDeleteBooking, OpCreateFulfillments, OpCreateRefundOffers, OpPatchRefundOffer} {
		path, err := ExpandPath(op.Path, params)
		if err != nil {
			t.Fatal(err)
		}
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
