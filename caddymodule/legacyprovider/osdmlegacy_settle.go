package legacyprovider

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
	"github.com/caddy-osdm/caddy-osdm/runner"
)

// settleJob is the façade's Settle (intents left unanswered by a crash or
// a lost answer; PREBOOKED bookings past their hold) as a job of the osdm
// app's runner: it runs from the app's start, every settle_interval (the
// handler's, else the app's), with no request needed: its legacy messages
// go through the route after this handler, which the app gives. Several
// instances on one Redis may run it at once (the façade orders their
// writes).
func (m *OSDMLegacy) settleJob(cfg osdmlegacy.Config) runner.Job {
	return runner.Job{
		Name:  "osdm_legacy " + m.Partner + ": settlement and hold expiry",
		Every: time.Duration(m.SettleInterval),
		Run: func(ctx context.Context) {
			runCtx, cancel := context.WithTimeout(ctx, max(cfg.Timeout, time.Duration(m.SettleInterval)))
			rep, err := m.facade.Settle(runCtx)
			cancel()
			m.metrics.observeSettle(m.Partner, rep)
			if err != nil || rep.Settled+rep.Released+rep.Unresolved > 0 {
				fields := []zap.Field{zap.String("partner", m.Partner), zap.Int("settled", rep.Settled),
					zap.Int("released", rep.Released), zap.Int("unresolved", rep.Unresolved), zap.Int("errors", rep.Errors)}
				if err != nil {
					m.logger.Warn("settlement", append(fields, zap.Error(err))...)
				} else {
					m.logger.Info("settlement", fields...)
				}
			}
		},
	}
}

// appRoutePoster sends the background work's legacy messages through the
// route after the handler, as the osdm app finds it in the http app's
// servers: one prepared request per message, as a client's OSDM call
// would be.
type appRoutePoster struct {
	app     appview.Provider
	m       *OSDMLegacy
	path    string
	observe func(status int, d time.Duration)
}

// Post implements osdmlegacy.Poster.
func (p *appRoutePoster) Post(ctx context.Context, contentType string, body []byte) (int, string, []byte, error) {
	route, err := p.app.RouteAfter(p.m)
	if err != nil {
		return 0, "", nil, &osdmlegacy.SendError{Kind: osdmlegacy.ErrLegacyDown, Err: err}
	}
	req, err := route.NewRequest(ctx, "POST", p.path)
	if err != nil {
		return 0, "", nil, &osdmlegacy.SendError{Kind: osdmlegacy.ErrLegacyDown, Err: err}
	}
	return newLegacyPoster(req, route.Next, p.path, p.observe).Post(ctx, contentType, body)
}
