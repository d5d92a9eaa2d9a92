package osdmlegacy

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// offerKeyLen is the length of the key that signs offer ids.
const offerKeyLen = 32

// OfferKeyKey is the store key of partner's offer key: 32 random bytes,
// written once (PutIfAbsent, no expiry) by the first façade that needs
// them, so that every instance sharing the store, and a restarted one,
// signs and verifies the same offer ids.
func OfferKeyKey(partner string) string {
	return "osdm_legacy/" + partner + "/offer-key"
}

// LoadOfferKey returns partner's offer key from st, creating it when
// there is none. The key never appears in an error.
func LoadOfferKey(ctx context.Context, st store.Store, partner string) ([]byte, error) {
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

// offerSigner returns the signer of the façade's offer ids, its key read
// from the store on first use and kept in memory from then on. A store
// error fails this call only (the next one reads again).
func (f *Facade) offerSigner(ctx context.Context) (*offerSigner, error) {
	if s := f.signer.Load(); s != nil {
		return s, nil
	}
	k, err := LoadOfferKey(ctx, f.store, f.cfg.Partner)
	if err != nil {
		return nil, err
	}
	f.signer.CompareAndSwap(nil, newOfferSigner(k, f.cfg.Partner))
	return f.signer.Load(), nil
}

// offerKeyFailed is the answer of a call that needs the offer key while
// the store cannot give it: the service is unavailable for now.
func (f *Facade) offerKeyFailed(c *call) *Answer {
	return f.storeUnavailable(c, "the OSDM provider cannot reach its store; try again later")
}

// SealOffer sets rec.ID (and its Partner) to its self-verifying offer id
// (offer_id.go) under the façade's key.
func (f *Facade) SealOffer(ctx context.Context, rec *OfferRecord) error {
	s, err := f.offerSigner(ctx)
	if err != nil {
		return err
	}
	rec.Partner = f.cfg.Partner
	rec.ID = s.seal(rec)
	return nil
}

// OpenOffer returns the live offer of id, ErrOfferNotFound for an id this
// façade did not sign or that expired at now, or the store's error when
// the key cannot be read.
func (f *Facade) OpenOffer(ctx context.Context, id string, now time.Time) (*OfferRecord, error) {
	if len(id) <= len(OfferIDPrefix) || len(id) > maxOfferIDLen || id[:len(OfferIDPrefix)] != OfferIDPrefix {
		return nil, ErrOfferNotFound // not even an id's form: no key needed to say so
	}
	s, err := f.offerSigner(ctx)
	if err != nil {
		return nil, err
	}
	return s.open(id, now)
}
