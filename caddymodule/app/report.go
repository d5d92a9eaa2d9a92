package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/caddy-osdm/caddy-osdm/opstatus"
	"github.com/caddy-osdm/caddy-osdm/runner"
)

// running is the app of the configuration that started last and has not
// stopped: the one the admin API shows. (On a reload the new
// configuration starts before the old one stops.)
var running atomic.Pointer[App]

// Report implements appview.Provider.
func (a *App) Report(v any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reports = append(a.reports, v)
}

// sources returns the reports that are opstatus.Sources.
func (a *App) sources() []opstatus.Source {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []opstatus.Source
	for _, r := range a.reports {
		if s, ok := r.(opstatus.Source); ok {
			out = append(out, s)
		}
	}
	return out
}

// partners returns every partner the handlers describe, the token and
// the calls of one partner together, by name.
func (a *App) partners() []opstatus.Partner {
	a.mu.Lock()
	reports := slices.Clone(a.reports)
	a.mu.Unlock()
	byName := map[string]*opstatus.Partner{}
	for _, r := range reports {
		ps, ok := r.(opstatus.PartnerSource)
		if !ok {
			continue
		}
		p := ps.Partner()
		have := byName[p.Partner]
		if have == nil {
			have = &opstatus.Partner{Partner: p.Partner}
			byName[p.Partner] = have
		}
		if p.Token != nil {
			have.Token = p.Token
		}
		if p.Calls != nil {
			if have.Calls == nil {
				have.Calls = new(opstatus.Calls)
			}
			c := have.Calls
			c.InFlight += p.Calls.InFlight
			c.Total += p.Calls.Total
			if p.Calls.LastErrorAt.After(c.LastErrorAt) {
				c.LastError, c.LastErrorAt = p.Calls.LastError, p.Calls.LastErrorAt
			}
		}
	}
	out := make([]opstatus.Partner, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, *byName[name])
	}
	return out
}

// pending lists what settlement still has to do, oldest first.
func (a *App) pending(ctx context.Context) ([]opstatus.Pending, error) {
	var out []opstatus.Pending
	var errs []error
	for _, s := range a.sources() {
		p, err := s.Pending(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, p...)
	}
	now := time.Now()
	for i := range out {
		out[i] = out[i].WithAge(now)
	}
	slices.SortStableFunc(out, func(x, y opstatus.Pending) int {
		return cmp.Or(x.Since.Compare(y.Since), strings.Compare(x.Ref, y.Ref))
	})
	return out, errors.Join(errs...)
}

// find returns every record known by ref, in either direction.
func (a *App) find(ctx context.Context, ref string) ([]opstatus.Record, error) {
	var out []opstatus.Record
	var errs []error
	for _, s := range a.sources() {
		r, err := s.Find(ctx, ref)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, r...)
	}
	return out, errors.Join(errs...)
}

// Settled is what one settlement pass asked for by an operator did.
type Settled struct {
	// Ran are the jobs' passes, in order, with how long each took.
	Ran []SettledJob `json:"ran"`
	// PendingBefore and PendingAfter count the work listed before and
	// after the pass.
	PendingBefore int `json:"pending_before"`
	PendingAfter  int `json:"pending_after"`
	// Error says why the pass stopped early or a list could not be read.
	Error string `json:"error,omitempty"`
}

// SettledJob is one job's pass in Settled.
type SettledJob struct {
	Job     string  `json:"job"`
	Seconds float64 `json:"seconds"`
}

// settleNow runs one pass of the background work, bounded by ctx.
func (a *App) settleNow(ctx context.Context) (Settled, error) {
	var out Settled
	before, perr := a.pending(ctx)
	out.PendingBefore = len(before)
	ran, err := a.runner.RunNow(ctx)
	if errors.Is(err, runner.ErrNotRunning) {
		return out, err
	}
	for _, r := range ran {
		out.Ran = append(out.Ran, SettledJob{Job: r.Job, Seconds: r.Took.Round(time.Millisecond).Seconds()})
	}
	after, aerr := a.pending(ctx)
	out.PendingAfter = len(after)
	if err := errors.Join(err, perr, aerr); err != nil {
		out.Error = err.Error()
	}
	return out, nil
}

// StoreStatus is one store of the app, as an operator sees it.
type StoreStatus struct {
	// Name is the store's name in the app ("" for a handler's inline
	// store).
	Name string `json:"name,omitempty"`
	// Engine is the engine module (bolt, redis).
	Engine string `json:"engine"`
	// Where says where the database is, without credentials.
	Where string `json:"where"`
	// Open reports a store the app opened and handed to its handlers.
	Open bool `json:"open"`
	// Check is "ok" or why the database may not be used now (it does
	// not answer; it would lose bookings), from a check made now, read
	// only.
	Check string `json:"check"`
}

// storeStatus checks every store now, each bounded by its engine.
func (a *App) storeStatus(ctx context.Context) []StoreStatus {
	a.mu.Lock()
	stores := slices.SortedFunc(maps.Values(a.stores), func(x, y *appStore) int {
		return strings.Compare(x.describe(), y.describe())
	})
	a.mu.Unlock()
	out := make([]StoreStatus, 0, len(stores))
	for _, s := range stores {
		st := StoreStatus{Name: s.name, Engine: engineName(s.engine), Where: s.engine.Where(), Open: s.handle.Ready(), Check: "ok"}
		if err := a.checkNow(ctx, s); err != nil {
			st.Check = err.Error()
		}
		out = append(out, st)
	}
	return out
}

// checkNow runs s's engine check, read only, on the database the app
// opened (the running app's stores were opened before it was listed as
// running).
func (a *App) checkNow(ctx context.Context, s *appStore) error {
	db := s.db
	if db == nil {
		return errors.New("not opened: the app could not open it at start (its log says why)")
	}
	ctx, cancel := context.WithTimeout(ctx, s.engine.CheckTimeout())
	defer cancel()
	return s.engine.Check(ctx, db)
}

// engineName is the last label of e's module id (osdm.stores.redis ->
// redis).
func engineName(e Engine) string {
	id := string(e.CaddyModule().ID)
	return id[strings.LastIndexByte(id, '.')+1:]
}

// errNotRunning is the admin API's error while no configuration with the
// osdm app is running.
var errNotRunning = fmt.Errorf("no configuration with the osdm app is running")
