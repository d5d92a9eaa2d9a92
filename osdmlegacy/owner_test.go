package osdmlegacy

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

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
