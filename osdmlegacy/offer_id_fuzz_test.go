package osdmlegacy

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzOpenOfferID holds the offer id readers (a train's, a journey's) to
// two rules whatever they are given: they never panic, and they never
// accept an id they did not sign (the only ids signed here are the seeds'
// good ones); no id opens as both kinds. The input is also
// signed as a payload of its own, so that the payload decoder, which a
// forged id never reaches, meets arbitrary bytes: it must not panic, and
// what it decodes must seal and open back to the same record.
func FuzzOpenOfferID(f *testing.F) {
	key := make([]byte, offerKeyLen)
	for i := range key {
		key[i] = byte(i*7 + 1)
	}
	signed := map[string]bool{}
	seal := func(rec *offerRecord, n byte) string {
		id := sealOfferID(key, "p1", rec, [offerNonceLen]byte{n})
		signed[id] = true
		return id
	}
	seeds := []string{seal(searchLikeOffer(), 1), seal(oddOffer(), 2)}
	signer := newOfferSigner(key, "p1")
	journey := signer.sealJourneyWith(journeyLikeOffer(), [offerNonceLen]byte{3}, anonymousClient)
	signed[journey] = true
	seeds = append(seeds, journey)
	tampered := tamperedIDs(&testing.T{}, key)
	for name, id := range tampered {
		if len(name) < 8 || name[:8] != "bit flip" { // a few hundred seeds are enough
			seeds = append(seeds, id)
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		rec, err := openOfferID(key, "p1", id, idNow)
		if err == nil && !signed[id] {
			t.Fatalf("accepted an id it did not sign: %q", id)
		}
		if err == nil && (rec == nil || rec.ID != id || rec.Partner != "p1") {
			t.Fatalf("accepted %q as %+v", id, rec)
		}
		// A journey's id: the same rule, and never both kinds at once.
		jo, jerr := signer.openJourney(id, idNow, anonymousClient)
		if jerr == nil && (!signed[id] || err == nil || len(jo.Legs) < 2 || jo.ID != id) {
			t.Fatalf("accepted %q as a journey %+v (as a train: %v)", id, jo, err)
		}
		// The decoder on the input's bytes, signed.
		dec, ok := decodeOfferPayload(append(make([]byte, offerNonceLen), id...), offerNonceLen)
		if !ok {
			return
		}
		again := sealFreshOfferID(key, "p1", dec)
		back, err := openOfferID(key, "p1", again, dec.ExpiresAt.Add(-time.Nanosecond))
		if err != nil {
			if !dec.ExpiresAt.After(dec.CreatedOn) || dec.ExpiresAt.IsZero() {
				return // expired or never valid: refused is right
			}
			t.Fatalf("a decoded record does not open once sealed: %v", err)
		}
		back.ID, back.Partner = dec.ID, dec.Partner
		a, _ := json.Marshal(dec)
		b, _ := json.Marshal(back)
		if string(a) != string(b) {
			t.Fatalf("decode, seal, open changed the record:\n%s\n%s", a, b)
		}
	})
}
