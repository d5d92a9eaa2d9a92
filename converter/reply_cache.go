package converter

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// ReplyCache remembers the reply to each legacy messageId for a while, so
// that a message resent by a Hermes system (same messageId, same body) gets
// the same reply without a second OSDM sequence. One ReplyCache serves one partner route.
//
// Every reply is kept, NegativeReplies included: a resend is a duplicate
// delivery, not a new attempt. A legacy system that wants to try again after
// a Retryable NegativeReply sends a new message (new messageId); the same
// messageId would only get the same reply until the entry expires. A
// reply that is not the exchange's outcome for good is not kept: one the
// journal may still settle, one that only says another instance is still
// at work on the message, one given because the journal's store failed,
// and the reply to a TicketRequest (read-only, and large with its
// documents: its resend reads the partner again). Its resend asks again.
//
// The cache holds at most maxEntries finished replies, dropping the oldest
// first; a reply expires ttl after it was made. Exchanges still running are
// never dropped, so a duplicate always finds them.
type ReplyCache struct {
	max int
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*cacheEntry
	order   *list.List // of *cacheEntry, oldest first
}

type cacheEntry struct {
	id      string
	body    [sha256.Size]byte
	done    chan struct{} // closed once res is set
	res     *Result
	expires time.Time // set when done
	elem    *list.Element
}

// NewReplyCache returns a cache of at most maxEntries replies (at least 1)
// kept for ttl each; now is the clock (nil means time.Now).
func NewReplyCache(maxEntries int, ttl time.Duration, now func() time.Time) *ReplyCache {
	if maxEntries < 1 {
		maxEntries = 1
	}
	if now == nil {
		now = time.Now
	}
	return &ReplyCache{max: maxEntries, ttl: ttl, now: now, entries: make(map[string]*cacheEntry), order: list.New()}
}

// Do returns the reply to the message messageID with the given body. The
// first time it runs fn and keeps its Result; while fn runs, a duplicate
// waits for that Result (or until its own ctx ends, answered with a
// retryable PARTNER_TIMEOUT); afterwards, until the entry expires or is
// dropped, a duplicate gets the kept Result. shared reports a Result not
// made by this call's fn.
//
// A messageId reused with a different body (compared by SHA-256) never gets
// the other message's reply: it is refused with INVALID_MESSAGE and fn is
// not run.
func (rc *ReplyCache) Do(ctx context.Context, messageID string, body []byte, fn func() *Result) (res *Result, shared bool) {
	sum := sha256.Sum256(body)
	rc.mu.Lock()
	now := rc.now()
	rc.expire(now)
	if e, found := rc.entries[messageID]; found && e.isDone() && !now.Before(e.expires) {
		rc.remove(e)
	}
	if e, found := rc.entries[messageID]; found {
		rc.mu.Unlock()
		if e.body != sum {
			return rc.reused(messageID, now), true
		}
		select {
		case <-e.done:
			return e.res, true
		default:
		}
		select {
		case <-e.done:
			return e.res, true
		case <-ctx.Done():
			return rc.stillRunning(messageID), true
		}
	}
	e := &cacheEntry{id: messageID, body: sum, done: make(chan struct{})}
	e.elem = rc.order.PushBack(e)
	rc.entries[messageID] = e
	rc.mu.Unlock()

	finished := false
	defer func() {
		if finished {
			return
		}
		// fn panicked: free the waiters, forget the entry so a resend can
		// run again, and let the panic go on.
		rc.mu.Lock()
		e.res = negative(legacy.NewNegativeReply(legacy.ReplyHeader{CorrelationID: messageID, SentAt: rc.now()},
			legacy.CodePartnerUnavailable, "The exchange with the partner failed unexpectedly; send the message again."))
		rc.remove(e)
		rc.mu.Unlock()
		close(e.done)
	}()
	res = fn()
	if res == nil {
		res = negative(legacy.NewNegativeReply(legacy.ReplyHeader{CorrelationID: messageID, SentAt: rc.now()},
			legacy.CodePartnerUnavailable, "The exchange with the partner gave no reply; send the message again."))
	}
	finished = true

	rc.mu.Lock()
	e.res = res
	e.expires = rc.now().Add(rc.ttl)
	close(e.done)
	if res.unsettled || res.transient {
		// Its outcome may still change (the journal settles it, or the
		// partner's state moved on): the duplicates already waiting get
		// it, later ones ask again.
		rc.remove(e)
	}
	rc.evict()
	rc.mu.Unlock()
	return res, false
}

// Len is the number of messages held, running ones included.
func (rc *ReplyCache) Len() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.entries)
}

// expire drops finished entries whose time is up. Entries finish roughly in
// the order they start, so the walk stops at the first live finished one.
func (rc *ReplyCache) expire(now time.Time) {
	for el := rc.order.Front(); el != nil; {
		next := el.Next()
		e := el.Value.(*cacheEntry)
		if e.isDone() {
			if now.Before(e.expires) {
				return
			}
			rc.remove(e)
		}
		el = next
	}
}

// evict drops the oldest finished entries until at most max remain.
func (rc *ReplyCache) evict() {
	for el := rc.order.Front(); el != nil && len(rc.entries) > rc.max; {
		next := el.Next()
		if e := el.Value.(*cacheEntry); e.isDone() {
			rc.remove(e)
		}
		el = next
	}
}

func (rc *ReplyCache) remove(e *cacheEntry) {
	rc.order.Remove(e.elem)
	if rc.entries[e.id] == e {
		delete(rc.entries, e.id)
	}
}

func (e *cacheEntry) isDone() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

func (rc *ReplyCache) reused(messageID string, now time.Time) *Result {
	return negative(legacy.NewNegativeReply(legacy.ReplyHeader{CorrelationID: messageID, SentAt: now}, legacy.CodeInvalidMessage,
		"messageId "+messageID+" was already used for another message; give every message its own messageId."))
}

func (rc *ReplyCache) stillRunning(messageID string) *Result {
	return negative(legacy.NewNegativeReply(legacy.ReplyHeader{CorrelationID: messageID, SentAt: rc.now()}, legacy.CodePartnerTimeout,
		"The first copy of message "+messageID+" is still being processed and its reply was not ready in time; send it again later."))
}
