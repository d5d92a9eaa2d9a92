package osdmlegacy

import (
	"context"
	"net/http"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestExchangeOperationRacingAPartialRefund: exchange offers are quoted
// for both passengers; a partial refund of one is confirmed on one
// instance while the exchange operation is asked on another. The
// operation, asked while the refund's CancelRequest is at the legacy
// system, is told to retry; asked again once the refund is done, it is
// refused: the refunded passenger gets no place on the new train and its
// fare is not credited to an exchange.
func TestExchangeOperationRacingAPartialRefund(t *testing.T) {
	for _, kind := range []storeKind{memKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			other := e.otherInstance()
			free708 := e.freeSeats("708")
			id, fid := e.fulfilled(e.offer("9203", adult, child))
			path := "/bookings/" + id
			rec := e.records()[id]
			offer := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.callValid("POST", path+"/exchange-offers?embed=ALL", exchangeSearch(rec, fid, "708", nil)), 200).ExchangeOffers[0]
			ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p2")), 200).RefundOffers[0]

			// The refund's CancelRequest is held at the legacy system until
			// the exchange operation has been asked once.
			arrived, release := make(chan struct{}), make(chan struct{})
			held := sendFunc(func(ctx context.Context, req legacy.Request) (legacy.Reply, error) {
				if _, ok := req.(*legacy.CancelRequest); ok {
					close(arrived)
					<-release
				}
				return e.legacy.Send(ctx, req)
			})
			confirmed := make(chan *Answer)
			go func() {
				confirmed <- e.f.serve(context.Background(), held, "PATCH", path+"/refund-offers/"+ro.ID,
					http.Header{"Content-Type": {"application/json"}}, []byte(`{"status":"CONFIRMED"}`))
			}()
			<-arrived
			op := map[string]any{"exchangeOffers": []any{map[string]any{"offerId": offer.OfferID, "passengerRefs": offer.PassengerRefs}}}
			key := withKey(newTestUUID())
			if a := e.call(other, "POST", path+"/exchange-operations", op, key); a.Status != http.StatusConflict {
				t.Errorf("exchange operation during the refund: %d %s, want 409 (retry)", a.Status, a.Body)
			}
			close(release)
			if a := <-confirmed; a.Status != http.StatusOK {
				t.Fatalf("refund: %d %s", a.Status, a.Body)
			}
			n := len(e.legacy.delivered())
			a := e.call(other, "POST", path+"/exchange-operations", op, key)
			if a.Status != http.StatusUnprocessableEntity {
				t.Errorf("exchange operation after the refund: %d, want 422", a.Status)
			} else if p := decodeProblem(t, a); p.Code != osdm.CodeOutOfBounds {
				t.Errorf("exchange operation after the refund: %+v", p)
			}
			e.call(other, "POST", path+"/fulfillments", nil)
			if sent := e.legacy.delivered()[n:]; len(sent) != 0 || e.freeSeats("708") != free708 {
				t.Errorf("after the refund the exchange sent %d message(s); train 708 has %d seats taken", len(sent), free708-e.freeSeats("708"))
			}
			if r := e.records()[id]; r.Exchange != nil || r.State != stateFulfilled || len(r.unrefunded()) != 1 {
				t.Errorf("booking %s, exchange %+v, %d passenger(s) left", r.State, r.Exchange, len(r.unrefunded()))
			}
		})
	}
}
