package runner

import (
	"context"
	"errors"
	"sync"
	"time"
)

// entry is a job as the runner holds it: its passes, timed or asked for
// with RunNow, never overlap.
type entry struct {
	Job
	mu sync.Mutex
}

// run does one pass of the job, after any pass under way.
func (e *entry) run(ctx context.Context) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Run(ctx)
}

// Ran is one pass RunNow made.
type Ran struct {
	// Job is the job's name.
	Job string
	// Took is how long the pass took.
	Took time.Duration
}

// ErrNotRunning is RunNow's error on a runner not started, or stopped.
var ErrNotRunning = errors.New("the background work is not running (not started yet, or stopped)")

// RunNow runs one pass of every job, one job after another, each after
// its pass under way if there is one, on ctx (which bounds them; Stop
// cancels it too). It reports the passes it made, and stops at ctx's end.
func (r *Runner) RunNow(ctx context.Context) ([]Ran, error) {
	r.mu.Lock()
	if r.ctx == nil || r.stopped {
		r.mu.Unlock()
		return nil, ErrNotRunning
	}
	jobs := append([]*entry(nil), r.jobs...)
	runCtx := r.ctx
	r.wg.Add(1)
	r.mu.Unlock()
	defer r.wg.Done()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(runCtx, cancel)
	defer stop()
	var ran []Ran
	for _, e := range jobs {
		if ctx.Err() != nil {
			return ran, ctx.Err()
		}
		start := time.Now()
		e.run(ctx)
		ran = append(ran, Ran{Job: e.Name, Took: time.Since(start)})
	}
	return ran, nil
}
