package providerauth

// The process-wide registry of osdm_login's signing keys: osdm_login
// registers its key when provisioned and removes it in Cleanup; osdm_access
// without key_file verifies access tokens with the keys of its issuer.

import (
	"crypto"
	"sync"
)

// loginSigningKey is the public half of an osdm_login signing key, which
// an osdm_access without key_file uses to check access tokens.
type loginSigningKey struct {
	issuer, kid string
	public      crypto.PublicKey
}

// loginSigningKeys are the signing keys of the provisioned osdm_login
// handlers by issuer. During a reload the old and the new configuration's
// keys are both there, so tokens of either verify.
var loginSigningKeys = struct {
	sync.RWMutex
	byIssuer map[string][]*loginSigningKey
}{byIssuer: make(map[string][]*loginSigningKey)}

func registerLoginSigningKey(issuer, kid string, pub crypto.PublicKey) *loginSigningKey {
	k := &loginSigningKey{issuer: issuer, kid: kid, public: pub}
	loginSigningKeys.Lock()
	loginSigningKeys.byIssuer[issuer] = append(loginSigningKeys.byIssuer[issuer], k)
	loginSigningKeys.Unlock()
	return k
}

func unregisterLoginSigningKey(k *loginSigningKey) {
	loginSigningKeys.Lock()
	defer loginSigningKeys.Unlock()
	keys := loginSigningKeys.byIssuer[k.issuer]
	for i, have := range keys {
		if have == k {
			keys = append(keys[:i:i], keys[i+1:]...)
			break
		}
	}
	if len(keys) == 0 {
		delete(loginSigningKeys.byIssuer, k.issuer)
	} else {
		loginSigningKeys.byIssuer[k.issuer] = keys
	}
}

// loginPublicKeys returns the signing keys of the osdm_login handlers with
// this issuer whose kid matches (any kid when kid is empty).
func loginPublicKeys(issuer, kid string) []crypto.PublicKey {
	loginSigningKeys.RLock()
	defer loginSigningKeys.RUnlock()
	var out []crypto.PublicKey
	for _, k := range loginSigningKeys.byIssuer[issuer] {
		if kid == "" || k.kid == kid {
			out = append(out, k.public)
		}
	}
	return out
}
