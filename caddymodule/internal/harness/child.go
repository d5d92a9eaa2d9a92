package harness

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
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
type Child = testrig.Child

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
	return testrig.StartChild(t, testrig.ChildSpec{
		Name:  name,
		Test:  "TestChildProcess",
		Env:   []string{childEnv + "=" + what},
		Ready: childReady,
	})
}

// IsChild says whether this process is a child the harness started (a
// TestMain should then not set up what the parent set up).
func IsChild() bool { return os.Getenv(childEnv) != "" }
