package osdmlegacy

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// An offer id carries its offer: nothing is stored when a search answers
// (docs/osdm_legacy.md "Offers"). Its form is
//
//	"of-" base64url( version | payload | tag )
//
// where version is one byte (offerIDVersion), payload the compact binary
// encoding of the offerRecord without its ID and Partner (offer_payload.go),
// and tag the first 16 bytes of HMAC-SHA256(key, "of-" | version | partner's
// length (uvarint) | partner | payload) under the façade's 32-byte offer
// key (OfferKeyKey). An id that was altered, forged, cut, made for
// another partner or is past its ExpiresAt is refused by offerSigner.open as
// errOfferNotFound, before anything is sent to the legacy system.
const (
	// offerIDVersion is the version byte of offer_payload.go's encoding.
	offerIDVersion = 1
	// offerTagLen is the length of the truncated HMAC-SHA256 tag: 128
	// bits, the usual truncation (RFC 2104 section 5, NIST SP 800-107).
	offerTagLen = 16
	// offerNonceLen random bytes make every offer id unique (an offer
	// books once: its claim is keyed by its id), even two equal offers
	// made in the same second.
	offerNonceLen = 6
	// maxOfferIDLen bounds the ids looked at at all (a real one is some
	// 220 characters with one passenger, under 400 with nine: see docs/osdm_legacy.md).
	maxOfferIDLen = 4096
)

// offerIDPrefix starts every offer id.
const offerIDPrefix = "of-"

// errOfferNotFound is returned by offerSigner.open for an offer id that names no
// live offer of this façade: malformed, altered, forged, another
// partner's or expired.
var errOfferNotFound = errors.New("offer not found")

// offerSigner signs and verifies the offer ids of one partner under one
// key, with HMAC states reused from a pool (a new one costs allocations
// and a hash block per id).
type offerSigner struct {
	// hdr is what the tag covers before the version: the prefix and the
	// partner label with its length.
	hdr  []byte
	macs sync.Pool
	// sum identifies the key (its SHA-256), so that a signer is reused
	// only while the store still holds that key.
	sum [sha256.Size]byte
}

// keyIs reports whether key is the one s signs with.
func (s *offerSigner) keyIs(key []byte) bool {
	return sha256.Sum256(key) == s.sum
}

// newOfferSigner returns the signer of partner's ids under key.
func newOfferSigner(key []byte, partner string) *offerSigner {
	k := bytes.Clone(key)
	s := &offerSigner{sum: sha256.Sum256(k)}
	s.hdr = append([]byte(offerIDPrefix), binary.AppendUvarint(nil, uint64(len(partner)))...)
	s.hdr = append(s.hdr, partner...)
	s.macs.New = func() any { return hmac.New(sha256.New, k) }
	return s
}

// appendTag appends the tag of body (version and payload) for client to
// dst. The tag covers the client an offer was searched by, so that the id
// opens for that client alone: a client other than anonymousClient goes
// between the header and the body as a zero byte (never a version), its
// length and its bytes; anonymousClient's tag is the tag without one.
func (s *offerSigner) appendTag(dst, body []byte, client string) []byte {
	m := s.macs.Get().(hash.Hash)
	m.Reset()
	m.Write(s.hdr)
	if client != anonymousClient {
		var n [1 + binary.MaxVarintLen64]byte
		n[0] = 0
		k := binary.PutUvarint(n[1:], uint64(len(client)))
		m.Write(n[:1+k])
		m.Write([]byte(client))
	}
	m.Write(body)
	n := len(dst)
	dst = m.Sum(dst)[:n+offerTagLen]
	s.macs.Put(m)
	return dst
}

// seal returns the id of rec for client: the record's fields (all but ID
// and Partner) encoded with a fresh nonce and signed. The caller sets rec.ID
// to it.
func (s *offerSigner) seal(rec *offerRecord, client string) string {
	return s.sealWith(rec, freshNonce(), client)
}

// freshNonce is a new random nonce for an offer id.
func freshNonce() (nonce [offerNonceLen]byte) {
	if _, err := rand.Read(nonce[:]); err != nil {
		panic("osdmlegacy: no randomness: " + err.Error())
	}
	return nonce
}

// sealWith is seal with a given nonce.
func (s *offerSigner) sealWith(rec *offerRecord, nonce [offerNonceLen]byte, client string) string {
	var scratch [320]byte
	buf := append(scratch[:0], offerIDVersion)
	buf = appendOfferPayload(buf, nonce[:], rec)
	buf = s.appendTag(buf, buf, client)
	out := make([]byte, len(offerIDPrefix)+base64.RawURLEncoding.EncodedLen(len(buf)))
	copy(out, offerIDPrefix)
	base64.RawURLEncoding.Encode(out[len(offerIDPrefix):], buf)
	return string(out)
}

// open returns the offer of id for client, or errOfferNotFound when the id
// is malformed, its tag is not this signer's for client (another key,
// partner or client), its version unknown, or the offer expired at now.
// The tag is compared in constant time, before the payload is decoded.
func (s *offerSigner) open(id string, now time.Time, client string) (*offerRecord, error) {
	body, ok := s.openID(id, offerIDVersion, client)
	if !ok {
		return nil, errOfferNotFound
	}
	rec, ok := decodeOfferPayload(body[1:], offerNonceLen)
	if !ok || !now.Before(rec.ExpiresAt) {
		return nil, errOfferNotFound
	}
	rec.ID, rec.Partner = id, s.partner()
	return rec, nil
}

// openID returns the payload of id (its version byte first) when id is an
// offer id of version signed by s for client; the tag is compared in
// constant time, before the payload is decoded.
func (s *offerSigner) openID(id string, version byte, client string) ([]byte, bool) {
	if len(id) <= len(offerIDPrefix) || len(id) > maxOfferIDLen || id[:len(offerIDPrefix)] != offerIDPrefix {
		return nil, false
	}
	text := id[len(offerIDPrefix):]
	// Room for the tag computed after the id's bytes.
	raw := make([]byte, base64.RawURLEncoding.DecodedLen(len(text)), base64.RawURLEncoding.DecodedLen(len(text))+sha256.Size)
	n, err := base64.RawURLEncoding.Strict().Decode(raw, []byte(text))
	raw = raw[:n]
	// The decoder skips line breaks: an id is only the characters it
	// encodes to.
	if err != nil || base64.RawURLEncoding.EncodedLen(n) != len(text) ||
		n < 1+offerNonceLen+offerTagLen || raw[0] != version {
		return nil, false
	}
	return s.verified(raw, client)
}

// verified returns the version and payload of raw (an id's bytes, with
// room for a tag after them), and whether its tag is this signer's for
// client.
func (s *offerSigner) verified(raw []byte, client string) ([]byte, bool) {
	n := len(raw)
	body, tag := raw[:n-offerTagLen], raw[n-offerTagLen:]
	want := s.appendTag(raw[n:], body, client)
	return body, hmac.Equal(tag, want)
}

// partner is the partner label the signer signs for.
func (s *offerSigner) partner() string {
	n, k := binary.Uvarint(s.hdr[len(offerIDPrefix):])
	return string(s.hdr[len(offerIDPrefix)+k : len(offerIDPrefix)+k+int(n)])
}

// offerKeyLen is the length of the key that signs offer ids.
const offerKeyLen = 32

// OfferKeyKey is the store key of partner's offer key: 32 random bytes,
// written once (PutIfAbsent, no expiry) by the first façade that finds
// none, so that every instance sharing the store, and a restarted one,
// signs and verifies the same offer ids. The store is the only authority:
// every search and every booking reads it (offerSigner), so deleting it,
// or losing the store's data, withdraws every offer at once on every
// instance.
func OfferKeyKey(partner string) string {
	return "osdm_legacy/" + partner + "/offer-key"
}

// loadOfferKey returns partner's offer key from st, creating it when
// there is none. The key never appears in an error.
func loadOfferKey(ctx context.Context, st store.Store, partner string) ([]byte, error) {
	key := OfferKeyKey(partner)
	b, err := st.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		fresh := make([]byte, offerKeyLen)
		if _, err := rand.Read(fresh); err != nil {
			return nil, err
		}
		if _, err := st.PutIfAbsent(ctx, key, fresh, 0); err != nil {
			return nil, err
		}
		// Another instance may have written first: its key is the one.
		b, err = st.Get(ctx, key)
	}
	if err != nil {
		return nil, err
	}
	if len(b) != offerKeyLen {
		return nil, errors.New("the offer key under " + key + " has " + strconv.Itoa(len(b)) + " bytes, not 32")
	}
	return b, nil
}

// offerSigner returns the signer of the façade's offer ids under the
// offer key the store holds now. The key is read on every call (a search,
// a booking): one read of 32 bytes, against a legacy round trip. Keeping
// it in memory instead would let an instance go on signing and accepting
// ids under a key that was deleted (a withdrawal of every offer) or lost
// with the store's data, while an instance started since signs under the
// new one: each would then refuse the other's offers. Only the HMAC state
// is kept, for as long as the key it was made with is the store's. A
// store error fails this call only: nothing is accepted (a search may
// still sign under the key read last, searchOffers).
func (o *offers) offerSigner(ctx context.Context) (*offerSigner, error) {
	k, err := loadOfferKey(ctx, o.store, o.cfg.Partner)
	if err != nil {
		return nil, err
	}
	if s := o.signer.Load(); s != nil && s.keyIs(k) {
		return s, nil
	}
	s := newOfferSigner(k, o.cfg.Partner)
	o.signer.Store(s)
	return s, nil
}

// offerKeyFailed is the answer of a call that needs the offer key while
// the store cannot give it (err): the service is unavailable for now.
func (o *offers) offerKeyFailed(c *call, err error) *Answer {
	a := o.storeUnavailable(c, "the OSDM provider cannot reach its store; try again later")
	a.Cause = err
	return a
}

// openOffer returns the live offer of id, errOfferNotFound for an id this
// façade did not sign or that expired at now, or the store's error when
// the key cannot be read. In a call, an offer another client searched is
// not found.
func (o *offers) openOffer(ctx context.Context, id string, now time.Time) (*offerRecord, error) {
	if len(id) <= len(offerIDPrefix) || len(id) > maxOfferIDLen || id[:len(offerIDPrefix)] != offerIDPrefix {
		return nil, errOfferNotFound // not even an id's form: no key needed to say so
	}
	s, err := o.offerSigner(ctx)
	if err != nil {
		return nil, err
	}
	client, _ := callerOf(ctx)
	return s.open(id, now, client)
}

// offerBookedAlready says why an offer booked before is not booked again.
const offerBookedAlready = "the offer is booked already; an offer books once (search again for another)"

// openFailed answers a booking whose offer id did not open (err from
// openOffer or openJourneyOffer): 404 when the offer is unknown or expired,
// a final answer; else the offer key could not be read, which a retry
// may get past.
func (o *offers) openFailed(c *call, err error) (*Answer, bool) {
	if errors.Is(err, errOfferNotFound) {
		return problemAnswer(osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound,
			"the offer is unknown or no longer bookable (offers are bookable until their preBookableUntil); search again").
			WithPointer("#/offers/0/offerId")), true
	}
	return o.offerKeyFailed(c, err), false
}

// The offer of a journey with changes lives in its id as a direct
// train's does (above), under the same key and tag, with version
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
	return s.sealJourneyWith(jo, freshNonce(), client)
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
