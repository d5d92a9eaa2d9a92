package osdmlegacy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// idempotencyTTL is how long an Idempotency-Key and its answer are kept:
// a client retries within minutes; a day covers any retry policy.
const idempotencyTTL = 24 * time.Hour

// headerReplayed marks an answer replayed for a repeated Idempotency-Key.
const headerReplayed = "Idempotent-Replayed"

// idempotencyRecord is what the store keeps under an Idempotency-Key: the
// request it was first used with (a hash of method, path and body), the
// resource that request created or acted on, and, once final, its answer.
type idempotencyRecord struct {
	// Hash is the SHA-256 of method, path and body, hex.
	Hash string `json:"hash"`
	// Resource is the id the first call chose (a booking or refund offer
	// id), so a retry acts on the same one.
	Resource string `json:"resource,omitempty"`
	// Done says Status, ContentType and Body hold the final answer.
	Done        bool   `json:"done"`
	Status      int    `json:"status,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Body        []byte `json:"body,omitempty"`
	// Tickets are the documents of Body, which holds their placeholders:
	// a replay renders the same bytes again, and the store keeps a few
	// hundred bytes of a ticket rather than its PDF.
	Tickets []ticketpdf.Placeholder `json:"tickets,omitempty"`
	// LeaseUntil is when a call still under way is presumed dead, so that
	// a retry may take over (the legacy system de-duplicates a resend).
	LeaseUntil time.Time `json:"leaseUntil"`
}

// idemOp is one run of a state-changing operation under an
// Idempotency-Key: resource is the id to act on (chosen once, kept for
// retries); the answer is final (stored and replayed) unless the outcome
// is still unknown (a lost legacy answer, a store failure).
type idemOp func(resource string) (a *Answer, final bool)

// idempotencyKey reads the Idempotency-Key header: "" when absent, a UUID
// as the spec requires (format: uuid), else a 400; so is the header given
// more than once, whose key would be a guess.
func idempotencyKey(h http.Header) (string, *osdm.ProblemError) {
	if n := len(h.Values(osdm.HeaderIdempotencyKey)); n > 1 {
		return "", osdm.Invalid(osdm.CodeInvalidRequest, "", "the Idempotency-Key header is given "+strconv.Itoa(n)+" times; send one key")
	}
	k := h.Get(osdm.HeaderIdempotencyKey)
	if k == "" {
		return "", nil
	}
	if !osdm.ValidUUID(k) {
		return "", osdm.Invalid(osdm.CodeInvalidRequest, "", "the Idempotency-Key header must be a UUID such as 123e4567-e89b-12d3-a456-426614174000, not "+strconv.Quote(shorten(k, 64)))
	}
	return k, nil
}

// idempotencyHash is the store id of client's Idempotency-Key key: each
// client has keys of its own, so that one reusing another's key never gets
// the other's answer nor acts on its resource. anonymousClient's keys hash
// as they did before keys had owners.
func idempotencyHash(client, key string) string {
	h := sha256.New()
	if client != anonymousClient {
		h.Write([]byte("client\x00"))
		h.Write([]byte(strconv.Itoa(len(client))))
		h.Write([]byte{0})
		h.Write([]byte(client))
		h.Write([]byte{0})
	}
	h.Write([]byte(key))
	return hex.EncodeToString(h.Sum(nil))
}

// requestHash identifies a call's request: method, path and body.
func requestHash(c *call) string {
	h := sha256.New()
	h.Write([]byte(c.method))
	h.Write([]byte{0})
	h.Write([]byte(c.path))
	h.Write([]byte{0})
	h.Write(c.body)
	return hex.EncodeToString(h.Sum(nil))
}

// idempotent runs op under the call's Idempotency-Key. Without a key, op
// runs with a new resource id. With one: the first call claims the key
// (with the resource id) and stores op's final answer; a repeat with the
// same request gets that answer again, nothing re-run, nothing sent; a
// repeat while the first is under way is a 409; a repeat after the first
// died or lost its legacy answer re-runs op on the same resource (which
// resends the same legacy message, de-duplicated); a repeat with another
// request is a 422.
func (k *core) idempotent(ctx context.Context, c *call, newResource func() string, op idemOp) *Answer {
	key, p := idempotencyKey(c.header)
	if p != nil {
		return problemAnswer(p)
	}
	if key == "" {
		a, _ := op(newResource())
		return a
	}
	skey := storeKey(k.cfg.Partner, kindIdempotency, idempotencyHash(c.client, key))
	hash := requestHash(c)
	var rec idempotencyRecord
	for attempt := 0; ; attempt++ {
		if attempt == 8 {
			return k.storeFailed(c, errConflict)
		}
		now := k.now()
		fresh := idempotencyRecord{Hash: hash, Resource: newResource(), LeaseUntil: now.Add(k.cfg.Timeout)}
		b, _ := json.Marshal(fresh)
		ok, err := k.store.PutIfAbsent(ctx, skey, b, idempotencyTTL)
		if err != nil {
			return k.storeFailed(c, err)
		}
		if ok {
			rec = fresh
			break
		}
		old, err := k.store.Get(ctx, skey)
		if errors.Is(err, store.ErrNotFound) {
			continue // expired between the two calls
		}
		if err != nil {
			return k.storeFailed(c, err)
		}
		if err := json.Unmarshal(old, &rec); err != nil {
			return k.storeFailed(c, err)
		}
		if rec.Hash != hash {
			return problemAnswer(osdm.NewProblem(http.StatusUnprocessableEntity, osdm.CodeIdempotencyKeyReused,
				"the Idempotency-Key was used before with another request (method, path or body); use a new key for a new request"))
		}
		if rec.Done {
			c.tickets = rec.Tickets
			return k.replay(&rec)
		}
		if now.Before(rec.LeaseUntil) {
			p := osdm.NewProblem(http.StatusConflict, osdm.CodeRejected,
				"a request with this Idempotency-Key is still under way; retry when it has been answered")
			p.Retryable = true
			return problemAnswer(p)
		}
		// The first call died or lost its answer: take over its lease.
		taken := rec
		taken.LeaseUntil = now.Add(k.cfg.Timeout)
		nb, _ := json.Marshal(taken)
		ok, err = k.store.CompareAndSet(ctx, skey, old, nb, idempotencyTTL)
		if err != nil {
			return k.storeFailed(c, err)
		}
		if ok {
			rec = taken
			break
		}
	}
	a, final := op(rec.Resource)
	if !final {
		// Let a retry take over at once: the legacy system de-duplicates
		// the resend, and the store's compare-and-set orders the results.
		rec.LeaseUntil = time.Time{}
		b, _ := json.Marshal(rec)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
		_ = k.store.Put(rctx, skey, b, idempotencyTTL)
		return a
	}
	rec.Done, rec.Status, rec.Body, rec.Tickets = true, a.Status, a.Body, c.tickets
	rec.ContentType = a.Header.Get("Content-Type")
	b, _ := json.Marshal(rec)
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := k.store.Put(rctx, skey, b, idempotencyTTL); err != nil {
		a.StoreErrors++
	}
	return a
}

// replay answers a stored final answer again.
func (k *core) replay(rec *idempotencyRecord) *Answer {
	h := http.Header{"Cache-Control": {"no-store"}, headerReplayed: {"true"}}
	if rec.ContentType != "" {
		h.Set("Content-Type", rec.ContentType)
	}
	a := &Answer{Answer: osdm.Answer{Status: rec.Status, Header: h, Body: rec.Body}}
	if rec.Status >= 400 && len(rec.Body) > 0 {
		var body osdm.Problem
		if json.Unmarshal(rec.Body, &body) == nil {
			a.Problem = &osdm.ProblemError{Status: rec.Status, Code: body.Code, Detail: body.Detail}
		}
	}
	return a
}

// storeFailed is the answer to a call whose store operation failed with
// err: a retryable 503 that tells the client nothing of the cause (the
// store is down or unreachable, as the legacy system can be), which the
// answer keeps for the log line; nothing was sent to the legacy system
// unless the intent was recorded first.
func (k *core) storeFailed(c *call, err error) *Answer {
	a := k.storeUnavailable(c, "the OSDM provider could not record the request; try again later")
	a.Cause = err
	return a
}

// storeUnavailable answers c with a retryable 503 with detail, counted as
// a store error.
func (k *core) storeUnavailable(c *call, detail string) *Answer {
	p := osdm.NewProblem(http.StatusServiceUnavailable, osdm.CodeServiceUnavailable, detail)
	p.Retryable = true
	a := problemAnswer(p)
	a.StoreErrors++
	return a
}

// finalProblem reports whether a problem is the last word on its request
// (stored for the Idempotency-Key): not one that asks to retry (under way,
// the legacy system unavailable) nor a fault of the façade.
func finalProblem(p *osdm.ProblemError) bool {
	return !p.Retryable && p.Status < http.StatusInternalServerError
}

// finalAnswer is finalProblem for an answer already made.
func finalAnswer(a *Answer) bool {
	return a.Problem == nil || finalProblem(a.Problem)
}
