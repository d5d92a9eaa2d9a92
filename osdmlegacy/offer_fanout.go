package osdmlegacy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// probe is one legacy message of an offer search: one candidate train,
// travel class and service code, and what came back.
type probe struct {
	cand    *candidate
	class   int
	service int
	req     legacy.Request
	reply   legacy.Reply
	err     error
}

// searchMessageID returns the messageId of the n-th message of a search:
// "S-<24 hex>-<n>", within the legacy rule (1..64 of [A-Za-z0-9._:-]). A
// search changes nothing, so its ids need only be unique.
func searchMessageID(search string, n int) string {
	return "S-" + search + "-" + strconv.Itoa(n)
}

// newSearchID returns 12 random bytes in hex.
func newSearchID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("osdmlegacy: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// plan builds one probe per candidate, class and service code asked, in
// that order, with its legacy request: an AvailabilityRequest, or with
// `search information_only` a BookingRequest with informationOnly=true.
func (o *offers) plan(cands []candidate, classes, services []int, tariffs []legacy.Tariff, now time.Time) []*probe {
	search := newSearchID()
	probes := make([]*probe, 0, len(cands)*len(classes)*len(services))
	for i := range cands {
		c := &cands[i]
		loc := stationLocation(o.tt, c.run.Origin, o.cfg.Location)
		journey := legacy.Journey{
			TrainNumber: c.run.Train, DepartureDate: c.run.ServiceDate, DepartureTime: c.clock(loc),
			From: c.run.Origin, To: c.run.Destination, Carrier: c.run.Carrier,
		}
		for _, class := range classes {
			for _, service := range services {
				h := legacy.Header{MessageID: searchMessageID(search, len(probes)+1), SentAt: now}
				places := legacy.PlaceRequest{TravelClass: class, ServiceCode: service, Tariffs: tariffs}
				var req legacy.Request
				if o.cfg.Search == SearchInformationOnly {
					req = &legacy.BookingRequest{Header: h, InformationOnly: true, Journey: journey, Places: places}
				} else {
					req = &legacy.AvailabilityRequest{Header: h, Journey: journey, Places: places}
				}
				probes = append(probes, &probe{cand: c, class: class, service: service, req: req})
			}
		}
	}
	return probes
}

// fanOut sends every probe's message, at most Config.Concurrency at once,
// and waits for all. A message not yet sent when ctx ends fails as slow.
func (o *offers) fanOut(ctx context.Context, send Sender, probes []*probe) {
	if len(probes) == 1 { // one train, one class: no goroutine to hand over to
		p := probes[0]
		if err := ctx.Err(); err != nil {
			p.err = &SendError{Kind: ErrLegacySlow, Err: err}
			return
		}
		p.send(ctx, send)
		return
	}
	sem := make(chan struct{}, o.cfg.Concurrency)
	var wg sync.WaitGroup
	for _, p := range probes {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			p.err = &SendError{Kind: ErrLegacySlow, Err: ctx.Err()}
			continue
		}
		wg.Add(1)
		go func(p *probe) {
			defer func() { <-sem; wg.Done() }()
			p.send(ctx, send)
		}(p)
	}
	wg.Wait()
}

// send sends the probe's message and keeps the reply.
func (p *probe) send(ctx context.Context, send Sender) {
	p.reply, p.err = send.Send(ctx, p.req)
	if p.err == nil {
		p.err = checkCorrelation(p.req, p.reply)
	}
}

// checkCorrelation refuses a reply that answers another message: a legacy
// system (or a proxy cache) mixing up answers must not become an offer.
func checkCorrelation(req legacy.Request, reply legacy.Reply) error {
	if reply == nil {
		return &SendError{Kind: ErrLegacyGarbage, Err: errors.New("no reply")}
	}
	if id := reply.ReplyHeader().CorrelationID; id != "" && id != req.MessageID() {
		return &SendError{Kind: ErrLegacyGarbage, Err: errors.New("the reply answers messageId " + shorten(id, 64) + ", not " + req.MessageID())}
	}
	return nil
}
