package osdmlegacy

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// OfferRecord is what an offer search keeps about each offer it answers,
// so that POST /bookings can book it without searching again: everything
// the legacy BookingRequest needs, and what the booking's OSDM answer
// repeats. It lives in the store under OfferKey(id) until ExpiresAt.
type OfferRecord struct {
	// ID is the OSDM offerId: 128 random bits, unguessable. An id that was
	// altered or forged names no record and is refused; nothing is sent.
	ID string `json:"id"`
	// Partner is the façade's partner label: an offer of another façade
	// sharing the store is not this one's.
	Partner string `json:"partner"`
	// Train is the train number, 1..5 characters.
	Train string `json:"train"`
	// ServiceDate is the legacy DepartureDate (YYYY-MM-DD, the local date of
	// departure from Origin).
	ServiceDate string `json:"serviceDate"`
	// Origin and Destination are 7-digit UIC station codes.
	Origin      string `json:"origin"`
	Destination string `json:"destination"`
	// OriginName and DestinationName are the stations' names, when known.
	OriginName      string `json:"originName,omitempty"`
	DestinationName string `json:"destinationName,omitempty"`
	// Departure and Arrival are the instants of the trip (Arrival zero when
	// the legacy system and the timetable did not tell).
	Departure time.Time `json:"departure"`
	Arrival   time.Time `json:"arrival,omitempty"`
	// DepartureClock is the legacy DepartureTime sent (HH:MM local), "" if none.
	DepartureClock string `json:"departureClock,omitempty"`
	// Carrier is the operator's RICS code, "" when unknown.
	Carrier string `json:"carrier,omitempty"`
	// TravelClass (1, 2) and ServiceCode (1 seat, 2 couchette, 3 berth)
	// are the legacy PlaceRequest's; ServiceLevel its element 308, if any.
	TravelClass  int    `json:"travelClass"`
	ServiceCode  int    `json:"serviceCode"`
	ServiceLevel string `json:"serviceLevel,omitempty"`
	// Passengers are the search's passengers with their legacy tariffs.
	Passengers []OfferPassenger `json:"passengers"`
	// Price is the legacy price of all passengers together; OSDMPrice the
	// same as the offer showed it.
	Price     legacy.Price `json:"price"`
	OSDMPrice osdm.Price   `json:"osdmPrice"`
	// AvailablePlaces is the legacy system's count of places left, nil
	// when it did not say.
	AvailablePlaces *int `json:"availablePlaces,omitempty"`
	// LegacyOfferRef is the legacy AvailabilityReply's OfferRef, for the
	// BookingRequest's OfferRef; "" when it gave none.
	LegacyOfferRef string `json:"legacyOfferRef,omitempty"`
	// TripID, LegID, PartID and ProductID are the ids the offer answer used.
	TripID    string `json:"tripId"`
	LegID     string `json:"legId"`
	PartID    string `json:"partId"`
	ProductID string `json:"productId"`
	// CreatedOn is when the offer was made; ExpiresAt its preBookableUntil.
	CreatedOn time.Time `json:"createdOn"`
	ExpiresAt time.Time `json:"expiresAt"`
}

// OfferPassenger is one passenger of an offer.
type OfferPassenger struct {
	// Ref is the search's externalRef, the offer's passengerRefs item.
	Ref string `json:"ref"`
	// Type is the OSDM passenger type; Age the age used for the tariff
	// (nil when the request gave none and the type's only rule applied).
	Type osdm.PassengerType `json:"type"`
	Age  *int               `json:"age,omitempty"`
	// DateOfBirth as the search gave it, "" when not.
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	// Tariff is the legacy tariff code.
	Tariff int `json:"tariff"`
}

// Tariffs groups the passengers by tariff code, in order of first
// appearance, for the legacy PlaceRequest.
func (r *OfferRecord) Tariffs() []legacy.Tariff {
	return tariffCounts(r.Passengers)
}

func tariffCounts(pax []OfferPassenger) []legacy.Tariff {
	var out []legacy.Tariff
	for _, p := range pax {
		found := false
		for i := range out {
			if out[i].Code == p.Tariff {
				out[i].Count++
				found = true
				break
			}
		}
		if !found {
			out = append(out, legacy.Tariff{Code: p.Tariff, Count: 1})
		}
	}
	return out
}

// Journey is the legacy journey of the offer.
func (r *OfferRecord) Journey() legacy.Journey {
	return legacy.Journey{
		TrainNumber: r.Train, DepartureDate: r.ServiceDate, DepartureTime: r.DepartureClock,
		From: r.Origin, To: r.Destination, Carrier: r.Carrier,
	}
}

// PlaceRequest is the legacy place request of the offer.
func (r *OfferRecord) PlaceRequest() legacy.PlaceRequest {
	return legacy.PlaceRequest{
		TravelClass: r.TravelClass, ServiceCode: r.ServiceCode, ServiceLevel: r.ServiceLevel,
		Tariffs: r.Tariffs(),
	}
}

// ErrOfferNotFound is returned by LoadOffer for an offer id that names no
// live offer of this façade: unknown, expired, altered or forged.
var ErrOfferNotFound = errors.New("offer not found")

// Store key prefixes of the façade's records. A key is
// "osdm_legacy/<partner>/<kind>/<id>"; the booking side uses its own kinds
// through Key.
const (
	KindOffer = "offer"
)

// Key returns the store key of a record of kind with id for partner.
func Key(partner, kind, id string) string {
	return "osdm_legacy/" + partner + "/" + kind + "/" + id
}

// NewID returns a new unguessable id: 16 random bytes, base64url (22
// characters of [A-Za-z0-9_-]), with the given prefix.
func NewID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("osdmlegacy: no randomness: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// base64URL reports whether s is made of base64url characters only.
func base64URL(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// validID reports whether id has NewID's form with prefix, so a malformed
// id is refused before any store lookup.
func validID(id, prefix string) bool {
	if len(id) != len(prefix)+22 || id[:len(prefix)] != prefix {
		return false
	}
	for i := len(prefix); i < len(id); i++ {
		c := id[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// OfferIDPrefix starts every offer id.
const OfferIDPrefix = "of-"

// An offer id is OfferIDPrefix, the 22 characters of its search's set
// (16 random bytes, base64url) and, for the offers of a search, 8 more of
// its own (6 random bytes): "of-<set><offer>". All offers of one search
// are stored in one record under the set, so a search costs one store
// write however many offers it answers. NewID(OfferIDPrefix) (a set of
// one, no offer part) is accepted too.
const (
	offerSetLen  = 22
	offerPartLen = 8
)

// NewOfferSetID returns the random set part of a search's offer ids.
func NewOfferSetID() string { return NewID("") }

// NewOfferID returns a new offer id in the set.
func NewOfferID(set string) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("osdmlegacy: no randomness: " + err.Error())
	}
	return OfferIDPrefix + set + base64.RawURLEncoding.EncodeToString(b[:])
}

// offerSetOf returns the set part of an offer id, and whether the id has
// one of the two forms.
func offerSetOf(id string) (string, bool) {
	switch len(id) {
	case len(OfferIDPrefix) + offerSetLen, len(OfferIDPrefix) + offerSetLen + offerPartLen:
	default:
		return "", false
	}
	if id[:len(OfferIDPrefix)] != OfferIDPrefix || !base64URL(id[len(OfferIDPrefix):]) {
		return "", false
	}
	return id[len(OfferIDPrefix) : len(OfferIDPrefix)+offerSetLen], true
}

// offerSet is the stored record of a search's offers.
type offerSet struct {
	Offers []OfferRecord `json:"offers"`
}

// SaveOffer stores one record, as a set of one (its id from
// NewID(OfferIDPrefix) or NewOfferID), until its ExpiresAt.
func SaveOffer(ctx context.Context, st store.Store, rec *OfferRecord, now time.Time) error {
	return SaveOffers(ctx, st, rec.Partner, []*OfferRecord{rec}, now)
}

// SaveOffers stores the offers of one search (ids of one set, one
// partner) in one write, until the last one expires. A set id already
// taken is an error: nothing is overwritten.
func SaveOffers(ctx context.Context, st store.Store, partner string, recs []*OfferRecord, now time.Time) error {
	if len(recs) == 0 {
		return nil
	}
	set, ok := offerSetOf(recs[0].ID)
	if !ok {
		return fmt.Errorf("offer id %q is not an offer id", recs[0].ID)
	}
	var last time.Time
	out := offerSet{Offers: make([]OfferRecord, 0, len(recs))}
	for _, r := range recs {
		if s, ok := offerSetOf(r.ID); !ok || s != set || r.Partner != partner {
			return fmt.Errorf("offer %s is not of set %s of %s", r.ID, set, partner)
		}
		if r.ExpiresAt.After(last) {
			last = r.ExpiresAt
		}
		out.Offers = append(out.Offers, *r)
	}
	ttl := last.Sub(now)
	if ttl <= 0 {
		return fmt.Errorf("offers of set %s expire before they are stored", set)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	ok, err = st.PutIfAbsent(ctx, Key(partner, KindOffer, set), b, ttl)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("offer set %s already taken", set)
	}
	return nil
}

// LoadOffer returns the live offer id of partner, or ErrOfferNotFound
// (also for a malformed id, which is never looked up, and for an id that
// differs from every offer of its set in any character). Other errors are
// the store's.
func LoadOffer(ctx context.Context, st store.Store, partner, id string, now time.Time) (*OfferRecord, error) {
	set, ok := offerSetOf(id)
	if !ok {
		return nil, ErrOfferNotFound
	}
	b, err := st.Get(ctx, Key(partner, KindOffer, set))
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrOfferNotFound
	}
	if err != nil {
		return nil, err
	}
	var recs offerSet
	if err := json.Unmarshal(b, &recs); err != nil {
		return nil, fmt.Errorf("offer set %s: stored record unreadable: %w", set, err)
	}
	for i := range recs.Offers {
		rec := &recs.Offers[i]
		if rec.ID == id {
			if rec.Partner != partner || !now.Before(rec.ExpiresAt) {
				return nil, ErrOfferNotFound
			}
			return rec, nil
		}
	}
	return nil, ErrOfferNotFound
}
