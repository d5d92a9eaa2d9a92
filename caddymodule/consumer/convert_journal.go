package consumer

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/calls"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/stores"
	"github.com/caddy-osdm/caddy-osdm/converter"
)

// Defaults of osdm_convert's journal.
const (
	defaultSettleEvery = time.Minute
	// leaseSlack is added to the exchange's timeout for its lease: the
	// grace periods of a late POST /bookings, a fulfilment retry and a
	// rollback run past the timeout (converter.RollbackGrace each).
	leaseSlack = 3*converter.RollbackGrace + 15*time.Second
)

// provisionJournal opens the route's store (shared with every module of
// this Caddy naming the same bolt file or Redis) and builds the journal.
func (c *Convert) provisionJournal(reg *prometheus.Registry) error {
	settlements := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "caddy", Subsystem: "osdm_convert", Name: "settlements_total",
		Help: "Exchanges left without an outcome (a process that died, a partner that stopped answering) that settlement looked at, by partner, outcome now recorded, and settled (false: the partner's state is still not known; tried again later).",
	}, []string{"partner", "outcome", "settled"})
	if reg != nil {
		var err error
		if settlements, err = glue.RegisterOrReuse(reg, settlements); err != nil {
			return fmt.Errorf("registering metrics: %w", err)
		}
	}
	c.settlements = settlements
	cfg := stores.Config{}
	if c.Store != nil {
		cfg = *c.Store
	}
	lease, err := stores.Acquire(cfg, "")
	if err != nil {
		return fmt.Errorf("journal %w", err) // "journal store: bolt file ... is locked by another process ..."
	}
	c.storeLease = lease
	if c.SettleEvery == 0 {
		c.SettleEvery = caddy.Duration(defaultSettleEvery)
	}
	c.journal, err = converter.NewJournal(c.conv, lease, converter.JournalConfig{
		ReplyTTL:  time.Duration(c.ReplyCacheTTL),
		Lease:     time.Duration(c.Timeout) + leaseSlack,
		Exclusive: strings.HasPrefix(lease.Where, stores.EngineBolt+" "),
		Log:       c.logSettled,
	})
	if err != nil {
		_ = lease.Release()
		return err
	}
	c.settler = &convertSettler{c: c, stop: make(chan struct{}), done: make(chan struct{})}
	// A Redis that does not answer now is no reason to refuse the
	// configuration: bookings are refused (retryably, nothing sent to the
	// partner) until it answers.
	pctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := lease.Ping(pctx); err != nil {
		c.logger.Warn("the journal store does not answer; bookings and cancellations are refused until it does",
			zap.String("partner", c.Partner), zap.String("store", lease.Where), zap.Error(err))
	}
	return nil
}

// cleanupJournal stops settlement and gives the store back.
func (c *Convert) cleanupJournal() error {
	if c.settler != nil {
		c.settler.close()
	}
	if c.storeLease != nil {
		return c.storeLease.Release()
	}
	return nil
}

// logSettled writes what settling one exchange found.
func (c *Convert) logSettled(s converter.Settled) {
	c.settlements.WithLabelValues(c.Partner, s.Outcome, strconv.FormatBool(s.Done)).Inc()
	level := zap.InfoLevel
	msg := "exchange settled"
	if !s.Done {
		level, msg = zap.WarnLevel, "exchange not settled yet"
	}
	if ce := c.logger.Check(level, msg); ce != nil {
		ce.Write(zap.String("partner", c.Partner), zap.String("message_id", s.MessageID),
			zap.String("booking_ref", s.BookingID), zap.String("outcome", s.Outcome), zap.String("reason", s.Text))
	}
}

// convertSettler settles, in the background, the exchanges that a dead
// process or a partner that stopped answering left without an outcome
// (converter.Journal.Settle). Settlement makes OSDM calls outside any
// client request, and they must go through the route's own handlers
// (osdm_token, reverse_proxy) like every other call: so it starts with the
// route's first request, keeping that request's next handler and a
// detached copy of what the request carried (URL, host, the server), and
// runs at once, then every settle_every, each pass on a fresh request
// context (its own replacer and variables), until the configuration is
// unloaded. A Caddy that gets no request settles nothing, and has no
// client to answer either: the first resend both starts settlement and,
// if its own exchange is among the unsettled ones, continues it itself.
type convertSettler struct {
	c    *Convert
	stop chan struct{}
	done chan struct{} // closed when the loop has ended

	mu      sync.Mutex
	started bool
	closed  bool
	next    caddyhttp.Handler
	url     string
	host    string
	remote  string
	server  *caddyhttp.Server
	base    context.Context
}

// start begins settlement with the route's first request; later calls do
// nothing.
func (s *convertSettler) start(r *http.Request, next caddyhttp.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return
	}
	s.started = true
	s.next, s.url, s.host, s.remote = next, r.URL.String(), r.Host, r.RemoteAddr
	s.server, _ = r.Context().Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	s.base = context.WithoutCancel(r.Context())
	go s.loop()
}

// close stops the loop and waits for a pass under way to end (its calls
// are cancelled).
func (s *convertSettler) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	started := s.started
	s.mu.Unlock()
	close(s.stop)
	if started {
		<-s.done
	}
}

func (s *convertSettler) loop() {
	defer close(s.done)
	every := time.Duration(s.c.SettleEvery)
	for {
		s.pass()
		t := time.NewTimer(every)
		select {
		case <-s.stop:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// pass settles what is pending, on a request of its own.
func (s *convertSettler) pass() {
	ctx, cancel := context.WithCancel(s.base)
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, http.NoBody)
	if err != nil {
		return
	}
	req.Host, req.RemoteAddr = s.host, s.remote
	req = caddyhttp.PrepareRequest(req, caddy.NewReplacer(), nil, s.server)
	c := s.c
	x := &nextCaller{orig: req, next: s.next, traceParent: calls.TraceParent(req), metrics: c.metrics, partner: c.Partner}
	// The calls run on the prepared request's context: its own replacer
	// and variables, never those of the request settlement started with.
	if _, err := c.journal.Settle(req.Context(), x); err != nil && ctx.Err() == nil {
		c.logger.Warn("reading the journal for settlement failed", zap.String("partner", c.Partner),
			zap.String("store", c.storeLease.Where), zap.Error(err))
	}
}
