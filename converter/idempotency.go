package converter

import (
	"github.com/google/uuid"
)

// idempotencyNamespace is the UUID v5 namespace of our Idempotency-Keys,
// itself a name-based UUID so that it is documented by its name rather than
// a magic constant.
var idempotencyNamespace = uuid.NewSHA1(uuid.NameSpaceURL, []byte("https://github.com/caddy-osdm/caddy-osdm/idempotency-key"))

// IdempotencyKey is the Idempotency-Key of the OSDM call step made for the
// legacy message messageID on partner's route: a name-based UUID (version 5,
// SHA-1) of the three, as the spec wants a UUID. The same message resent,
// retried or served by another Caddy instance yields the same key, so the
// partner recognises the call; another message, step or partner yields
// another. The NUL separators keep ("a", "b:c") and ("a:b", "c") apart.
func IdempotencyKey(partner, messageID string, step Step) string {
	name := make([]byte, 0, len(partner)+len(messageID)+len(step)+2)
	name = append(name, partner...)
	name = append(name, 0)
	name = append(name, messageID...)
	name = append(name, 0)
	name = append(name, step...)
	return uuid.NewSHA1(idempotencyNamespace, name).String()
}
