package osdmsandbox_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

const (
	key1 = "6f1c0a52-8a6e-5b8c-9d7e-1f2a3b4c5d6e"
	key2 = "0b7e6d5c-4b3a-5291-8f7e-6d5c4b3a2910"
)

func TestIdempotentBooking(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 10})
	offer := offerOf(t, h.search(offerRequest("708", nil)), osdm.TravelClassSecond, osdm.AccommodationSeat)
	req := bookingRequest(offer)

	first := h.call(http.MethodPost, "/bookings", key1, req)
	second := h.call(http.MethodPost, "/bookings", key1, req)
	if first.status != http.StatusOK || second.status != http.StatusOK || !bytes.Equal(first.body, second.body) {
		t.Fatalf("same key twice: %d %s / %d %s", first.status, first.body, second.status, second.body)
	}
	if first.header.Get(osdmsandbox.HeaderReplayed) != "" || second.header.Get(osdmsandbox.HeaderReplayed) != "true" {
		t.Errorf("replay header %q %q", first.header.Get(osdmsandbox.HeaderReplayed), second.header.Get(osdmsandbox.HeaderReplayed))
	}
	bookings := h.sb.Bookings()
	if len(bookings) != 1 || len(bookings[0].IdempotencyKeys) != 1 || bookings[0].IdempotencyKeys[0] != key1 {
		t.Fatalf("bookings %+v, want one made with %s", bookings, key1)
	}
	if got := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); got != 9 {
		t.Errorf("availability %d: the replay took places", got)
	}

	// The same key with another body is refused and changes nothing.
	other := req
	other.ExternalRef = "another message"
	p := h.call(http.MethodPost, "/bookings", key1, other).problem(t, http.StatusUnprocessableEntity, osdm.CodeOperationNotPermitted)
	if !strings.Contains(p.Detail, key1) {
		t.Errorf("detail %q", p.Detail)
	}
	// A new key is a new request (here: the offer is booked already).
	h.call(http.MethodPost, "/bookings", key2, req).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
	if n := len(h.sb.Bookings()); n != 1 {
		t.Errorf("%d bookings", n)
	}

	// Keys are scoped by path: the same key fulfils without clashing, and
	// a failure is stored like a success.
	id := bookings[0].ID
	f1 := h.call(http.MethodPost, "/bookings/"+id+"/fulfillments", key1, osdm.FulfillmentPostRequest{})
	f2 := h.call(http.MethodPost, "/bookings/"+id+"/fulfillments", key1, osdm.FulfillmentPostRequest{})
	if f1.status != http.StatusOK || !bytes.Equal(f1.body, f2.body) || f2.header.Get(osdmsandbox.HeaderReplayed) != "true" {
		t.Errorf("fulfil twice with one key: %d %s / %s", f1.status, f1.body, f2.body)
	}
	var ful osdm.FulfillmentCollectionResponse
	f1.decode(t, &ful)
	refund := osdm.RefundOfferRequest{FulfillmentIDs: []string{ful.Fulfillments[0].ID}}
	r1 := h.call(http.MethodPost, "/bookings/"+id+"/refund-offers", key1, refund)
	r2 := h.call(http.MethodPost, "/bookings/"+id+"/refund-offers", key1, refund)
	var ro osdm.RefundOfferCollectionResponse
	r1.decode(t, &ro)
	if !bytes.Equal(r1.body, r2.body) || len(h.getBooking(id).RefundOffers) != 1 {
		t.Errorf("refund offer twice with one key made two")
	}
	patch := "/bookings/" + id + "/refund-offers/" + ro.RefundOffers[0].ID
	p1 := h.call(http.MethodPatch, patch, key1, osdm.RefundOfferPatchRequest{Status: osdm.RefundConfirmed})
	p2 := h.call(http.MethodPatch, patch, key1, osdm.RefundOfferPatchRequest{Status: osdm.RefundConfirmed})
	if p1.status != http.StatusOK || !bytes.Equal(p1.body, p2.body) || p2.header.Get(osdmsandbox.HeaderReplayed) != "true" {
		t.Errorf("PATCH twice with one key: %d %s / %s", p1.status, p1.body, p2.body)
	}
	if keys := h.sb.Bookings()[0].IdempotencyKeys; len(keys) != 4 {
		t.Errorf("keys recorded %v, want the booking, fulfilment, refund offer and PATCH calls", keys)
	}
}

func TestIdempotencyKeyExpires(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Retention: time.Hour})
	missing := osdm.FulfillmentPostRequest{}
	h.call(http.MethodPost, "/bookings/b-x/fulfillments", key1, missing).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	h.clock.Advance(time.Hour)
	// Forgotten: the other body is a new request, not a reuse.
	r := h.call(http.MethodPost, "/bookings/b-x/fulfillments", key1, osdm.FulfillmentPostRequest{IssuingLanguage: "de"})
	r.problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if r.header.Get(osdmsandbox.HeaderReplayed) != "" {
		t.Error("an expired key was replayed")
	}
}

func TestIdempotencyKeyMustBeUUID(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	header := http.Header{"Content-Type": {"application/json"}, osdm.HeaderIdempotencyKey: {"msg-1/bookings"}}
	p := h.raw(http.MethodPost, "/bookings", header, []byte(`{}`)).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
	if !strings.Contains(p.Detail, "UUID") {
		t.Errorf("detail %q", p.Detail)
	}
}

// TestIdempotencyKeyGivenTwiceRefused: two Idempotency-Key headers (two
// keys, or one a proxy repeated) leave which request this is a guess; the
// call is refused, nothing booked, and the offer stays bookable.
func TestIdempotencyKeyGivenTwiceRefused(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	o := h.search(offerRequest("708", nil)).Offers[0]
	body := osdmspec.Marshal(t, bookingRequest(o))
	for _, keys := range [][]string{
		{"6f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f", "7f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f"},
		{"6f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f", "6f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f"},
	} {
		header := http.Header{"Content-Type": {"application/json"}, osdm.HeaderIdempotencyKey: keys}
		p := h.raw(http.MethodPost, "/bookings", header, body).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
		if p.Detail != "Idempotency-Key is given 2 times; send one key" {
			t.Errorf("detail %q", p.Detail)
		}
	}
	h.book(o)
}
