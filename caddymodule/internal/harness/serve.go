package harness

import (
	"net"
	"net/http"
	"testing"
	"time"
)

// ServeLocal serves h over HTTP on a free port of 127.0.0.1 until the
// test ends, and returns its address.
func ServeLocal(t testing.TB, h http.Handler) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}
