package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"syscall"
	"testing"
)

// TestDroppedUnanswered: the ways a server ends a connection before any
// answer count, as the HTTP client wraps them; a timeout and other
// failures do not.
func TestDroppedUnanswered(t *testing.T) {
	post := func(err error) error { return &url.Error{Op: "Post", URL: "http://127.0.0.1:1/x", Err: err} }
	for _, tc := range []struct {
		err  error
		kind string
		ok   bool
	}{
		{post(io.EOF), "EOF", true},
		{post(fmt.Errorf("read: %w", syscall.ECONNRESET)), "ECONNRESET", true},
		{post(errors.New("http: server closed idle connection")), "server closed idle", true},
		{post(os.ErrDeadlineExceeded), "", false},
		{post(context.DeadlineExceeded), "", false},
		{post(errors.New("malformed HTTP response")), "", false},
		{nil, "", false},
	} {
		if kind, ok := DroppedUnanswered(tc.err); kind != tc.kind || ok != tc.ok {
			t.Errorf("%v: %q %v, want %q %v", tc.err, kind, ok, tc.kind, tc.ok)
		}
	}
}
