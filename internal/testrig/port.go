package testrig

import (
	"fmt"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
)

// A port from the kernel's ephemeral range (":0") is free when it is seen,
// but until the server under test binds it any outgoing connection or
// listener of a test running in parallel (other packages run in other
// processes) may take it: "address already in use". So ports are handed
// out from fixed ranges below Linux's default ephemeral range
// (32768-60999), each once per test binary, whichever helper asks.
var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// FreePort returns a port of 127.0.0.1 in [lo, hi) that nothing listens
// on now and that was not handed out before in this process; each of
// port+offset for offsets (a Redis Cluster node's bus port) must be free
// too. The test fails when none is found.
func FreePort(t testing.TB, lo, hi int, offsets ...int) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := lo + rand.IntN(hi-lo)
		if portsGiven[p] || !free(p, offsets) {
			continue
		}
		portsGiven[p] = true
		return p
	}
	t.Fatalf("no free port in %d-%d", lo, hi-1)
	return 0
}

// free says whether p and p+offset, for each offset, can be listened on.
func free(p int, offsets []int) bool {
	ports := append([]int{p}, offsets...)
	for i := 1; i < len(ports); i++ {
		ports[i] += p
	}
	var open []net.Listener
	defer func() {
		for _, l := range open {
			l.Close()
		}
	}()
	for _, q := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", q))
		if err != nil {
			return false
		}
		open = append(open, l)
	}
	return true
}
