package harness

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"
)

// serverClosedIdle is the text of net/http's unexported
// errServerClosedIdle: the server closed an idle keep-alive connection
// (its FIN in flight) as the client wrote a request on it, which the
// transport does not resend when the request is not idempotent (a POST).
const serverClosedIdle = "http: server closed idle connection"

// DroppedUnanswered reports whether err, of a request to a Caddy that
// reloads, restarts or stops, is a connection the server ended before
// any byte of an answer: what a server that never handled the request
// does (refused, reset, broken, or closed: EOF); kind names which. A
// timeout is not: the server may still be working on the request.
func DroppedUnanswered(err error) (kind string, ok bool) {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "", false
	case errors.Is(err, io.EOF):
		return "EOF", true
	case errors.Is(err, syscall.ECONNRESET):
		return "ECONNRESET", true
	case errors.Is(err, syscall.EPIPE):
		return "EPIPE", true
	case errors.Is(err, syscall.ECONNREFUSED):
		return "ECONNREFUSED", true
	case err != nil && strings.Contains(err.Error(), serverClosedIdle):
		return "server closed idle", true
	}
	return "", false
}
