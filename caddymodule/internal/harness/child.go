package harness

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// A child process is this test binary run again as its test
// TestChildProcess, which every package that starts children declares:
//
//	func TestChildProcess(t *testing.T) { harness.ChildProcess(t) }
//
// childEnv tells it what to run: "caddy <Caddyfile path>", "hold-bolt
// <bolt file path>" or "command <arguments of the caddy command, one a
// line>". It runs it until its standard input
// closes, or until it is killed.
const childEnv = "OSDM_TEST_CHILD"

// childReady is the line a child writes once it serves.
const childReady = "osdm test child ready"

// childWait bounds waiting for a child to serve, and for a stopped child
// to end.
const (
	childStartWait = 30 * time.Second
	childStopWait  = 10 * time.Second
)

// ChildProcess is the body of a package's TestChildProcess. Run by go test
// itself (no childEnv), it skips.
func ChildProcess(t *testing.T) {
	what := os.Getenv(childEnv)
	if what == "" {
		t.Skip("runs only as a child process the harness starts")
	}
	kind, path, _ := strings.Cut(what, " ")
	switch kind {
	case "caddy":
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		Load(t, string(src))
		fmt.Println(childReady)
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := caddy.Stop(); err != nil {
			t.Fatal(err)
		}
	case "hold-bolt":
		b, err := store.OpenBolt(path)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(childReady)
		_, _ = io.Copy(io.Discard, os.Stdin)
		b.Close()
	case "command":
		// The caddy command, its arguments one a line: it exits.
		os.Args = append([]string{"caddy"}, strings.Split(path, "\n")...)
		caddycmd.Main()
	default:
		t.Fatalf("%s=%q: unknown child", childEnv, what)
	}
}

// CaddyCommand runs the caddy command with args (caddy validate --config
// ...) in a child process with this process's environment (its data
// directory among it), and returns what it printed, how long it took and
// how it ended.
func CaddyCommand(t testing.TB, args ...string) (string, time.Duration, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=command "+strings.Join(args, "\n"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return string(out), time.Since(start), err
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

// StartCaddy runs caddyfile (written to dir/name.Caddyfile) in a child
// process and waits until it serves. When the test ends the child is
// stopped (its standard input closed; killed if it does not end), and it
// must end cleanly unless the test killed it.
func StartCaddy(t testing.TB, dir, name, caddyfile string) *Child {
	t.Helper()
	c, err := TryStartCaddy(t, dir, name, caddyfile)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TryStartCaddy is StartCaddy that returns an error, with the child's
// output, if the child ended before it served.
func TryStartCaddy(t testing.TB, dir, name, caddyfile string) (*Child, error) {
	t.Helper()
	path := filepath.Join(dir, name+".Caddyfile")
	if err := os.WriteFile(path, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	return startChild(t, name, "caddy "+path)
}

// HoldBoltFile has a child process open the bolt file at path (and so
// hold its lock) until the test ends.
func HoldBoltFile(t testing.TB, path string) {
	t.Helper()
	if _, err := startChild(t, "bolt holder", "hold-bolt "+path); err != nil {
		t.Fatal(err)
	}
}

// startChild starts the child that what names and waits until it is ready
// or ended.
func startChild(t testing.TB, name, what string) (*Child, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+what)
	c := &Child{name: name, cmd: cmd, done: make(chan struct{})}
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
			if !found && sc.Text() == childReady {
				found = true
				close(ready)
				continue
			}
			c.out.WriteString(sc.Text() + "\n")
		}
		c.err = cmd.Wait()
		close(c.done)
	}()
	select {
	case <-ready:
	case <-c.done:
		return nil, fmt.Errorf("child %s ended before it served: %v\n%s", name, c.err, c.Output())
	case <-time.After(childStartWait):
		c.Kill()
		return nil, fmt.Errorf("child %s not ready after %v:\n%s", name, childStartWait, c.Output())
	}
	t.Cleanup(func() {
		c.Stop()
		if c.err != nil && !c.killed {
			t.Errorf("child %s: %v\n%s", name, c.err, c.Output())
		} else if t.Failed() {
			out := c.Output()
			if len(out) > 6000 {
				out = out[len(out)-6000:]
			}
			t.Logf("child %s output (end):\n%s", name, out)
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

// Output is what the child wrote so far.
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

// IsChild says whether this process is a child the harness started (a
// TestMain should then not set up what the parent set up).
func IsChild() bool { return os.Getenv(childEnv) != "" }
