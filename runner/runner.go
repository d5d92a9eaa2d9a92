// Package runner runs the background work of a configuration: settling
// the exchanges a dead process left without an outcome (both directions),
// releasing expired holds, anything else periodic. One Runner holds every
// job of a configuration; it starts them together and stops them
// together, and no job runs before Start or after Stop.
package runner

import (
	"context"
	"sync"
	"time"
)

// DefaultInterval is how often a job runs when neither the runner nor the
// job says otherwise.
const DefaultInterval = 30 * time.Second

// Job is one piece of periodic background work.
type Job struct {
	// Name says what the job does, for logs ("osdm_convert alpine:
	// settlement").
	Name string
	// Every is how often the job runs; 0 takes the runner's interval.
	Every time.Duration
	// Run does one pass. Its context is cancelled by Stop; a pass
	// bounds its own calls. Passes of one job never overlap.
	Run func(ctx context.Context)
}

// Runner runs jobs: each once at Start, then every interval, until Stop.
type Runner struct {
	every time.Duration

	mu      sync.Mutex
	jobs    []*entry
	ctx     context.Context // set by Start
	cancel  context.CancelFunc
	stopped bool
	wg      sync.WaitGroup
}

// New returns a runner whose jobs run every every (DefaultInterval if 0)
// unless they say otherwise.
func New(every time.Duration) *Runner {
	if every <= 0 {
		every = DefaultInterval
	}
	return &Runner{every: every}
}

// Interval is how often a job without an interval of its own runs.
func (r *Runner) Interval() time.Duration { return r.every }

// Add adds a job: it starts with Start, or at once if the runner has
// started; on a stopped runner it never runs.
func (r *Runner) Add(j Job) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &entry{Job: j}
	r.jobs = append(r.jobs, e)
	if r.ctx != nil && !r.stopped {
		r.launch(e)
	}
}

// Start runs every job added so far, each at once and then periodically.
// A second Start, or a Start after Stop, does nothing.
func (r *Runner) Start() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx != nil || r.stopped {
		return
	}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	for _, e := range r.jobs {
		r.launch(e)
	}
}

// Stop cancels the passes under way and waits for them to return; no job
// runs after. It may be called without Start, and more than once.
func (r *Runner) Stop() {
	r.mu.Lock()
	r.stopped = true
	cancel := r.cancel
	r.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	r.wg.Wait()
}

// launch starts e's loop; r.mu is held.
func (r *Runner) launch(e *entry) {
	every := e.Every
	if every <= 0 {
		every = r.every
	}
	ctx := r.ctx
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if ctx.Err() != nil {
				return // both were ready: Stop wins
			}
			e.run(ctx)
			t.Reset(every)
		}
	}()
}
