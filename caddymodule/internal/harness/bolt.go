package harness

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
)

// storeHolderEnv names the bolt file StoreHolderProcess holds open.
const storeHolderEnv = "OSDM_CADDYMODULE_HOLD_BOLT"

// StoreHolderProcess is the child process that holds a bolt file open
// (and so locked) for the tests of a locked file: a test binary that
// calls HoldBoltFile runs it as its TestStoreHolderProcess.
func StoreHolderProcess(t testing.TB) {
	path := os.Getenv(storeHolderEnv)
	if path == "" {
		t.Skip("runs only as the child process of the locked-file tests")
	}
	b, err := store.OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("holding\n")
	_, _ = io.Copy(io.Discard, os.Stdin)
	b.Close()
}

// HoldBoltFile has another process open the bolt file at path until the
// test ends.
func HoldBoltFile(t testing.TB, path string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreHolderProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), storeHolderEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("holder process: %v", err)
		}
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "holding\n" {
		t.Fatalf("holder process said %q, %v", line, err)
	}
}

// BoltClosed says whether no pool holds path (pooled gives its
// references) and its lock is free: this process can open the file at
// once.
func BoltClosed(t testing.TB, path string, pooled func(path string) (int, bool)) bool {
	t.Helper()
	if n, ok := pooled(path); ok {
		t.Logf("%s still pooled (%d references)", path, n)
		return false
	}
	b, err := store.OpenBolt(path, store.WithTimeout(100*time.Millisecond))
	if err != nil {
		t.Logf("reopening %s: %v", path, err)
		return false
	}
	b.Close()
	return true
}
