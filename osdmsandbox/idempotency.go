package osdmsandbox

import (
	"crypto/sha256"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// storedResponse is the first answer to an Idempotency-Key, kept for
// Config.Retention: about 300 bytes plus the answer's body (0.2 KB for a
// fulfilment, 2.3 KB for a booking of two passengers).
type storedResponse struct {
	bodyHash [sha256.Size]byte // of the request body
	resp     *response
	expires  time.Time
}

// idempotencyScope scopes Idempotency-Keys to client and to the
// operation (method and path): a client reusing another's key makes a new
// request, never gets the other's answer.
func idempotencyScope(client, operation string) string {
	if client == AnonymousClient {
		return operation
	}
	return strconv.Itoa(len(client)) + ":" + client + " " + operation
}

// idempotencyID scopes a key to a method and path: the same key on
// another operation is another request.
func idempotencyID(scope, key string) string { return scope + "\x00" + key }

// replay returns the stored answer of an earlier request with the same
// key, scope and body; a 422 problem when the body differs; nil when the
// key is new (or expired). Callers hold the Sandbox's lock.
func (l *ledger) replay(now time.Time, scope, key string, body []byte) *response {
	id := idempotencyID(scope, key)
	stored, ok := l.keys.get(id)
	if !ok {
		return nil
	}
	if !now.Before(stored.expires) {
		l.keys.remove(id)
		return nil
	}
	if stored.bodyHash != sha256.Sum256(body) {
		return problemResponse(osdm.NewProblem(http.StatusUnprocessableEntity, osdm.CodeOperationNotPermitted,
			"Idempotency-Key "+key+" was used for a request with another body; use a new key for a new request"))
	}
	replayed := *stored.resp
	replayed.replayed = true
	return &replayed
}

// remember stores the answer to a request with an Idempotency-Key; when
// the store is full, the oldest key is forgotten. Callers hold the Sandbox's lock.
func (l *ledger) remember(now time.Time, scope, key string, body []byte, resp *response) {
	id := idempotencyID(scope, key)
	if l.keys.len() >= l.cfg.MaxEntries {
		l.sweep(now, true)
		if l.keys.len() >= l.cfg.MaxEntries {
			oldest, _, _ := l.keys.oldest()
			l.keys.remove(oldest)
		}
	}
	l.keys.put(id, &storedResponse{bodyHash: sha256.Sum256(body), resp: resp, expires: now.Add(l.cfg.Retention)})
}
