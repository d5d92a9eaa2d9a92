package testrig

import (
	"fmt"
	"net"
	"testing"
)

// TestFreePortOnceAndWithOffsets: a port is handed out once per process
// whichever range asks, from the range asked for, and can be listened
// on; it is not handed out while it, or its offset port, is taken.
func TestFreePortOnceAndWithOffsets(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p := FreePort(t, 40000, 40100)
		if seen[p] || p < 40000 || p >= 40100 {
			t.Fatalf("port %d: handed out before %v, or outside 40000-40099", p, seen[p])
		}
		seen[p] = true
	}
	p := FreePort(t, 40000, 40100)
	if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err != nil {
		t.Fatalf("port %d: %v", p, err)
	} else {
		l.Close()
	}
	// A port whose offset port is taken is not free.
	if !free(40200, nil) {
		t.Skip("port 40200 is taken by something else")
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 40300))
	if err != nil {
		t.Skipf("port 40300 is taken by something else: %v", err)
	}
	defer l.Close()
	if free(40200, []int{100}) {
		t.Fatal("port 40200 seen as free with its offset port 40300 taken")
	}
}
