package osdmlegacy

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

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
// the store cannot give it: the service is unavailable for now.
func (o *offers) offerKeyFailed(c *call) *Answer {
	return o.storeUnavailable(c, "the OSDM provider cannot reach its store; try again later")
}

// sealOffer sets rec.ID (and its Partner) to its self-verifying offer id
// (offer_id.go) under the façade's key, for the client of the call in ctx
// (anonymousClient outside a call).
func (o *offers) sealOffer(ctx context.Context, rec *offerRecord) error {
	s, err := o.offerSigner(ctx)
	if err != nil {
		return err
	}
	rec.Partner = o.cfg.Partner
	client, _ := callerOf(ctx)
	rec.ID = s.seal(rec, client)
	return nil
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
		return o.problem(c, osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound,
			"the offer is unknown or no longer bookable (offers are bookable until their preBookableUntil); search again").
			WithPointer("#/offers/0/offerId")), true
	}
	return o.offerKeyFailed(c), false
}
