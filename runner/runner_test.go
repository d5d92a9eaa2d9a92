package runner_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/runner"
)

// Nothing runs before Start; every job runs at Start, without waiting
// for its interval.
func TestStartRunsEveryJobAtOnce(t *testing.T) {
	r := runner.New(time.Hour)
	var before atomic.Bool
	ran := make(chan string, 2)
	r.Add(runner.Job{Name: "a", Run: func(context.Context) { ran <- "a" }})
	r.Add(runner.Job{Name: "b", Every: time.Hour, Run: func(context.Context) { ran <- "b" }})
	if len(ran) != 0 || before.Load() {
		t.Fatal("a job ran before Start")
	}
	r.Start()
	defer r.Stop()
	got := map[string]bool{<-ran: true, <-ran: true}
	if !got["a"] || !got["b"] {
		t.Fatalf("ran %v, want a and b", got)
	}
}

// Stop cancels a pass under way and returns only once it has returned;
// no pass starts after.
func TestStopWaitsForPass(t *testing.T) {
	r := runner.New(time.Nanosecond)
	inPass := make(chan struct{})
	var passes, after atomic.Int32
	var stopped atomic.Bool
	r.Add(runner.Job{Name: "slow", Run: func(ctx context.Context) {
		if stopped.Load() {
			after.Add(1)
		}
		if passes.Add(1) == 3 {
			close(inPass)
			<-ctx.Done()
		}
	}})
	r.Start()
	<-inPass
	r.Stop()
	stopped.Store(true)
	n := passes.Load()
	r.Stop() // a second Stop is harmless
	if passes.Load() != n || after.Load() != 0 {
		t.Fatalf("a pass ran after Stop (%d passes, %d after)", passes.Load(), after.Load())
	}
	if n != 3 {
		t.Fatalf("%d passes, want 3 (the third was waiting when Stop came)", n)
	}
}

// A job added after Start starts at once; one added after Stop, and a
// runner stopped before it started, never run.
func TestAddAfterStartAndStop(t *testing.T) {
	r := runner.New(time.Hour)
	r.Start()
	ran := make(chan struct{}, 1)
	r.Add(runner.Job{Name: "late", Run: func(context.Context) { ran <- struct{}{} }})
	<-ran
	r.Stop()
	var never atomic.Bool
	r.Add(runner.Job{Name: "after stop", Run: func(context.Context) { never.Store(true) }})
	r.Start()
	r.Stop()

	r2 := runner.New(0)
	if r2.Interval() != runner.DefaultInterval {
		t.Fatalf("interval %v, want the default %v", r2.Interval(), runner.DefaultInterval)
	}
	r2.Add(runner.Job{Name: "never", Run: func(context.Context) { never.Store(true) }})
	r2.Stop()
	r2.Start()
	r2.Stop()
	if never.Load() {
		t.Fatal("a job ran on a stopped runner")
	}
}

// RunNow runs a pass of every job at once, never beside a timed pass of
// the same job, and refuses on a runner that is not running.
func TestRunNow(t *testing.T) {
	r := runner.New(time.Hour)
	if _, err := r.RunNow(context.Background()); !errors.Is(err, runner.ErrNotRunning) {
		t.Fatalf("RunNow before Start = %v, want ErrNotRunning", err)
	}
	var passes, running, overlapped atomic.Int64
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	r.Add(runner.Job{Name: "settle", Run: func(context.Context) {
		if running.Add(1) > 1 {
			overlapped.Add(1)
		}
		defer running.Add(-1)
		if passes.Add(1) == 1 {
			started <- struct{}{}
			<-release // the timed first pass is still under way when RunNow comes
		}
	}})
	r.Start()
	defer r.Stop()
	<-started
	done := make(chan []runner.Ran, 1)
	go func() {
		ran, err := r.RunNow(context.Background())
		if err != nil {
			t.Error(err)
		}
		done <- ran
	}()
	close(release)
	ran := <-done
	if len(ran) != 1 || ran[0].Job != "settle" || passes.Load() != 2 || overlapped.Load() != 0 {
		t.Fatalf("RunNow ran %+v; %d passes, %d overlapping", ran, passes.Load(), overlapped.Load())
	}
	r.Stop()
	if _, err := r.RunNow(context.Background()); !errors.Is(err, runner.ErrNotRunning) {
		t.Fatalf("RunNow after Stop = %v, want ErrNotRunning", err)
	}
}
