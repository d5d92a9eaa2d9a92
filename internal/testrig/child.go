package testrig

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Waits bound waiting for a child to be ready, and for a stopped child to
// end.
const (
	childStartWait = 30 * time.Second
	childStopWait  = 10 * time.Second
)

// ChildSpec says which child to start: the test binary run again as its
// test Test (a test that does what Env asks and skips without it).
type ChildSpec struct {
	// Name names the child in failures and logs.
	Name string
	// Test is the test the child runs, e.g. "TestChildProcess".
	Test string
	// Env is added to this process's environment.
	Env []string
	// Ready is the line the child writes on its standard output once it is
	// ready; the lines before it are kept in Output.
	Ready string
	// OnLine, when set, is given each line the child writes on its standard
	// output after Ready, in order, from a goroutine of its own, instead of
	// Output.
	OnLine func(line string)
}

// Child is a running child process.
type Child struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    syncBuffer // standard output and error
	done   chan struct{}
	err    error // of Wait, once done is closed
	killed bool
}

// StartChild starts the child spec describes and waits until it is ready
// or ended. When the test ends the child is stopped (its standard input
// closed; killed if it does not end), and it must have ended cleanly
// unless the test killed it.
func StartChild(t testing.TB, spec ChildSpec) (*Child, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+spec.Test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), spec.Env...)
	c := &Child{name: spec.Name, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &c.out
	var err error
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		found := false
		for sc.Scan() {
			switch {
			case !found && sc.Text() == spec.Ready:
				found = true
				close(ready)
			case found && spec.OnLine != nil:
				spec.OnLine(sc.Text())
			default:
				c.out.WriteString(sc.Text() + "\n")
			}
		}
		c.err = cmd.Wait()
		close(c.done)
	}()
	select {
	case <-ready:
	case <-c.done:
		return nil, fmt.Errorf("child %s ended before it was ready: %v\n%s", spec.Name, c.err, c.Output())
	case <-time.After(childStartWait):
		c.Kill()
		return nil, fmt.Errorf("child %s not ready after %v:\n%s", spec.Name, childStartWait, c.Output())
	}
	t.Cleanup(func() {
		c.Stop()
		if c.err != nil && !c.killed {
			t.Errorf("child %s: %v\n%s", spec.Name, c.err, c.Output())
		} else if t.Failed() {
			out := c.Output()
			if len(out) > 6000 {
				out = out[len(out)-6000:]
			}
			t.Logf("child %s output (end):\n%s", spec.Name, out)
		}
	})
	return c, nil
}

// Kill ends the child with SIGKILL (no cleanup, no deferred write) and
// waits for it.
func (c *Child) Kill() {
	c.killed = true
	_ = c.cmd.Process.Kill()
	<-c.done
}

// Signal sends sig to the child without waiting for it to end; a SIGKILL
// counts as the test's own kill, as with Kill.
func (c *Child) Signal(sig os.Signal) error {
	if sig == os.Kill {
		c.killed = true
	}
	return c.cmd.Process.Signal(sig)
}

// Stop closes the child's standard input and waits for it to end; a
// child that does not end is killed.
func (c *Child) Stop() {
	_ = c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(childStopWait):
		c.Kill()
		c.err = fmt.Errorf("did not stop within %v; killed", childStopWait)
		c.killed = false
	}
}

// Done is closed once the child has ended.
func (c *Child) Done() <-chan struct{} { return c.done }

// Err is how the child ended (exec.Cmd.Wait's error), once Done is closed.
func (c *Child) Err() error { return c.err }

// State is the ended child's process state, once Done is closed.
func (c *Child) State() *os.ProcessState { return c.cmd.ProcessState }

// Output is what the child wrote so far (standard error, and standard
// output but for Ready and what OnLine was given).
func (c *Child) Output() string { return c.out.String() }

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) WriteString(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
