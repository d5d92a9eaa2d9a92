package osdmlegacy

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// core is what every part of the façade shares: the configuration, the
// store, the clock and the sender of background work.
type core struct {
	cfg   Config
	store store.Store
	now   func() time.Time
	// sender sends background work (Deps.Sender); nil when none was given.
	sender Sender
}

// json answers status with v as its JSON body.
func (k *core) json(c *call, status int, v any) *Answer {
	b, err := json.Marshal(v)
	if err != nil {
		return problemAnswer(asProblem(err))
	}
	h := http.Header{"Content-Type": {osdm.ContentTypeJSON}, "Cache-Control": {"no-store"}}
	return &Answer{Answer: osdm.Answer{Status: status, Header: h, Body: b}}
}

// noContent is a 204.
func (k *core) noContent(_ *call) *Answer {
	return &Answer{Answer: osdm.Answer{Status: http.StatusNoContent, Header: http.Header{"Cache-Control": {"no-store"}}}}
}
