package osdmlegacy

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestRefundQuotedBeforeAnotherIsNotConfirmedAtAnotherFee: two adults at
// 12.34 each, a 10% fee rounded on the running total (1.23 for the first
// place, 2.47 for both). A refund offer for each passenger, both quoted
// before either is confirmed, says 1.23; once the first is confirmed, the
// legacy system would keep 1.24 for the second. Confirming the second is
// refused (nothing sent, its quote is stale) instead of charging a fee the
// consumer was not told of, and a new offer quotes the 1.24.
func TestRefundQuotedBeforeAnotherIsNotConfirmedAtAnotherFee(t *testing.T) {
	e := newBookEnvWith(t, memKind, nil, legacysandbox.Config{Fares: []legacysandbox.Fare{{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat, Cents: 1234}}})
	id, fid := e.fulfilled(e.offer("9203", adult, offerPax{"p-adult2", osdm.PassengerAdult, 45, 1}))
	path := "/bookings/" + id
	ro1 := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p1")), 200).RefundOffers[0]
	ro2 := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p2")), 200).RefundOffers[0]
	if ro1.RefundFee.Amount != 123 || ro2.RefundFee.Amount != 123 {
		t.Fatalf("quoted fees %+v, %+v, want 1.23 each", ro1.RefundFee, ro2.RefundFee)
	}
	c1 := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+ro1.ID, `{"status":"CONFIRMED"}`), 200).RefundOffer
	if c1.RefundFee.Amount != 123 || c1.RefundableAmount.Amount != 1111 {
		t.Fatalf("first confirmed %+v, %+v; want 1.23, 11.11", c1.RefundFee, c1.RefundableAmount)
	}
	n := len(e.legacy.delivered())
	a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro2.ID, `{"status":"CONFIRMED"}`)
	if a.Status == 200 {
		c2 := decodeOK[osdm.RefundOfferResponse](t, a, 200).RefundOffer
		t.Fatalf("second offer quoted fee %+v, refundable %+v; confirmed fee %+v, refundable %+v", ro2.RefundFee, ro2.RefundableAmount, c2.RefundFee, c2.RefundableAmount)
	}
	if a.Status != 409 || decodeProblem(t, a).Code != osdm.CodeRefundOfferExpired {
		t.Errorf("stale quote confirmed: %d %s", a.Status, a.Body)
	}
	if len(e.legacy.delivered()) != n {
		t.Errorf("the refused confirmation sent %d messages", len(e.legacy.delivered())-n)
	}
	ro3 := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fid, "p2")), 200).RefundOffers[0]
	c3 := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+ro3.ID, `{"status":"CONFIRMED"}`), 200).RefundOffer
	if ro3.RefundFee.Amount != 124 || c3.RefundFee.Amount != ro3.RefundFee.Amount || c3.RefundableAmount.Amount != ro3.RefundableAmount.Amount {
		t.Errorf("new offer quoted %+v, %+v; confirmed %+v, %+v", ro3.RefundFee, ro3.RefundableAmount, c3.RefundFee, c3.RefundableAmount)
	}
	e.assertAgree(true)
}

// TestJourneyRefundQuotedBeforeAnotherIsNotConfirmedAtAnotherFee: a
// journey of two trains for an adult (12.04 a train) and a child (6.02).
// The child's refund on both trains is quoted (0.60 fee each), then the
// adult's on the second train is confirmed (1.20 kept); the child's fee on
// that train is now 0.61 (the legacy system rounds 10% of 18.06 on the
// running total). Confirming the child's refund is refused before any
// train is refunded, and a new offer quotes and confirms the 0.61.
func TestJourneyRefundQuotedBeforeAnotherIsNotConfirmedAtAnotherFee(t *testing.T) {
	e := newBookEnvWith(t, memKind, nil, legacysandbox.Config{Fares: []legacysandbox.Fare{{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat, Cents: 1204}}})
	jo := e.journeyOffer("708", "709")
	b := e.book(&offerRecord{ID: jo.ID, Passengers: jo.Legs[0].Passengers})
	path := "/bookings/" + b.ID
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", path+"/fulfillments", "{}"), 200)
	fu1, fu2 := fr.Fulfillments[0].ID, fr.Fulfillments[1].ID
	child := map[string]any{"fulfillmentIds": []string{fu1, fu2}, "refundSpecifications": []any{
		map[string]any{"fulfillmentId": fu1, "passengerIds": []string{"p2"}},
		map[string]any{"fulfillmentId": fu2, "passengerIds": []string{"p2"}},
	}}
	stale := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", child), 200).RefundOffers[0]
	if stale.RefundFee.Amount != 120 || stale.RefundableAmount.Amount != 1084 {
		t.Fatalf("child's refund quoted %+v, %+v; want 1.20, 10.84", stale.RefundFee, stale.RefundableAmount)
	}
	adult := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fu2, "p1")), 200).RefundOffers[0]
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+adult.ID, `{"status":"CONFIRMED"}`), 200)

	n := len(e.legacy.delivered())
	a := e.call(e.f, "PATCH", path+"/refund-offers/"+stale.ID, `{"status":"CONFIRMED"}`)
	if a.Status == 200 {
		c := decodeOK[osdm.RefundOfferResponse](t, a, 200).RefundOffer
		t.Fatalf("quoted fee %+v, refundable %+v; confirmed fee %+v, refundable %+v", stale.RefundFee, stale.RefundableAmount, c.RefundFee, c.RefundableAmount)
	}
	if a.Status != 409 || decodeProblem(t, a).Code != osdm.CodeRefundOfferExpired || !strings.Contains(string(a.Body), "train 709") {
		t.Errorf("stale quote confirmed: %d %s", a.Status, a.Body)
	}
	if len(e.legacy.delivered()) != n {
		t.Errorf("the refused confirmation sent %d messages", len(e.legacy.delivered())-n)
	}
	fresh := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", child), 200).RefundOffers[0]
	c := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+fresh.ID, `{"status":"CONFIRMED"}`), 200).RefundOffer
	if fresh.RefundFee.Amount != 121 || c.RefundFee.Amount != fresh.RefundFee.Amount || c.RefundableAmount.Amount != fresh.RefundableAmount.Amount {
		t.Errorf("new offer quoted %+v, %+v; confirmed %+v, %+v", fresh.RefundFee, fresh.RefundableAmount, c.RefundFee, c.RefundableAmount)
	}
	e.assertAgree(true)
}

// TestRefundFeeIsRoundedToTheCurrencysMinorUnit: 10% of a booking the
// legacy system priced at 1235 JPY (the yen has no minor unit) is a fee
// of 124 JPY, not 123.50: a fee the legacy system cannot keep. KWD (the
// fils, a thousandth) and EUR (the cent) round at theirs.
func TestRefundFeeIsRoundedToTheCurrencysMinorUnit(t *testing.T) {
	for _, tc := range []struct {
		amount, currency string
		fee, refundable  int64
		scale            int
	}{
		{"1235", "JPY", 12400, 111100, 2},
		{"12.345", "KWD", 1235, 11110, 3},
		{"12.345", "EUR", 1230, 11115, 3}, // a legacy amount with fils-like precision still pays a fee to the cent
		{"12.35", "EUR", 124, 1111, 2},
	} {
		t.Run(tc.currency+"/"+tc.amount, func(t *testing.T) {
			e := newBookEnv(t, memKind, nil)
			e.legacy.mu.Lock()
			e.legacy.rewrite = func(req legacy.Request, reply legacy.Reply) legacy.Reply {
				if br, ok := reply.(*legacy.BookingReply); ok {
					br.Price, br.PlaceAmounts = &legacy.Price{Amount: tc.amount, Currency: tc.currency}, nil
				}
				return reply
			}
			e.legacy.mu.Unlock()
			id, fid := e.fulfilled(e.offer("9203", adult))
			ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", refundOf(fid)), 200).RefundOffers[0]
			if ro.RefundFee.Amount != tc.fee || ro.RefundableAmount.Amount != tc.refundable || ro.RefundFee.EffectiveScale() != tc.scale || ro.RefundFee.Currency != tc.currency {
				t.Errorf("10%% of %s %s quoted fee %+v (scale %d), refundable %+v; want %d and %d at scale %d",
					tc.amount, tc.currency, ro.RefundFee, ro.RefundFee.EffectiveScale(), ro.RefundableAmount, tc.fee, tc.refundable, tc.scale)
			}
		})
	}
}

// TestRefundInACurrencyWithoutCents: a legacy system selling in yen (no
// minor unit: a fare of 1235 JPY) and one in dinars (the fils: 12.345
// KWD) keep 10% rounded to their minor unit; the refund offer quotes
// exactly that, and its confirmation confirms the quote.
func TestRefundInACurrencyWithoutCents(t *testing.T) {
	for _, tc := range []struct {
		currency        string
		fare            int64
		fee, refundable int64 // at the quote's scale
	}{
		{"JPY", 1235, 12400, 111100}, // 124 and 1111 yen
		{"KWD", 12345, 1235, 11110},  // 1.235 and 11.110 dinars
	} {
		t.Run(tc.currency, func(t *testing.T) {
			e := newBookEnvWith(t, memKind, nil, legacysandbox.Config{Currency: tc.currency,
				Fares: []legacysandbox.Fare{{TravelClass: legacy.SecondClass, ServiceCode: legacy.ServiceSeat, Cents: tc.fare}}})
			id, fid := e.fulfilled(e.offer("9203", adult))
			path := "/bookings/" + id + "/refund-offers"
			ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path, refundOf(fid)), 200).RefundOffers[0]
			if ro.RefundFee.Amount != tc.fee || ro.RefundableAmount.Amount != tc.refundable {
				t.Errorf("quoted fee %+v, refundable %+v; want %d, %d", ro.RefundFee, ro.RefundableAmount, tc.fee, tc.refundable)
			}
			c := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/"+ro.ID, `{"status":"CONFIRMED"}`), 200).RefundOffer
			if !equalAmount(c.RefundFee, ro.RefundFee) || !equalAmount(c.RefundableAmount, ro.RefundableAmount) {
				t.Errorf("quoted %+v, %+v; confirmed %+v, %+v", ro.RefundFee, ro.RefundableAmount, c.RefundFee, c.RefundableAmount)
			}
			e.assertAgree(true)
		})
	}
}

// TestJourneyRefundOfARefundedPassengerSaysSo: two refund offers of the
// child on the first train of a journey; once one is confirmed, the other
// is refused as a refund of a passenger refunded already (409
// BOOKING_ALREADY_REFUNDED), not as a stale quote.
func TestJourneyRefundOfARefundedPassengerSaysSo(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	jo := e.journeyOffer("708", "709")
	b := e.book(&offerRecord{ID: jo.ID, Passengers: jo.Legs[0].Passengers})
	path := "/bookings/" + b.ID
	fu1 := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", path+"/fulfillments", "{}"), 200).Fulfillments[0].ID
	ro1 := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fu1, "p2")), 200).RefundOffers[0]
	ro2 := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", refundOf(fu1, "p2")), 200).RefundOffers[0]
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", path+"/refund-offers/"+ro1.ID, `{"status":"CONFIRMED"}`), 200)
	if a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro2.ID, `{"status":"CONFIRMED"}`); a.Status != 409 || decodeProblem(t, a).Code != osdm.CodeBookingRefunded {
		t.Errorf("the child refunded twice: %d %s", a.Status, a.Body)
	}
}
