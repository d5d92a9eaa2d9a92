package harness

import (
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
)

// FreePort is a local port nothing listens on (it was free a moment ago).
// A port from the kernel's ephemeral range (":0") is free when FreePort
// sees it, but until Caddy binds it any outgoing connection or listener of
// a test running in parallel (other packages run in other processes) may
// take it: "address already in use". So FreePort hands out ports below
// Linux's default ephemeral range (32768-60999), each once per process.
var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// FreePort returns a port on 127.0.0.1 that nothing listens on, outside
// the ephemeral range, not handed out before by this process.
func FreePort(t testing.TB) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := 20000 + rand.IntN(12000)
		if portsGiven[p] {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		l.Close()
		portsGiven[p] = true
		return p
	}
	t.Fatal("no free port in 20000-31999")
	return 0
}
