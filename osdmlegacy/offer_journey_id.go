package osdmlegacy

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The offer of a journey with changes lives in its id as a direct
// train's does (offer_id.go), under the same key and tag, with version
// byte journeyOfferIDVersion:
//
//	"of-" base64url( 2 | nonce | legs (uvarint) | per leg: length (uvarint), payload | tag )
//
// where each leg's payload is a version 1 payload without its nonce (the
// passengers written in the first leg's only: every leg is theirs). An
// id of either version opens only as its own kind: a journey's offer is
// never booked as one train, nor the other way round.
const (
	// journeyOfferIDVersion is the version byte of a journey's offer id.
	journeyOfferIDVersion = 2
	// maxJourneyLegs bounds the legs an id may carry (max_changes 2: 3).
	maxJourneyLegs = MaxMaxChanges + 1
)

// journeyOffer is the offer of a journey with changes: one offerRecord per
// timed leg, in order of travel, each the reservation of that train in
// the offer's class and service code for all its passengers.
type journeyOffer struct {
	// ID is the OSDM offerId, the offer itself encoded and signed.
	ID string
	// Partner is the façade's partner label, signed with the id.
	Partner string
	// Legs are the offers of the journey's trains; each carries the
	// journey's trip id, its own leg, offer part and product ids, its
	// price and the journey's expiry.
	Legs []offerRecord
}

// ExpiresAt is the journey offer's preBookableUntil.
func (jo *journeyOffer) ExpiresAt() time.Time { return jo.Legs[0].ExpiresAt }

// Price is the sum of the legs' prices (sumPrices).
func (jo *journeyOffer) Price() osdm.Price {
	prices := make([]osdm.Price, len(jo.Legs))
	for i, l := range jo.Legs {
		prices[i] = l.OSDMPrice
	}
	return sumPrices(prices)
}

// sealJourney returns the id of jo, signed by s for client (the id opens
// for that client alone, as a train's).
func (s *offerSigner) sealJourney(jo *journeyOffer, client string) string {
	var nonce [offerNonceLen]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		panic("osdmlegacy: no randomness: " + err.Error())
	}
	return s.sealJourneyWith(jo, nonce, client)
}

// sealJourneyWith is sealJourney with a given nonce.
func (s *offerSigner) sealJourneyWith(jo *journeyOffer, nonce [offerNonceLen]byte, client string) string {
	buf := []byte{journeyOfferIDVersion}
	buf = append(buf, nonce[:]...)
	buf = binary.AppendUvarint(buf, uint64(len(jo.Legs)))
	for i := range jo.Legs {
		rec := &jo.Legs[i]
		if i > 0 { // every leg is for the first leg's passengers: written once
			cp := *rec
			cp.Passengers = nil
			rec = &cp
		}
		leg := appendOfferPayload(nil, nil, rec)
		buf = binary.AppendUvarint(buf, uint64(len(leg)))
		buf = append(buf, leg...)
	}
	buf = s.appendTag(buf, buf, client)
	return offerIDPrefix + base64.RawURLEncoding.EncodeToString(buf)
}

// openJourney returns the journey offer of id, or errOfferNotFound when
// the id is malformed, not signed by s for client, not a journey's, or
// expired at now.
func (s *offerSigner) openJourney(id string, now time.Time, client string) (*journeyOffer, error) {
	body, ok := s.openID(id, journeyOfferIDVersion, client)
	if !ok {
		return nil, errOfferNotFound
	}
	d := &payloadReader{b: body[1:]}
	d.skip(offerNonceLen)
	count := d.uvarint()
	if d.bad || count < 2 || count > maxJourneyLegs {
		return nil, errOfferNotFound
	}
	jo := &journeyOffer{ID: id, Partner: s.partner()}
	for range count {
		size := d.uvarint()
		leg := d.bytes(size)
		if d.bad {
			return nil, errOfferNotFound
		}
		rec, ok := decodeOfferPayload([]byte(leg), 0)
		if !ok || len(jo.Legs) > 0 && rec.Passengers != nil {
			return nil, errOfferNotFound
		}
		if len(jo.Legs) > 0 {
			rec.Passengers = append([]offerPassenger(nil), jo.Legs[0].Passengers...)
		}
		rec.ID, rec.Partner = id, jo.Partner
		jo.Legs = append(jo.Legs, *rec)
	}
	if len(d.b) != 0 || !now.Before(jo.ExpiresAt()) {
		return nil, errOfferNotFound
	}
	return jo, nil
}

// isJourneyOfferID reports whether id has the form of a journey's offer
// id (its version byte), before any check of its tag.
func isJourneyOfferID(id string) bool {
	if len(id) < len(offerIDPrefix)+2 || id[:len(offerIDPrefix)] != offerIDPrefix {
		return false
	}
	var b [3]byte
	text := id[len(offerIDPrefix):]
	if len(text) > 4 {
		text = text[:4]
	}
	n, err := base64.RawURLEncoding.Decode(b[:], []byte(text))
	return err == nil && n > 0 && b[0] == journeyOfferIDVersion
}

// openJourneyOffer returns the journey offer of id, signed under the
// façade's offer key for the client of the call in ctx, or
// errOfferNotFound (another client's journey offer included).
func (o *offers) openJourneyOffer(ctx context.Context, id string, now time.Time) (*journeyOffer, error) {
	if !isJourneyOfferID(id) {
		return nil, errOfferNotFound
	}
	s, err := o.offerSigner(ctx)
	if err != nil {
		return nil, err
	}
	client, _ := callerOf(ctx)
	return s.openJourney(id, now, client)
}
