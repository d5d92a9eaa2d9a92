package osdmlegacy

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

// journeyLikeOffer is a two-leg journey offer as a search makes it.
func journeyLikeOffer() *journeyOffer {
	first, second := searchLikeOffer(), searchLikeOffer()
	first.TripID, second.TripID = "trip-3", "trip-3"
	first.LegID, second.LegID = timedLegID("trip-3", 1), timedLegID("trip-3", 2)
	first.PartID, first.ProductID = "trip-3-res-21-1", "trip-3-product-21-1"
	second.PartID, second.ProductID = "trip-3-res-21-2", "trip-3-product-21-2"
	second.Train, second.Origin, second.Destination = "96003", "8814001", "8500010"
	second.Departure, second.Arrival = first.Arrival.Add(20*time.Minute), first.Arrival.Add(2*time.Hour)
	second.DepartureClock = second.Departure.Format("15:04")
	for _, l := range []*offerRecord{first, second} {
		l.Partner = ""
	}
	return &journeyOffer{Legs: []offerRecord{*first, *second}}
}

// A journey's offer id carries every leg, opens only as a journey's (a
// one-train booking refuses it, and a journey booking refuses a train's
// id), and refuses any change, another partner and expiry.
func TestJourneyOfferID(t *testing.T) {
	key := testKey(t)
	s := newOfferSigner(key, "p1")
	jo := journeyLikeOffer()
	id := s.sealJourney(jo, anonymousClient)
	if !isJourneyOfferID(id) {
		t.Fatalf("%s is not a journey's id", id)
	}
	got, err := s.openJourney(id, idNow, anonymousClient)
	if err != nil || len(got.Legs) != 2 {
		t.Fatalf("open: %v %+v", err, got)
	}
	for i := range jo.Legs {
		want := jo.Legs[i]
		want.ID, want.Partner = id, "p1"
		if a, b := recordJSON(t, &want), recordJSON(t, &got.Legs[i]); a != b {
			t.Errorf("leg %d:\n%s\nwant\n%s", i, b, a)
		}
	}
	if p := got.Price(); p.Amount != 2*jo.Legs[0].OSDMPrice.Amount {
		t.Errorf("price %+v", p)
	}
	if _, err := s.openJourney(id, idNow, "another-client"); !errors.Is(err, errOfferNotFound) {
		t.Errorf("a journey opened for a client that did not search it: %v", err)
	}
	if _, err := s.open(id, idNow, anonymousClient); !errors.Is(err, errOfferNotFound) {
		t.Errorf("a journey's id opened as one train's: %v", err)
	}
	single := s.seal(searchLikeOffer(), anonymousClient)
	if _, err := s.openJourney(single, idNow, anonymousClient); !errors.Is(err, errOfferNotFound) || isJourneyOfferID(single) {
		t.Errorf("a train's id opened as a journey's: %v", err)
	}
	if _, err := newOfferSigner(key, "p2").openJourney(id, idNow, anonymousClient); !errors.Is(err, errOfferNotFound) {
		t.Errorf("another partner's journey opened: %v", err)
	}
	if _, err := s.openJourney(id, jo.Legs[0].ExpiresAt, anonymousClient); !errors.Is(err, errOfferNotFound) {
		t.Errorf("an expired journey opened: %v", err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(id[len(offerIDPrefix):])
	for i := range raw {
		for _, bit := range []byte{1, 0x80} {
			b := append([]byte(nil), raw...)
			b[i] ^= bit
			if _, err := s.openJourney(offerIDPrefix+base64.RawURLEncoding.EncodeToString(b), idNow, anonymousClient); !errors.Is(err, errOfferNotFound) {
				t.Fatalf("byte %d bit %x changed: opened (%v)", i, bit, err)
			}
		}
	}
}

// The largest journey offer (three trains, nine passengers with the
// longest refs a search takes) fits an offer id and opens.
func TestJourneyOfferIDLargest(t *testing.T) {
	s := newOfferSigner(testKey(t), "p1")
	jo := journeyLikeOffer()
	jo.Legs = append(jo.Legs, jo.Legs[1])
	jo.Legs[2].LegID, jo.Legs[2].PartID, jo.Legs[2].ProductID = "trip-3-leg-3", "trip-3-res-21-3", "trip-3-product-21-3"
	var pax []offerPassenger
	for i := range maxPassengers {
		age := 30 + i
		pax = append(pax, offerPassenger{Ref: strings.Repeat(string(rune('a'+i)), 64), Type: "ADULT", Age: &age, Tariff: 1})
	}
	for i := range jo.Legs {
		jo.Legs[i].Passengers = pax
	}
	id := s.sealJourney(jo, anonymousClient)
	got, err := s.openJourney(id, idNow, anonymousClient)
	if len(id) > maxOfferIDLen || err != nil || len(got.Legs) != 3 || len(got.Legs[2].Passengers) != maxPassengers {
		t.Fatalf("%d characters (at most %d): %v", len(id), maxOfferIDLen, err)
	}
	t.Logf("the largest journey offer id: %d characters", len(id))
}
