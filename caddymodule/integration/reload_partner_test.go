package integration

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddyserver/caddy/v2"
)

// The partner of the reload test runs in a process of its own, this test
// binary started again with reloadPartnerEnv naming its Caddyfile: a reload
// restarts every server of a Caddy, and the test reloads the consumer's
// configuration only, as happens when the partner is another company's.

const reloadPartnerEnv = "CADDY_OSDM_RELOAD_PARTNER_CADDYFILE"

// TestReloadPartnerProcess is the partner process: it runs the Caddyfile
// named by reloadPartnerEnv until its standard input closes. Without that
// variable it does nothing.
func TestReloadPartnerProcess(t *testing.T) {
	path := os.Getenv(reloadPartnerEnv)
	if path == "" {
		t.Skip("runs only as the partner process of TestReloadKeyRotationUnderLoad")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	harness.LoadCaddyfile(t, string(src))
	fmt.Println("reload partner ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
}

// startReloadPartner runs caddyfile in a partner process and waits until
// it serves. The process ends with the test.
func startReloadPartner(t *testing.T, dir, caddyfile string) {
	t.Helper()
	path := dir + "/partner.Caddyfile"
	if err := os.WriteFile(path, []byte(caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestReloadPartnerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), reloadPartnerEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
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
	done := make(chan error, 1)
	t.Cleanup(func() {
		stdin.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("partner process: %v\n%s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("partner process did not stop; killed it\n%s", stderr.String())
		}
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		found := false
		var out strings.Builder
		for sc.Scan() {
			if !found && sc.Text() == "reload partner ready" {
				found = true
				ready <- true
			}
			out.WriteString(sc.Text() + "\n")
		}
		if !found {
			ready <- false
		}
		err := cmd.Wait()
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, out.String())
		}
		done <- err
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("partner process ended before serving:\n%s", stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("partner process not ready after 20s:\n%s", stderr.String())
	}
}
