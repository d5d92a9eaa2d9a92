package osdm

import (
	"net/http"
	"testing"
)

// TestRouterMatches: a served operation is found with its decoded
// parameters; an operation of the spec nobody serves is a 501 naming it; a
// method the spec has not on a path of it is a 405 with Allow; any other
// path is a 404.
func TestRouterMatches(t *testing.T) {
	r := MustRouter([]Route[string]{
		{Op: OpGetBooking, Handle: "get"},
		{Op: OpDeleteBooking, Handle: "delete"},
		{Op: OpGetRefundOffer, Handle: "getRefund"},
		{Op: Operation{Method: http.MethodGet, Path: PathTripOffers}, Handle: "tripOffers"},
	}, RouterOptions{AnyPrefix: true, Aliases: map[string]string{"refundOffers": "refund-offers"}, Subject: "the test"})

	m := r.Match(http.MethodGet, "/api/v3/bookings/b-1%2F2")
	if m.Route == nil || m.Route.Handle != "get" || m.Params[ParamBookingID] != "b-1/2" {
		t.Fatalf("GET booking: %+v", m)
	}
	m = r.Match(http.MethodGet, "/bookings/b-1/refundOffers/ro-1")
	if m.Route == nil || m.Route.Handle != "getRefund" || m.Params[ParamRefundOfferID] != "ro-1" {
		t.Fatalf("alias: %+v", m)
	}
	if m = r.Match(http.MethodGet, "/trip-offers"); m.Route == nil || m.Route.Handle != "tripOffers" {
		t.Fatalf("own operation: %+v", m)
	}

	m = r.Match(http.MethodPatch, "/bookings/b-1")
	if m.Route != nil || m.Problem == nil || m.Problem.Status != http.StatusNotImplemented || m.Problem.Code != CodeOperationNotPermitted ||
		m.Unserved == nil || m.Unserved.ID != "updateBooking" {
		t.Fatalf("PATCH booking: %+v %+v", m, m.Problem)
	}
	m = r.Match(http.MethodDelete, "/bookings/b-1/refund-offers/ro-1")
	if m.Problem == nil || m.Problem.Status != http.StatusNotImplemented || m.Unserved.ID != "deleteRefundOffers" {
		t.Fatalf("DELETE refund offer not served: %+v", m)
	}

	m = r.Match(http.MethodPut, "/bookings/b-1")
	if m.Problem == nil || m.Problem.Status != http.StatusMethodNotAllowed || m.Problem.Allow != "DELETE, GET, PATCH" {
		t.Fatalf("PUT booking: %+v", m.Problem)
	}
	for _, path := range []string{"/bookings/b-1/tickets", "/nothing", "/bookings//refund-offers", "bookings", "/bookings/%zz"} {
		if m = r.Match(http.MethodGet, path); m.Problem == nil || m.Problem.Status != http.StatusNotFound || m.Problem.Code != CodeResourceNotFound {
			t.Errorf("%s: %+v", path, m.Problem)
		}
	}
	// Without AnyPrefix a prefix is part of the path.
	strict := MustRouter([]Route[string]{{Op: OpGetBooking, Handle: "get"}}, RouterOptions{})
	if m = strict.Match(http.MethodGet, "/api/bookings/b-1"); m.Route != nil || m.Problem.Status != http.StatusNotFound {
		t.Errorf("strict router took a prefix: %+v", m)
	}
}

// TestRouterRefusesDuplicates: one method and path is one row.
func TestRouterRefusesDuplicates(t *testing.T) {
	dup := Operation{Method: http.MethodGet, Path: "/bookings/{id}"}
	if _, err := NewRouter([]Route[int]{{Op: OpGetBooking}, {Op: dup}}, RouterOptions{}); err == nil {
		t.Error("two routes of GET /bookings/{...} accepted")
	}
	for _, bad := range []string{"", "/", "bookings", "/bookings/{id", "/a//b"} {
		if _, err := NewRouter([]Route[int]{{Op: Operation{Method: "GET", Path: bad}}}, RouterOptions{}); err == nil {
			t.Errorf("template %q accepted", bad)
		}
	}
}
