package osdmlegacy

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestOwnerSurvivesRestart: the client that booked is in the booking's
// record, so that another instance on the same store (Redis), or this one
// after a restart (bolt), answers another client's call, and an anonymous
// one, as for an unknown id, and the owner's as before; the offer the
// owner searched opens for the owner alone.
func TestOwnerSurvivesRestart(t *testing.T) {
	for _, kind := range []storeKind{boltKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			ctx := context.Background()
			serve := func(f *Facade, client, method, path string, body any) *Answer {
				t.Helper()
				var b []byte
				h := http.Header{}
				if body != nil {
					b, _ = json.Marshal(body)
					h.Set("Content-Type", "application/json")
				}
				return f.ServeClient(ctx, client, e.legacy, method, path, h, b)
			}
			o := e.offer("708")
			if err := e.f.offers.sealOffer(withClient(ctx, "alpine"), o); err != nil {
				t.Fatal(err)
			}
			if a := serve(e.f, "coastal", "POST", "/bookings", bookingBodyOf(o)); a.Status != http.StatusNotFound || a.Problem.Code != osdm.CodeOfferNotFound {
				t.Fatalf("coastal booking alpine's offer: %d %s", a.Status, a.Body)
			}
			b := decodeOK[osdm.BookingResponse](t, serve(e.f, "alpine", "POST", "/bookings", bookingBodyOf(o)), 200).Booking
			if rec := e.records()[b.ID]; rec == nil || rec.Client != "alpine" {
				t.Fatalf("stored record %+v", rec)
			}
			other := e.otherInstance()
			unknown := serve(other, "coastal", "GET", "/bookings/bk-"+"AAAAAAAAAAAAAAAAAAAAAA", nil)
			for _, client := range []string{"coastal", anonymousClient} {
				a := serve(other, client, "GET", "/bookings/"+b.ID, nil)
				if a.Status != http.StatusNotFound || a.Problem.Code != unknown.Problem.Code || a.Problem.Code != osdm.CodeBookingNotFound {
					t.Errorf("%q reading alpine's booking on another instance: %d %s", client, a.Status, a.Body)
				}
			}
			if a := serve(other, "alpine", "GET", "/bookings/"+b.ID, nil); a.Status != http.StatusOK {
				t.Errorf("alpine on another instance: %d %s", a.Status, a.Body)
			}
		})
	}
}

// TestOwnerOfAfterSales: alpine's booking of one train with an exchange
// operation under way, and alpine's journey, fulfilled, with a refund
// offer. Every after-sales call another client (or an anonymous one)
// makes about them is answered exactly as the same call about an id that
// names nothing (status, problem code, detail but for the ids), with or
// without an Idempotency-Key, and sends the legacy system nothing: the
// exchange operation (GET, PATCH, DELETE, a second POST), the journey's
// booking, fulfilments (both paths), refund offer (GET, confirming,
// DELETE, a new one), exchange offers and passengers, and each of its
// legs' booking ids used directly. Alpine still reads both.
func TestOwnerOfAfterSales(t *testing.T) {
	e := newBookEnv(t, boltKind, nil)
	ctx := context.Background()
	serve := func(client, method, path string, body any, key string) *Answer {
		t.Helper()
		h, b := testrig.JSONRequest(t, body)
		if key != "" {
			h.Set("Idempotency-Key", key)
		}
		return e.f.ServeClient(ctx, client, e.legacy, method, path, h, b)
	}
	o := e.offer("708")
	if err := e.f.offers.sealOffer(withClient(ctx, "alpine"), o); err != nil {
		t.Fatal(err)
	}
	b := decodeOK[osdm.BookingResponse](t, serve("alpine", "POST", "/bookings", bookingBodyOf(o), ""), 200).Booking
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, serve("alpine", "POST", "/bookings/"+b.ID+"/fulfillments", "{}", ""), 200)
	fid := fr.Fulfillments[0].ID
	xo := decodeOK[osdm.ExchangeOfferCollectionResponse](t, serve("alpine", "POST", "/bookings/"+b.ID+"/exchange-offers",
		exchangeSearch(e.records()[b.ID], fid, "709", nil), ""), 200)
	sel := map[string]any{"exchangeOffers": []any{map[string]any{"offerId": xo.ExchangeOffers[0].OfferID, "passengerRefs": xo.ExchangeOffers[0].PassengerRefs}}}
	op := decodeOK[osdm.ExchangeOperationResponse](t, serve("alpine", "POST", "/bookings/"+b.ID+"/exchange-operations", sel, uuid.NewString()), 200).ExchangeOperation

	jo := e.journeyOffer("708", "709")
	s, _ := e.f.offers.offerSigner(ctx)
	jo.ID = s.sealJourney(jo, "alpine")
	j := decodeOK[osdm.BookingResponse](t, serve("alpine", "POST", "/bookings", journeyBody(jo), ""), 200).Booking
	jfr := decodeOK[osdm.FulfillmentCollectionResponse](t, serve("alpine", "POST", "/bookings/"+j.ID+"/fulfillments", "{}", ""), 200)
	jf0, jf1 := jfr.Fulfillments[0].ID, jfr.Fulfillments[1].ID
	refund := `{"fulfillmentIds": ["` + jf0 + `", "` + jf1 + `"]}`
	rid := decodeOK[osdm.RefundOfferCollectionResponse](t, serve("alpine", "POST", "/bookings/"+j.ID+"/refund-offers", refund, ""), 200).RefundOffers[0].ID
	exchange := `{"fulfillmentIds": ["` + jf0 + `", "` + jf1 + `"],
		"tripSpecifications": [{"legs": [` + specLegJSON("710", "8500010", "12:00", "8503000", "13:00") + `, ` + specLegJSON("711", "8503000", "13:30", "8509000", "15:00") + `]}],
		"anonymousPassengerSpecifications": [{"externalRef": "p-adult", "type": "ADULT", "age": 30}, {"externalRef": "p-child", "type": "CHILD", "age": 8}]}`
	rename := map[string]any{"id": j.Passengers[0].ID, "externalRef": "p-adult", "type": "ADULT", "detail": map[string]any{"firstName": "Mallory", "lastName": "Thief"}}
	var legs []string
	for id, r := range e.records() {
		if r.JourneyID == j.ID {
			legs = append(legs, id)
		}
	}
	if len(legs) != 2 {
		t.Fatalf("legs %v", legs)
	}

	// Each probe is a call about alpine's and, with unknown for its ids,
	// the same call about ids that name nothing.
	unknown := func(id string) string { return id[:len(id)-4] + "zzzz" }
	ub, uj := unknown(b.ID), unknown(j.ID)
	type probe struct {
		what, method, path, unknownPath string
		body                            any
	}
	probes := []probe{
		{"GET exchange operation", "GET", "/bookings/" + b.ID + "/exchange-operations/" + op.ID, "/bookings/" + ub + "/exchange-operations/" + op.ID, nil},
		{"PATCH exchange operation", "PATCH", "/bookings/" + b.ID + "/exchange-operations/" + op.ID, "/bookings/" + ub + "/exchange-operations/" + op.ID, `{}`},
		{"DELETE exchange operation", "DELETE", "/bookings/" + b.ID + "/exchange-operations/" + op.ID, "/bookings/" + ub + "/exchange-operations/" + op.ID, nil},
		{"POST exchange operation", "POST", "/bookings/" + b.ID + "/exchange-operations", "/bookings/" + ub + "/exchange-operations", sel},
		{"GET nested fulfilment", "GET", "/bookings/" + b.ID + "/fulfillments/" + fid, "/bookings/" + ub + "/fulfillments/" + fid, nil},
		{"GET journey", "GET", "/bookings/" + j.ID, "/bookings/" + uj, nil},
		{"DELETE journey", "DELETE", "/bookings/" + j.ID, "/bookings/" + uj, nil},
		{"POST journey fulfilments", "POST", "/bookings/" + j.ID + "/fulfillments", "/bookings/" + uj + "/fulfillments", `{}`},
		{"GET journey fulfilment", "GET", "/fulfillments/" + jf0, "/fulfillments/" + unknown(jf0), nil},
		{"GET nested journey fulfilment", "GET", "/bookings/" + j.ID + "/fulfillments/" + jf1, "/bookings/" + uj + "/fulfillments/" + jf1, nil},
		{"GET journey refund offer", "GET", "/bookings/" + j.ID + "/refund-offers/" + rid, "/bookings/" + uj + "/refund-offers/" + rid, nil},
		{"confirm journey refund offer", "PATCH", "/bookings/" + j.ID + "/refund-offers/" + rid, "/bookings/" + uj + "/refund-offers/" + rid, `{"status": "CONFIRMED"}`},
		{"DELETE journey refund offer", "DELETE", "/bookings/" + j.ID + "/refund-offers/" + rid, "/bookings/" + uj + "/refund-offers/" + rid, nil},
		{"POST journey refund offers", "POST", "/bookings/" + j.ID + "/refund-offers", "/bookings/" + uj + "/refund-offers", refund},
		{"POST journey exchange offers", "POST", "/bookings/" + j.ID + "/exchange-offers", "/bookings/" + uj + "/exchange-offers", exchange},
		{"GET journey passenger", "GET", "/bookings/" + j.ID + "/passengers/" + j.Passengers[0].ID, "/bookings/" + uj + "/passengers/" + j.Passengers[0].ID, nil},
		{"PATCH journey passenger", "PATCH", "/bookings/" + j.ID + "/passengers/" + j.Passengers[0].ID, "/bookings/" + uj + "/passengers/" + j.Passengers[0].ID, rename},
	}
	for _, l := range legs {
		probes = append(probes,
			probe{"GET leg", "GET", "/bookings/" + l, "/bookings/" + unknown(l), nil},
			probe{"DELETE leg", "DELETE", "/bookings/" + l, "/bookings/" + unknown(l), nil},
			probe{"POST leg fulfilments", "POST", "/bookings/" + l + "/fulfillments", "/bookings/" + unknown(l) + "/fulfillments", `{}`},
			probe{"POST leg refund offers", "POST", "/bookings/" + l + "/refund-offers", "/bookings/" + unknown(l) + "/refund-offers", refund},
			probe{"GET leg refund offer", "GET", "/bookings/" + l + "/refund-offers/" + rid, "/bookings/" + unknown(l) + "/refund-offers/" + rid, nil},
		)
	}
	ids := regexp.MustCompile(`[A-Za-z]+-[A-Za-z0-9_-]{4,}`)
	sent := len(e.legacy.delivered())
	for _, client := range []string{"coastal", anonymousClient} {
		for _, pr := range probes {
			for _, keyed := range []bool{false, true} {
				key, unknownKey := "", ""
				if keyed {
					key, unknownKey = uuid.NewString(), uuid.NewString()
				}
				a := serve(client, pr.method, pr.path, pr.body, key)
				u := serve(client, pr.method, pr.unknownPath, pr.body, unknownKey)
				if a.Status != http.StatusNotFound || a.Problem == nil || u.Problem == nil || u.Status != a.Status ||
					a.Problem.Code != u.Problem.Code || ids.ReplaceAllString(a.Problem.Detail, "ID") != ids.ReplaceAllString(u.Problem.Detail, "ID") ||
					a.Header.Get("Content-Type") != u.Header.Get("Content-Type") {
					t.Errorf("%q %s (Idempotency-Key %v): %d %s\nthe same about unknown ids: %d %s", client, pr.what, keyed, a.Status, a.Body, u.Status, u.Body)
				}
			}
		}
	}
	if n := len(e.legacy.delivered()) - sent; n != 0 {
		t.Errorf("the legacy system got %d message(s) from others' calls", n)
	}
	if a := serve("alpine", "GET", "/bookings/"+b.ID+"/exchange-operations/"+op.ID, nil, ""); a.Status != http.StatusOK {
		t.Errorf("alpine's exchange operation: %d %s", a.Status, a.Body)
	}
	if a := serve("alpine", "GET", "/bookings/"+j.ID+"/refund-offers/"+rid, nil, ""); a.Status != http.StatusOK {
		t.Errorf("alpine's refund offer of the journey: %d %s", a.Status, a.Body)
	}
}
