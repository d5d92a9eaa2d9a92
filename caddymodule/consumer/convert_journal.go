package consumer

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/runner"
)

// leaseSlack is added to the exchange's timeout for its lease: the grace
// periods of a late POST /bookings, a fulfilment retry and a rollback run
// past the timeout (converter.RollbackGrace each).
const leaseSlack = 3*converter.RollbackGrace + 15*time.Second

// provisionJournal takes the route's store from the osdm app (shared with
// every module of this Caddy naming the same store), builds the journal,
// and gives the app its settlement, which runs from the app's start.
func (c *Convert) provisionJournal(ctx caddy.Context) error {
	app, err := appview.For(ctx)
	if err != nil {
		return err
	}
	h, exclusive, err := app.Store(c.Store)
	if err != nil {
		return fmt.Errorf("journal %w", err)
	}
	c.store = h
	c.journal, err = converter.NewJournal(c.conv, h, converter.JournalConfig{
		ReplyTTL:  time.Duration(c.ReplyCacheTTL),
		Lease:     time.Duration(c.Timeout) + leaseSlack,
		Exclusive: exclusive,
		Log:       c.logSettled,
	})
	if err != nil {
		return err
	}
	c.calls = &convertCalls{partner: c.Partner}
	app.Report(c.journal)
	app.Report(c.calls)
	app.Background(runner.Job{
		Name:  "osdm_convert " + c.Partner + ": settlement",
		Every: time.Duration(c.SettleInterval),
		Run:   func(ctx context.Context) { c.settle(ctx, app) },
	})
	return nil
}

// settle is one pass of settlement: the exchanges a dead process or a
// partner that stopped answering left without an outcome
// (converter.Journal.Settle). Its OSDM calls go through the route's own
// handlers (osdm_token, reverse_proxy) like every other call: the osdm
// app gives the chain after this handler, and each pass builds its
// requests on a fresh request context (its own replacer and variables).
func (c *Convert) settle(ctx context.Context, app appview.Provider) {
	route, err := app.RouteAfter(c)
	if err != nil {
		c.logger.Error("settlement cannot reach the route", zap.String("partner", c.Partner), zap.Error(err))
		return
	}
	req, err := route.NewRequest(ctx, http.MethodPost, "/")
	if err != nil {
		return
	}
	x := newNextCaller(req, route.Next, subrequest.TraceParent(req), c.metrics, c.Partner)
	defer x.release()
	if _, err := c.journal.Settle(req.Context(), x); err != nil && ctx.Err() == nil {
		c.logger.Warn("reading the journal for settlement failed", zap.String("partner", c.Partner),
			zap.String("store", c.store.Where()), zap.Error(err))
	}
}

// logSettled writes what settling one exchange found.
func (c *Convert) logSettled(s converter.Settled) {
	c.metrics.settlements.WithLabelValues(c.Partner, s.Outcome, strconv.FormatBool(s.Done)).Inc()
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
