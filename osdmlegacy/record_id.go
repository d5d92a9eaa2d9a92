package osdmlegacy

import (
	"crypto/rand"
	"encoding/base64"
)

// Store keys of the façade's records are "osdm_legacy/<partner>/<kind>/<id>"
// (the booking side's kinds, through storeKey). Offers have none: an offer
// lives in its id (offer_id.go).

// storeKey returns the store key of a record of kind with id for partner.
func storeKey(partner, kind, id string) string {
	return "osdm_legacy/" + partner + "/" + kind + "/" + id
}

// newID returns a new unguessable id: 16 random bytes, base64url (22
// characters of [A-Za-z0-9_-]), with the given prefix.
func newID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("osdmlegacy: no randomness: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// validID reports whether id has newID's form with prefix, so a malformed
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
