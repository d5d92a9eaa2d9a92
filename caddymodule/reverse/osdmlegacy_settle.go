package reverse

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

// maxSettleInterval caps the default settle interval.
const maxSettleInterval = time.Minute

// startSettling runs the façade's Settle (intents left unanswered by a
// crash or a lost answer; PREBOOKED bookings past their hold) every
// settle_interval until Cleanup. It needs a route to send through, which
// Caddy gives only while serving: until the first OSDM call it waits.
// Several instances on one Redis may run it at once (the façade orders
// their writes).
func (m *OSDMLegacy) startSettling(cfg osdmlegacy.Config) {
	every := time.Duration(m.SettleInterval)
	if every == 0 {
		every = min(cfg.Hold/4, maxSettleInterval)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.stop = cancel
	m.stopped = make(chan struct{})
	go func() {
		defer close(m.stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if !m.bg.ready() {
				continue
			}
			runCtx, cancelRun := context.WithTimeout(ctx, max(cfg.Timeout, every))
			rep, err := m.facade.Settle(runCtx)
			cancelRun()
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
		}
	}()
}
