package converter

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// Journal keeps, in a store.Store, what a legacy message that changes
// state at the partner (a BookingRequest that books or exchanges, a
// CancelRequest, a SynchroRequest with rollback, a PassengerDataRequest)
// depends on beyond one process's memory:
//
//   - its reply, for ReplyTTL, so that a resend gets the first reply on
//     any instance sharing the store and after a restart;
//   - the exchange under way: before POST /bookings, its intent (the
//     offer chosen and the exact body, so the same call can be made
//     again with the same Idempotency-Key); the booking id as soon as the
//     partner answers; the outcome at the end;
//   - a lease per messageId (PutIfAbsent with expiry), so that however
//     many instances share the store, one runs a message's OSDM sequence
//     at a time and the others wait for its reply;
//   - for the after-sales messages, each step that commits the partner
//     (journal_run.go): the refund offer or exchange operation
//     made, then its confirmation about to be sent. A SynchroRequest is
//     answered from these records.
//
// A message whose exchange was cut off (the process died) is continued
// by its resend from what the journal holds, or settled by Settle: the
// booking is read back at the partner and fulfilled or deleted, and the
// outcome recorded for the resend. Searches (AvailabilityRequest,
// informationOnly BookingRequest) and TicketRequests change nothing at the
// partner and pass straight to the Converter: nothing of them is written
// to the store (a TicketReply's documents would be megabytes of personal
// data kept for nothing; a resend reads the partner again).
//
// One Journal serves one Converter (one partner route); several may share
// one store, their keys apart by partner.
type Journal struct {
	c     *Converter
	s     store.Store
	cfg   JournalConfig
	owner string // this Journal's lease holder prefix

	leases atomic.Uint64 // leases taken, numbering their tokens
}

// JournalConfig sets up a Journal.
type JournalConfig struct {
	// ReplyTTL is how long a finished exchange's reply is kept; the
	// reply cache's time. Required.
	ReplyTTL time.Duration
	// Lease is how long an exchange holds its messageId against other
	// instances: longer than the longest exchange (its timeout plus the
	// grace periods of rollback and retries). On a store shared by
	// processes, the lease of a process that died ends after this time.
	Lease time.Duration
	// Exclusive: no other process uses the store (an embedded bbolt file,
	// which one process locks), so leases are kept in this process's
	// memory, not written to the store: a process that dies leaves none.
	Exclusive bool
	// Poll is how often a resend waiting for another instance's exchange
	// looks for its reply. Default 50ms.
	Poll time.Duration
	// UnsettledTTL bounds how long an exchange that could not be settled
	// is kept trying; default 7 days.
	UnsettledTTL time.Duration
	// Log, when set, is told what settlement found (for the operator's
	// log): one line per exchange settled or still unsettled.
	Log func(Settled)
}

// Settled is what settling one exchange found.
type Settled struct {
	// MessageID is the legacy message.
	MessageID string
	// BookingID is the partner's booking, "" when none is known.
	BookingID string
	// Outcome is the Result's outcome now recorded for the resend.
	Outcome string
	// Done is false when the partner's state is still not known (it did
	// not answer); settlement tries again later.
	Done bool
	// Text is the reply's text, for the log.
	Text string
}

func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// storeTimeout bounds one store operation; the store's calls run detached
// from the exchange's deadline, as recording what was done must not be cut
// short by it.
const storeTimeout = 5 * time.Second

// NewJournal returns the journal of c's exchanges in s.
func NewJournal(c *Converter, s store.Store, cfg JournalConfig) (*Journal, error) {
	if c == nil || s == nil {
		return nil, errors.New("journal: needs a converter and a store")
	}
	if cfg.ReplyTTL <= 0 {
		return nil, errors.New("journal: reply ttl must be positive")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = time.Minute
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 50 * time.Millisecond
	}
	if cfg.UnsettledTTL <= 0 {
		cfg.UnsettledTTL = 7 * 24 * time.Hour
	}
	return &Journal{c: c, s: s, cfg: cfg, owner: newToken()}, nil
}

// keys of one partner's exchanges.
func (j *Journal) recordPrefix() string { return "convert/" + j.c.partner + "/x/" }
func (j *Journal) recordKey(id string) string {
	return j.recordPrefix() + id
}
func (j *Journal) leaseKey(id string) string { return "convert/" + j.c.partner + "/lease/" + id }

// journaled reports the messages that change state at the partner.
func journaled(req legacy.Request) bool {
	switch m := req.(type) {
	case *legacy.BookingRequest:
		return m != nil && !m.InformationOnly
	case *legacy.CancelRequest:
		return m != nil
	case *legacy.SynchroRequest:
		return m != nil && m.Rollback
	case *legacy.PassengerDataRequest:
		return m != nil
	}
	return false
}

// Do answers req (whose raw body is body) through x, as Converter.Convert
// does, with the journal around it. stored reports a reply that was not
// made by this call: the first reply kept in the store, or one made by
// another instance while this call waited.
//
// A store that fails before any OSDM call is a retryable NegativeReply and
// no call is made: the journal is what keeps a booking from being lost.
func (j *Journal) Do(ctx context.Context, req legacy.Request, body []byte, x Caller) (res *Result, stored bool) {
	if s, ok := req.(*legacy.SynchroRequest); ok && s != nil && s.OriginalMessageID == s.Header.MessageID {
		// It would ask about itself: IN_PROGRESS for as long as it runs.
		return negative(legacy.NewNegativeReply(legacy.ReplyTo(req, j.c.now()), legacy.CodeInvalidMessage,
			"SynchroRequest "+s.OriginalMessageID+" names its own messageId as OriginalMessageId; name the message whose outcome is asked.")), false
	}
	if s, ok := req.(*legacy.SynchroRequest); ok && s != nil && !s.Rollback {
		return j.synchroState(ctx, s), false
	}
	if !journaled(req) {
		return j.c.Convert(ctx, req, x), false
	}
	id := req.MessageID()
	hash := hashOf(body)
	h := legacy.ReplyTo(req, j.c.now())
	wait := j.cfg.Poll
	for {
		// On a shared store the record is read first: a message already
		// answered costs no lease write. A lease of an Exclusive store is
		// in memory and costs nothing: it is taken first and the record
		// read once, under it, by run.
		if !j.cfg.Exclusive {
			if res, done, err := j.answered(ctx, id, hash, h); err != nil {
				return j.storeFailed(h, err), false
			} else if done {
				return res, true
			}
		}
		token, got, err := j.acquire(ctx, id)
		if err != nil {
			return j.storeFailed(h, err), false
		}
		if got {
			return j.run(ctx, req, hash, h, x, token)
		}
		if j.cfg.Exclusive {
			if res, done, err := j.answered(ctx, id, hash, h); err != nil {
				return j.storeFailed(h, err), false
			} else if done {
				return res, true
			}
		}
		// Another instance runs this message: wait for its reply.
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			// Not an outcome: the exchange is another instance's (or a
			// dead one's, which settlement finishes). A ReplyCache must
			// not keep it, or resends would get it after the journal has
			// the real reply.
			return markUnsettled(negative(legacy.NewNegativeReply(h, legacy.CodePartnerTimeout,
				"The first copy of message "+id+" is still being processed and its reply was not ready in time; send it again later."))), true
		case <-t.C:
		}
		wait = min(2*wait, 4*j.cfg.Poll)
	}
}

// answered reads the record of message id and returns the reply a resend
// gets from it without running anything: the first reply, or the refusal
// of a messageId used for another message. done is false when there is
// none (no record, or an exchange not finished).
func (j *Journal) answered(ctx context.Context, id, hash string, h legacy.ReplyHeader) (*Result, bool, error) {
	rec, err := j.load(ctx, id)
	if err != nil {
		return nil, false, err
	}
	res, done := answerOf(rec, id, hash, h)
	return res, done, nil
}

// answerOf is the reply rec (nil: none) gives a resend of message id
// whose body hashes to hash without running anything; done is false when
// it gives none.
func answerOf(rec *exchangeRecord, id, hash string, h legacy.ReplyHeader) (*Result, bool) {
	if rec != nil && rec.BodyHash != hash {
		return negative(legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
			"messageId "+id+" was already used for another message; give every message its own messageId.")), true
	}
	if rec != nil && rec.State == stateDone && rec.Reply != nil {
		if res, err := rec.result(); err == nil {
			return res, true
		}
	}
	return nil, false
}

// run is Do holding the lease: it starts the exchange, or continues one
// that a dead process left.
func (j *Journal) run(ctx context.Context, req legacy.Request, hash string, h legacy.ReplyHeader, x Caller, token string) (*Result, bool) {
	id := req.MessageID()
	release := true
	defer func() {
		if release {
			j.release(id, token)
		}
	}()
	// Read again under the lease: the holder before may just have ended.
	rec, err := j.load(ctx, id)
	if err != nil {
		return j.storeFailed(h, err), false
	}
	if res, done := answerOf(rec, id, hash, h); done {
		return res, true
	}
	fresh := rec == nil
	if fresh {
		rec = &exchangeRecord{V: 1, Partner: j.c.partner, MessageID: id, Kind: string(req.Kind()), BodyHash: hash,
			Namespaced: h.Namespaced, Created: j.c.now().UTC(), State: stateRunning}
	}
	jx := &journalRun{j: j, rec: rec}
	// An after-sales message holds its booking (journal_run.go);
	// a rollback, once it knows the booking (synchro), or resumed, its
	// record's.
	bid := afterSalesBooking(req)
	if bid == "" && !fresh && rec.After != nil && rec.After.Original != "" {
		bid = rec.BookingID
	}
	defer jx.freeBooking()
	if bid != "" {
		if err := jx.holdBooking(ctx, bid); err != nil {
			return j.bookingHeld(h, bid, err), false
		}
	}
	var res *Result
	var settled bool
	if fresh {
		res = j.c.convert(ctx, req, x, jx)
		if jx.notStarted {
			// Its resend runs it.
			return res, false
		}
		settled = jx.settled(res)
		if jx.intentErr != nil && !jx.bookingSent {
			// The converter read the failed write as a lost answer; in
			// fact nothing was sent.
			res, settled = j.storeFailed(h, jx.intentErr), true
		}
	} else {
		// A dead process's exchange, or one left unsettled. For the former
		// the client was told nothing, so a booking made and not yet
		// confirmed is confirmed now, as the first exchange would have;
		// for the latter the first reply stands until the partner's state
		// is known.
		m, _ := req.(*legacy.BookingRequest)
		before := rec.Reply
		if m != nil && m.ExchangeOf == "" {
			res, settled = j.c.resume(ctx, m, h, x, jx, rec.State != stateUnsettled)
		} else {
			res, settled = j.c.resumeAfterSales(ctx, req, h, x, jx)
		}
		if !settled && before != nil {
			rec.Reply = before
			if prev, err := rec.result(); err == nil {
				res = prev
			}
		}
	}
	j.finish(jx, res, settled)
	if !settled {
		res = markUnsettled(res)
	}
	// On a shared store a settled exchange keeps its lease until it
	// expires: a waiter reads the reply first, and this saves a write
	// (unless the reply would expire before the lease). An unsettled one
	// frees it for settlement; a lease in memory is always freed.
	release = !settled || j.cfg.Exclusive || j.cfg.ReplyTTL <= j.cfg.Lease
	return res, false
}

// finish records the exchange's outcome: done with its reply for ReplyTTL,
// or unsettled (kept for settlement) with the reply given so far.
func (j *Journal) finish(jx *journalRun, res *Result, settled bool) {
	rec := jx.rec
	if err := rec.setReply(res); err != nil {
		return
	}
	rec.Updated = j.c.now().UTC()
	ttl := j.cfg.ReplyTTL
	rec.State = stateDone
	if !settled {
		rec.State, ttl = stateUnsettled, j.cfg.UnsettledTTL
	}
	out := rec
	if settled && rec.BookingID != "" {
		// A settled exchange whose booking is named is never booked
		// again: whatever reads it later reads the booking back by its
		// id (resume). Its record keeps the reply, the booking id and the
		// offer, not the POST /bookings body (a quarter of its size for
		// the tests' golden booking; records live for the reply ttl). One
		// without a booking id keeps it: resume would send it again.
		cp := *rec
		cp.BookingBody = nil
		out = &cp
	}
	if err := j.save(out, ttl); err != nil && j.cfg.Log != nil {
		j.cfg.Log(Settled{MessageID: rec.MessageID, BookingID: rec.BookingID, Outcome: res.Outcome, Done: false,
			Text: "recording the outcome in the store failed: " + err.Error()})
	}
}

// storeFailed is the reply when the store cannot be used: nothing was
// sent to the partner.
// The journal holds no outcome for it, so it is marked as one a
// ReplyCache does not keep: the resend runs once the store works again.
func (j *Journal) storeFailed(h legacy.ReplyHeader, err error) *Result {
	n := legacy.NewNegativeReply(h, legacy.CodePartnerUnavailable,
		plain("The converter's journal store for partner "+j.c.partner+" failed ("+err.Error()+"), so nothing was sent to the partner; send the message again later.", 1000))
	return markUnsettled(negative(n))
}

// detached is a context for store calls that outlives the exchange's.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
}

// load reads the record of message id; nil when there is none.
func (j *Journal) load(ctx context.Context, id string) (*exchangeRecord, error) {
	sctx, cancel := detached(ctx)
	defer cancel()
	raw, err := j.s.Get(sctx, j.recordKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeRecord(raw)
}

// save writes rec.
func (j *Journal) save(rec *exchangeRecord, ttl time.Duration) error {
	raw, err := rec.encode()
	if err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	return j.s.Put(sctx, j.recordKey(rec.MessageID), raw, ttl)
}

// acquire takes the lease of message id: in the store (PutIfAbsent with
// expiry), or, for an Exclusive store, in this process's memory: one
// process holds the file, so a lease in the file would only cost a write
// and outlive the process that took it.
func (j *Journal) acquire(ctx context.Context, id string) (string, bool, error) {
	return j.acquireKey(ctx, j.leaseKey(id))
}

// acquireKey takes the lease kept under key, as acquire does.
func (j *Journal) acquireKey(ctx context.Context, key string) (string, bool, error) {
	// Unique: the owner is random per Journal, the number per lease.
	token := j.owner + "/" + strconv.FormatUint(j.leases.Add(1), 36)
	if j.cfg.Exclusive {
		return token, localLeases.take(key, token, time.Now().Add(j.cfg.Lease)), nil
	}
	sctx, cancel := detached(ctx)
	defer cancel()
	ok, err := j.s.PutIfAbsent(sctx, key, []byte(token), j.cfg.Lease)
	return token, ok, err
}

// release frees the lease if it is still token's.
func (j *Journal) release(id, token string) {
	j.releaseKey(j.leaseKey(id), token)
}

// releaseKey frees the lease kept under key if it is still token's.
func (j *Journal) releaseKey(key, token string) {
	if j.cfg.Exclusive {
		localLeases.give(key, token)
		return
	}
	sctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	if held, err := j.s.Get(sctx, key); err == nil && string(held) == token {
		_ = j.s.Delete(sctx, key)
	}
}

// leaseTable holds the leases of Exclusive stores: this process's only.
type leaseTable struct {
	mu sync.Mutex
	m  map[string]heldLease
}

type heldLease struct {
	token   string
	expires time.Time
}

// localLeases is this process's lease table. A process that dies loses
// it, which frees its leases at once for the next process on the file.
var localLeases = &leaseTable{m: map[string]heldLease{}}

// take takes key for token until expires, if free or expired.
func (t *leaseTable) take(key, token string, expires time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if h, held := t.m[key]; held && time.Now().Before(h.expires) {
		return false
	}
	t.m[key] = heldLease{token: token, expires: expires}
	return true
}

// give frees key if token holds it.
func (t *leaseTable) give(key, token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[key].token == token {
		delete(t.m, key)
	}
}

// markUnsettled is res marked as a reply that may still change.
func markUnsettled(res *Result) *Result {
	cp := *res
	cp.unsettled = true
	return &cp
}

// hashOf is the hex SHA-256 of a legacy body, as records keep it.
func hashOf(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}
