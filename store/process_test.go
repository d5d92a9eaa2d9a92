package store_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// roleEnv selects what TestHelperProcess does in a child process.
const roleEnv = "OSDM_STORE_HELPER_ROLE"

// TestHelperProcess is not a test: it is the child process of the tests
// below, run with roleEnv set.
//   - hold <file>: open the bolt file, print "ready", keep it open until
//     stdin closes.
//   - write <file>: write keys w/0, w/1, ... (alternating Put,
//     PutIfAbsent and CompareAndSet), printing "ack <i>" after each write
//     returns, until killed.
//   - write8 <file>: the same from 8 goroutines at once (so the writes
//     share commits), goroutine g writing keys w/g, w/g+8, w/g+16, ...
//     and printing "ack <key number>" after each write returns.
func TestHelperProcess(t *testing.T) {
	role := os.Getenv(roleEnv)
	if role == "" {
		t.Skip("helper process for the SIGKILL and locked-file tests")
	}
	path := os.Getenv("OSDM_STORE_HELPER_FILE")
	s, err := store.OpenBolt(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx := context.Background()
	switch role {
	case "hold":
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		s.Close()
		os.Exit(0)
	case "write":
		fmt.Println("ready")
		writeKeys(ctx, s, 0, 1, &sync.Mutex{})
	case "write8":
		fmt.Println("ready")
		var out sync.Mutex
		for g := range 8 {
			go writeKeys(ctx, s, g, 8, &out)
		}
		select {}
	}
	os.Exit(4)
}

// writeKeys writes keys w/first, w/first+step, ... until the process is
// killed, printing "ack <i>" (under out) after each write returns.
func writeKeys(ctx context.Context, s store.Store, first, step int, out *sync.Mutex) {
	for i := first; ; i += step {
		key := "w/" + strconv.Itoa(i)
		val := []byte(writeValue(i))
		var err error
		switch i % 3 {
		case 0:
			err = s.Put(ctx, key, val, 0)
		case 1:
			var ok bool
			ok, err = s.PutIfAbsent(ctx, key, val, 0)
			if err == nil && !ok {
				err = fmt.Errorf("PutIfAbsent of a new key refused")
			}
		case 2:
			if err = s.Put(ctx, key, []byte("draft"), 0); err == nil {
				var ok bool
				ok, err = s.CompareAndSet(ctx, key, []byte("draft"), val, 0)
				if err == nil && !ok {
					err = fmt.Errorf("CompareAndSet refused")
				}
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		// Unbuffered: the parent reads the ack only once the write
		// has returned.
		out.Lock()
		fmt.Fprintf(os.Stdout, "ack %d\n", i)
		out.Unlock()
	}
}

func writeValue(i int) string {
	return fmt.Sprintf("value %d %s", i, strings.Repeat("x", i%512))
}

// startHelper starts TestHelperProcess in role on the bolt file at path
// and waits for its "ready"; the lines it writes after are given to onLine
// (nil: kept in its output).
func startHelper(t *testing.T, role, path string, onLine func(string)) *testrig.Child {
	t.Helper()
	c, err := testrig.StartChild(t, testrig.ChildSpec{
		Name:   role + " " + filepath.Base(path),
		Test:   "TestHelperProcess",
		Env:    []string{roleEnv + "=" + role, "OSDM_STORE_HELPER_FILE=" + path},
		Ready:  "ready",
		OnLine: onLine,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startHolder starts a child process that holds the bolt file at path
// open (and locked); the returned function ends it.
func startHolder(t *testing.T, path string) func() {
	t.Helper()
	c := startHelper(t, "hold", path, nil)
	return func() {
		c.Stop()
		if err := c.Err(); err != nil {
			t.Errorf("holder process: %v\n%s", err, c.Output())
		}
	}
}

// TestBoltSIGKILLKeepsAcknowledgedWrites kills a child process with
// SIGKILL in the middle of a stream of writes; the file it leaves opens,
// and every write the child acknowledged is there with its value. The
// writes come from one goroutine (each commit alone) and from 8 at once
// (commits shared by several writes).
func TestBoltSIGKILLKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	for _, role := range []string{"write", "write8"} {
		t.Run(role, func(t *testing.T) { sigkillWriter(t, role) })
	}
}

func sigkillWriter(t *testing.T, role string) {
	path := filepath.Join(t.TempDir(), "killed.db")
	for round := range 3 {
		lines := make(chan string)
		stop := make(chan struct{})
		c := startHelper(t, role, path, func(line string) {
			select {
			case lines <- line:
			case <-stop:
			}
		})
		t.Cleanup(func() { close(stop) })
		// Kill after a number of acks that differs per round, so the
		// kill lands at different points of a write.
		killAt := 150 + 37*round
		acked := map[int]bool{}
		last := -1
		killed := false
		for ended := false; !ended; {
			select {
			case line := <-lines:
				var i int
				if _, err := fmt.Sscanf(line, "ack %d", &i); err != nil || acked[i] || (role == "write" && i != last+1) {
					t.Fatalf("child said %q after %d acks", line, len(acked))
				}
				acked[i], last = true, i
				if !killed && len(acked) > killAt {
					if err := c.Signal(syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					killed = true
				}
			case <-c.Done():
				ended = true
			}
		}
		ws, ok := c.State().Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("child ended with %v, want killed by SIGKILL\n%s", c.Err(), c.Output())
		}
		s, err := store.OpenBolt(path, store.WithTimeout(time.Second))
		if err != nil {
			t.Fatalf("round %d: the killed process's file does not open: %v", round, err)
		}
		ctx := context.Background()
		for i := range acked {
			got, err := s.Get(ctx, "w/"+strconv.Itoa(i))
			if err != nil || string(got) != writeValue(i) {
				s.Close()
				t.Fatalf("round %d: acknowledged write %d (of %d): %.20q, %v", round, i, len(acked), got, err)
			}
		}
		// Clear the keys so the next pass's PutIfAbsent starts fresh.
		var keys []string
		s.Scan(ctx, "w/", func(k string, _ []byte) error { keys = append(keys, k); return nil })
		for _, k := range keys {
			if err := s.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: killed after %d acknowledged writes (%d keys seen), all present", round, len(acked), len(keys))
	}
}
