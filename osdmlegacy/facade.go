package osdmlegacy

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// Deps are what the façade works with besides its Config.
type Deps struct {
	// Store keeps offers, bookings, idempotency keys and intents. Required.
	Store store.Store
	// Timetable finds the trains of a search that names none; nil when no
	// `timetable` is configured (a search must then name its train).
	Timetable Timetable
	// Sender is the sender of background work (settling intents, releasing
	// expired holds), which has no OSDM call to send through; with none,
	// Settle sends nothing and says so.
	Sender Sender
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Facade serves OSDM calls by sending legacy messages: it routes each
// call to the part that serves it (offers, bookings, journeys, exchanges,
// refunds, passengers, documents) and holds what they share. It is safe
// for concurrent use.
type Facade struct {
	*core
	offers     *offers
	bookings   *bookings
	journeys   *journeys
	exchanges  *exchanges
	refunds    *refunds
	passengers *passengers
	documents  *documents
	settlement *settlement
	// router routes the calls to the parts (routes.go).
	router *osdm.Router[handler]
}

// New returns a façade for cfg (defaults filled in by Config.Normalize).
func New(cfg Config, deps Deps) (*Facade, error) {
	cfg, err := cfg.Normalize()
	if err != nil {
		return nil, err
	}
	if deps.Store == nil {
		return nil, errors.New("a store is required")
	}
	k := &core{cfg: cfg, store: deps.Store, now: deps.Now, sender: deps.Sender}
	if k.now == nil {
		k.now = time.Now
	}
	f := &Facade{
		core:       k,
		offers:     &offers{core: k, tt: deps.Timetable},
		bookings:   &bookings{core: k},
		journeys:   &journeys{core: k},
		exchanges:  &exchanges{core: k},
		refunds:    &refunds{core: k},
		passengers: &passengers{core: k},
		documents:  &documents{core: k, tickets: ticketpdf.NewCache(ticketCacheSize)},
		settlement: &settlement{core: k},
	}
	f.wire()
	f.router = osdm.MustRouter(f.routes(), osdm.RouterOptions{})
	return f, nil
}

// wire gives each part the parts it calls.
func (f *Facade) wire() {
	o, b, j, x, r, p, d, s := f.offers, f.bookings, f.journeys, f.exchanges, f.refunds, f.passengers, f.documents, f.settlement
	b.documents, b.journeys, b.offers, b.settlement = d, j, o, s
	j.bookings, j.documents, j.exchanges, j.offers, j.passengers, j.refunds, j.settlement = b, d, x, o, p, r, s
	x.bookings, x.journeys, x.offers, x.passengers, x.refunds, x.settlement = b, j, o, p, r, s
	r.bookings, r.journeys = b, j
	p.bookings, p.settlement = b, s
	d.bookings, d.exchanges, d.passengers = b, x, p
	s.bookings, s.exchanges, s.journeys, s.passengers = b, x, j, p
}

// Config returns the façade's configuration with its defaults.
func (f *Facade) Config() Config { return f.cfg }

// Settle finishes what a crash, a lost answer or a store failure left
// undone, from the store alone: for every intent (a legacy message
// recorded but not answered) whose lease is over the legacy system is asked
// with a SynchroRequest what became of it, and the answer recorded; only a
// message it never got is sent again, as the same message (redeliver); a
// booking the legacy system made whose
// hold is over is then released; and every PREBOOKED booking past its
// confirmationTimeLimit is released with a CancelRequest (the sweeper).
// The caller runs it on start and periodically; several instances may run
// it on one store at once (compare-and-set orders their writes, and the
// lease lets one of them ask). It sends through the background sender (Deps.Sender);
// with none it does nothing and says so.
func (f *Facade) Settle(ctx context.Context) (SettleReport, error) {
	return f.settlement.settle(ctx)
}

// ServeClient answers one OSDM call made by client (the access token's
// subject; anonymousClient when none): method and path (relative to the
// façade's base, as sent: URL.EscapedPath, e.g. "/offers"; the router
// decodes each segment after splitting), the request's header and body
// (at most Config.MaxBody bytes: the caller reads one byte more and passes
// it on, so an oversized body is answered 413 here); a query (after "?")
// is read where an operation takes one (embed). send carries this call's
// legacy messages. The call runs under Config.Timeout, detached from ctx's
// cancellation so a state change runs to a consistent end.
//
// A booking client makes is client's, and a booking of another client,
// with everything that hangs off it (passengers, fulfilment, refund and
// exchange offers, exchange operations), is answered as an unknown id,
// nothing sent; its Idempotency-Keys are client's own; an offer it
// searched is bookable by client alone.
func (f *Facade) ServeClient(ctx context.Context, client string, send Sender, method, path string, header http.Header, body []byte) *Answer {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), f.cfg.Timeout)
	defer cancel()
	ctx = withClient(ctx, client)
	rec := &recorder{next: send}
	var query url.Values
	if p, raw, ok := strings.Cut(path, "?"); ok {
		path = p
		query, _ = url.ParseQuery(raw)
	}
	c := &call{
		method: method, path: path, query: query, header: header, body: body, client: client,
		now: f.now(), send: rec, answer: &Answer{},
	}
	m := f.router.Match(method, path)
	var a *Answer
	if m.Route == nil {
		c.op = "unknown"
		a = problemAnswer(unserved(m))
	} else {
		c.op = m.Route.Op.String()
		c.params = m.Params
		if p := f.checkBody(c); p != nil {
			a = problemAnswer(p)
		} else {
			a = m.Route.Handle(ctx, c)
		}
	}
	a = f.documents.renderTickets(c, a)
	a.Operation = c.op
	a.Messages = rec.records()
	a.FanOut = c.answer.FanOut
	a.StoreErrors += c.answer.StoreErrors
	if a.BookingID == "" {
		a.BookingID = c.answer.BookingID
	}
	if a.Status >= 200 && a.Status < 300 {
		a.Outcome = "ok"
	} else if a.Problem != nil {
		a.Outcome = trimProblemPrefix(a.Problem.Code)
	}
	return a
}

// checkBody applies max_body and the JSON content type to a call that has
// a body.
func (f *Facade) checkBody(c *call) *osdm.ProblemError {
	if int64(len(c.body)) > f.cfg.MaxBody {
		return osdm.NewProblem(http.StatusRequestEntityTooLarge, osdm.CodeRequestTooLarge,
			"the body is longer than "+strconv.FormatInt(f.cfg.MaxBody, 10)+" bytes")
	}
	if len(c.body) == 0 {
		return nil
	}
	ct := c.header.Get("Content-Type")
	if ct == "application/json" || ct == "application/json; charset=utf-8" {
		return nil // the usual forms, without parsing
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return osdm.NewProblem(http.StatusUnsupportedMediaType, osdm.CodeUnsupportedMediaType,
			"the body must be application/json, not "+strconv.Quote(shorten(ct, 64)))
	}
	// A charset's name is case-insensitive (RFC 2046 section 4.1.2).
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return osdm.NewProblem(http.StatusUnsupportedMediaType, osdm.CodeUnsupportedMediaType, "the body must be UTF-8, not charset "+strconv.Quote(shorten(cs, 32)))
	}
	return nil
}
