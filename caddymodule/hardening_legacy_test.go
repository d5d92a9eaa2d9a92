package caddymodule

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// legacyHardeningCaddy is a Caddy with osdm_legacy (timeout 2s) in front
// of a legacy sandbox, with extra subdirectives; it returns the client
// and the legacy system.
func legacyHardeningCaddy(t *testing.T, extra string) (*bkClient, *bkLegacy) {
	t.Helper()
	warmSpec(t)
	l := startBKLegacy(t)
	db := filepath.Join(t.TempDir(), "legacy.db")
	base := provCaddy(t, func(port int) string {
		return bkCaddyfile(port, l.addr, "store bolt "+db, extra)
	})
	return &bkClient{t: t, base: base}, l
}

// TestOSDMLegacySlowBody: a client that declares a body of 2023 bytes and
// sends one byte every 200 ms is answered 408 REQUEST_TIMEOUT when the
// route's timeout (2s) is up, on a raw socket, and the connection is
// closed; nothing reaches the legacy system.
func TestOSDMLegacySlowBody(t *testing.T) {
	c, l := legacyHardeningCaddy(t, "")
	conn, err := net.Dial("tcp", strings.TrimPrefix(c.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /osdm/offers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2023\r\n\r\n")
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer to the dribbled body after %s: %v", time.Since(start), err)
	}
	took := time.Since(start)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout || took > 8*time.Second {
		t.Fatalf("answered %d after %s: %s", resp.StatusCode, took, body)
	}
	osdmspec.ValidateSchema(t, osdmspec.V39, "Problem", body)
	var p osdm.Problem
	if err := json.Unmarshal(body, &p); err != nil || p.Code != "urn:uic:problem:REQUEST_TIMEOUT" || !strings.Contains(p.Detail, "2s") {
		t.Fatalf("problem %s: %v", body, err)
	}
	// The connection is closed: the rest of the body is never read.
	_ = conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after the 408 the connection gives %v, want it closed (EOF)", err)
	}
	if n := len(l.messages()); n != 0 {
		t.Errorf("the legacy system got %d messages", n)
	}
}
