package testrig

import (
	"fmt"
	"net"
	"testing"
)

// TestFreePortOnceAndWithOffsets: a port is handed out once per process
// whichever range asks, and is not handed out while it, or its offset
// port, is taken.
func TestFreePortOnceAndWithOffsets(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p := FreePort(t, 40000, 40100)
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
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
