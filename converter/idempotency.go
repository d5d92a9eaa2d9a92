package converter

import (
	"crypto/sha1"

	"github.com/google/uuid"
)

// idempotencyNamespace is the UUID v5 namespace of our Idempotency-Keys,
// itself a name-based UUID so that it is documented by its name rather than
// a magic constant.
var idempotencyNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/caddy-osdm/caddy-osdm/idempotency-key"))

// IdempotencyKey is the Idempotency-Key of the OSDM call step made for the
// legacy message messageID on partner's route: a name-based UUID (version 5,
// SHA-1, RFC 9562) of the three, as the spec wants a UUID. The same message
// resent, retried or served by another Caddy instance yields the same key,
// so the partner recognises the call; another message, step or partner
// yields another. The NUL separators keep ("a", "b:c") and ("a:b", "c")
// apart.
//
// It computes what uuid.NewSHA1(idempotencyNamespace, name) does, without
// its allocations: it runs on every state-changing call.
func IdempotencyKey(partner, messageID string, step Step) string {
	var buf [256]byte
	name := append(buf[:0], idempotencyNamespace[:]...)
	name = append(name, partner...)
	name = append(name, 0)
	name = append(name, messageID...)
	name = append(name, 0)
	name = append(name, step...)
	sum := sha1.Sum(name)
	var u uuid.UUID
	copy(u[:], sum[:])
	u[6] = (u[6] & 0x0f) | 0x50 // version 5
	u[8] = (u[8] & 0x3f) | 0x80 // RFC 9562 variant
	return u.String()
}
