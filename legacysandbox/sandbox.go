package legacysandbox

import (
	"context"
	"crypto/rand"
	"strconv"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/refseq"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// Sandbox is the in-memory legacy reservation system, an http.Handler.
// Make it with New; it is safe for concurrent use.
type Sandbox struct {
	cfg     Config
	fares   map[[2]int]int64
	foreign map[string]Foreign
	// offerKey signs OfferRefs, so that an altered one is refused.
	offerKey []byte

	mu sync.Mutex
	// refs makes the BookingRefs, with a tag of this instance's: they
	// differ from an earlier run's, which a client may still hold.
	refs      refseq.Seq
	inventory *inventory
	bookings  *bookings
	replies   *replies
	nextSweep time.Time
}

// New checks cfg and returns a Sandbox with its defaults filled in.
func New(cfg Config) (*Sandbox, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Sandbox{
		cfg:       cfg,
		fares:     map[[2]int]int64{},
		foreign:   map[string]Foreign{},
		offerKey:  make([]byte, 32),
		refs:      refseq.New(),
		inventory: newInventory(cfg.Capacity),
		bookings:  newBookings(),
		replies:   newReplies(),
	}
	for _, f := range DefaultFares {
		s.fares[[2]int{f.TravelClass, f.ServiceCode}] = f.Cents
	}
	for _, f := range cfg.Fares {
		s.fares[[2]int{f.TravelClass, f.ServiceCode}] = f.Cents
	}
	for _, f := range cfg.Foreign {
		s.foreign[f.Train] = f
	}
	_, _ = rand.Read(s.offerKey)
	return s, nil
}

// Config returns the configuration in use, defaults filled in.
func (s *Sandbox) Config() Config { return s.cfg }

// Handle answers one decoded legacy request after Config.Latency (or as
// soon as ctx is done: the request has taken effect either way, and a
// resend of its messageId gets the same reply). The reply's HTTP status
// is Status(reply).
func (s *Sandbox) Handle(ctx context.Context, req legacy.Request) legacy.Reply {
	reply := s.handle(req)
	s.wait(ctx)
	return reply
}

// Status is the HTTP status of a reply: a NegativeReply's code's
// (legacy.Code.HTTPStatus), 200 for the others.
func Status(reply legacy.Reply) int {
	if nr, ok := reply.(*legacy.NegativeReply); ok {
		return nr.Code.HTTPStatus()
	}
	return 200
}

// wait sleeps Config.Latency, or until ctx is done.
func (s *Sandbox) wait(ctx context.Context) {
	if s.cfg.Latency <= 0 {
		return
	}
	t := time.NewTimer(s.cfg.Latency)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// handle answers req at once: the resend check, then the message.
func (s *Sandbox) handle(req legacy.Request) legacy.Reply {
	fp := fingerprint(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.cfg.Now()
	s.sweep(now)
	h := legacy.ReplyTo(req, now)
	key := replyKey(req)
	if r, ok := s.replies.get(key); ok {
		if r.fingerprint != fp {
			return legacy.NewNegativeReply(h, legacy.CodeInvalidMessage,
				"messageId "+req.MessageID()+" was used before for another message; a new message needs a new messageId")
		}
		return legacy.WithNamespace(r.reply, h.Namespaced)
	}
	var reply legacy.Reply
	switch m := req.(type) {
	case *legacy.AvailabilityRequest:
		if m.ExchangeOf != "" {
			reply = legacy.NewNegativeReply(h, legacy.CodeExchangeNotSupported,
				"exchange of booking "+shortRef(m.ExchangeOf)+" is not supported; book the new journey, then cancel the old one")
			break
		}
		reply = s.availability(now, h, m.Journey, m.Places)
	case *legacy.BookingRequest:
		reply = s.book(now, h, m)
		if r, ok := reply.(*legacy.BookingReply); ok {
			s.bookings.acted(s.bookings.get(r.BookingRef), key, reply)
		}
	case *legacy.CancelRequest:
		reply = s.cancel(now, h, m)
		if r, ok := reply.(*legacy.CancelReply); ok {
			s.bookings.acted(s.bookings.get(r.BookingRef), key, reply)
		}
	case *legacy.SynchroRequest:
		reply = s.synchro(now, h, m)
	case *legacy.PassengerDataRequest:
		reply = s.passengerData(now, h, m)
		if r, ok := reply.(*legacy.PassengerDataReply); ok {
			s.bookings.acted(s.bookings.get(r.BookingRef), key, reply)
		}
	default:
		reply = legacy.NewNegativeReply(h, legacy.CodeUnsupportedMessage, string(req.Kind())+" is not a request this system takes")
	}
	s.replies.put(key, &remembered{fingerprint: fp, reply: reply, at: now}, s.cfg.MaxEntries)
	return reply
}

// replyKey scopes a messageId by its sender.
func replyKey(req legacy.Request) string {
	return strconv.Itoa(req.RequestHeader().Sender) + "/" + req.MessageID()
}

// newRef returns a fresh reference with the sandbox's system code and tag,
// e.g. "9999-3fa2-17". Callers hold s.mu.
func (s *Sandbox) newRef() string {
	return s.refs.Next(strconv.Itoa(s.cfg.System))
}

// sweep drops what has expired, at most once a minute. Callers hold s.mu.
func (s *Sandbox) sweep(now time.Time) {
	if now.Before(s.nextSweep) {
		return
	}
	s.nextSweep = now.Add(time.Minute)
	s.replies.expire(now.Add(-s.cfg.Retention))
	for _, b := range s.bookings.expire(now, s.cfg.Retention) {
		var held []int
		for _, i := range b.held() {
			held = append(held, b.index[i])
		}
		s.inventory.release(b.run, held)
	}
}
