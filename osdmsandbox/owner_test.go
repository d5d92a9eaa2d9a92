package osdmsandbox_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// TestAfterSalesAreTheirClientsOnly: the anonymous owner's booking with an
// exchange operation under way, another with a refund offer, and a
// deleted one. Every call another client makes about them, with or
// without an Idempotency-Key, is answered exactly as the same call about
// ids that name nothing (status and body but for the ids), and changes
// nothing: the exchange operation (GET, PATCH, DELETE, a second POST),
// fulfilment, passenger, refund offer (also under the older refundOffers
// spelling), the deleted booking, and booking the owner's offer; the
// debug listing shows the other client none of them.
func TestAfterSalesAreTheirClientsOnly(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	serve := func(method, path string, body any, key string) *osdm.Answer {
		t.Helper()
		hd, b := testrig.JSONRequest(t, body)
		if key != "" {
			hd.Set("Idempotency-Key", key)
		}
		return h.sb.ServeClient(context.Background(), "coastal", method, path, hd, b)
	}
	search := func() osdm.Offer {
		return offerOf(t, h.search(offerRequest("708", nil, adult("p1"))), osdm.TravelClassSecond, osdm.AccommodationSeat)
	}
	b := h.book(search(), adult("p1"))
	f := h.fulfil(b.ID)
	xo := seatOffer(t, h.exchangeOffers(b, f.ID, "709", osdm.TravelClassFirst, adult("p1")))
	var op osdm.ExchangeOperationResponse
	h.exchangeOperation(b.ID, xo).decode(t, &op)
	xid := op.ExchangeOperation.ID
	b2 := h.book(search(), adult("p1"))
	ro := h.refundOffer(b2.ID, h.fulfil(b2.ID).ID, "")
	b3 := h.book(search(), adult("p1"))
	if r := h.call(http.MethodDelete, "/bookings/"+b3.ID, "", nil); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	unbooked := search()
	before := h.sb.Bookings()

	unknown := func(id string) string { return id[:len(id)-2] + "99" }
	pid := b.Passengers[0].ID
	rename := map[string]any{"id": pid, "externalRef": "p1", "type": "ADULT", "detail": map[string]any{"firstName": "Mallory", "lastName": "Thief"}}
	sel := map[string]any{"exchangeOffers": []any{map[string]any{"offerId": xo.OfferID, "passengerRefs": xo.PassengerRefs}}}
	type probe struct {
		what, method, path, unknownPath string
		body, unknownBody               any
	}
	probes := []probe{
		{"GET deleted booking", "GET", "/bookings/" + b3.ID, "/bookings/" + unknown(b3.ID), nil, nil},
		{"DELETE deleted booking", "DELETE", "/bookings/" + b3.ID, "/bookings/" + unknown(b3.ID), nil, nil},
		{"GET exchange operation", "GET", "/bookings/" + b.ID + "/exchange-operations/" + xid, "/bookings/" + unknown(b.ID) + "/exchange-operations/" + xid, nil, nil},
		{"PATCH exchange operation", "PATCH", "/bookings/" + b.ID + "/exchange-operations/" + xid, "/bookings/" + unknown(b.ID) + "/exchange-operations/" + xid, `{"requestedFulfillmentType": "ETICKET"}`, nil},
		{"DELETE exchange operation", "DELETE", "/bookings/" + b.ID + "/exchange-operations/" + xid, "/bookings/" + unknown(b.ID) + "/exchange-operations/" + xid, nil, nil},
		{"POST exchange operation", "POST", "/bookings/" + b.ID + "/exchange-operations", "/bookings/" + unknown(b.ID) + "/exchange-operations", sel, nil},
		{"POST fulfilments", "POST", "/bookings/" + b.ID + "/fulfillments", "/bookings/" + unknown(b.ID) + "/fulfillments", `{}`, nil},
		{"GET fulfilment", "GET", "/fulfillments/" + f.ID, "/fulfillments/" + unknown(f.ID), nil, nil},
		{"GET passenger", "GET", "/bookings/" + b.ID + "/passengers/" + pid, "/bookings/" + unknown(b.ID) + "/passengers/" + pid, nil, nil},
		{"PATCH passenger", "PATCH", "/bookings/" + b.ID + "/passengers/" + pid, "/bookings/" + unknown(b.ID) + "/passengers/" + pid, rename, nil},
		{"GET refund offer", "GET", "/bookings/" + b2.ID + "/refund-offers/" + ro.ID, "/bookings/" + unknown(b2.ID) + "/refund-offers/" + ro.ID, nil, nil},
		{"GET refundOffers", "GET", "/bookings/" + b2.ID + "/refundOffers/" + ro.ID, "/bookings/" + unknown(b2.ID) + "/refundOffers/" + ro.ID, nil, nil},
		{"confirm refund offer", "PATCH", "/bookings/" + b2.ID + "/refund-offers/" + ro.ID, "/bookings/" + unknown(b2.ID) + "/refund-offers/" + ro.ID, `{"status": "CONFIRMED"}`, nil},
		{"DELETE refund offer", "DELETE", "/bookings/" + b2.ID + "/refund-offers/" + ro.ID, "/bookings/" + unknown(b2.ID) + "/refund-offers/" + ro.ID, nil, nil},
		{"book the owner's offer", "POST", "/bookings", "/bookings", bookingRequest(unbooked),
			bookingRequest(osdm.Offer{OfferID: unknown(unbooked.OfferID), PassengerRefs: unbooked.PassengerRefs})},
	}
	ids := regexp.MustCompile(`[A-Za-z]+-[A-Za-z0-9_-]{4,}`)
	for _, pr := range probes {
		if pr.unknownBody == nil {
			pr.unknownBody = pr.body
		}
		for _, keyed := range []bool{false, true} {
			key, unknownKey := "", ""
			if keyed {
				key, unknownKey = uuid.NewString(), uuid.NewString()
			}
			a := serve(pr.method, pr.path, pr.body, key)
			u := serve(pr.method, pr.unknownPath, pr.unknownBody, unknownKey)
			if a.Status != http.StatusNotFound || a.Status != u.Status || a.Header.Get("Content-Type") != u.Header.Get("Content-Type") ||
				ids.ReplaceAllString(string(a.Body), "ID") != ids.ReplaceAllString(string(u.Body), "ID") {
				t.Errorf("%s (Idempotency-Key %v): %d %s\nthe same about unknown ids: %d %s", pr.what, keyed, a.Status, a.Body, u.Status, u.Body)
			}
		}
	}
	after := h.sb.Bookings()
	a, _ := json.Marshal(after)
	w, _ := json.Marshal(before)
	if string(a) != string(w) {
		t.Errorf("another client's calls changed the bookings:\n%s\nbefore:\n%s", a, w)
	}
	if r := serve("GET", "/_sandbox/bookings", nil, ""); r.Status != http.StatusOK || string(r.Body) != "[]" {
		t.Errorf("the debug listing to another client: %d %s", r.Status, r.Body)
	}
	if r := h.call(http.MethodGet, "/bookings/"+b.ID+"/exchange-operations/"+xid, "", nil); r.status != http.StatusOK {
		t.Errorf("the owner's exchange operation: %d %s", r.status, r.body)
	}
}
