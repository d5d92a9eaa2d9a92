package osdmlegacy

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// recorder is the Sender of one OSDM call: it passes each message on and
// records its kind, outcome and duration.
type recorder struct {
	next Sender
	mu   sync.Mutex
	list []MessageRecord
}

// Send implements Sender.
func (r *recorder) Send(ctx context.Context, req legacy.Request) (legacy.Reply, error) {
	start := time.Now()
	var reply legacy.Reply
	var err error
	if r.next == nil {
		err = &SendError{Kind: ErrLegacyDown, Err: errors.New("no sender")}
	} else {
		reply, err = r.next.Send(ctx, req)
	}
	m := MessageRecord{Kind: req.Kind(), MessageID: req.MessageID(), Duration: time.Since(start)}
	switch {
	case err != nil:
		switch kindOf(err) {
		case ErrLegacySlow:
			m.Outcome = "slow"
		case ErrLegacyGarbage:
			m.Outcome = "garbage"
		default:
			m.Outcome = "down"
		}
	case reply == nil:
		m.Outcome = "garbage"
		err = &SendError{Kind: ErrLegacyGarbage, Err: errors.New("no reply")}
	default:
		m.Outcome = string(reply.Kind())
		if nr, ok := reply.(*legacy.NegativeReply); ok {
			m.Outcome += ":" + string(nr.Code)
		}
	}
	r.mu.Lock()
	r.list = append(r.list, m)
	r.mu.Unlock()
	return reply, err
}

func (r *recorder) records() []MessageRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]MessageRecord(nil), r.list...)
}
