package tokenauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// LoginError is a failed login at a partner's login service: a transport
// failure (Err set, Status 0), an RFC 6749 section 5.2 error answer (Code
// set) or an unusable answer. Callers detect it with errors.As, e.g. to
// answer a legacy request with AUTHENTICATION_FAILED. It never holds a token
// or an assertion.
type LoginError struct {
	// Partner names the partner configuration whose login failed.
	Partner string
	// Status is the HTTP status of the login service's answer, 0 if none.
	Status int
	// Code is the RFC 6749 error code (e.g. invalid_grant), if any.
	Code string
	// Description is the login service's error_description, or what was
	// wrong with its answer.
	Description string
	// Err is the underlying transport or decoding error, if any.
	Err error
}

// Error implements error.
func (e *LoginError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "login at partner %q failed", e.Partner)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Code != "" {
		b.WriteString(" " + e.Code)
	}
	if e.Description != "" {
		b.WriteString(": " + e.Description)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the transport or decoding error.
func (e *LoginError) Unwrap() error { return e.Err }

// Retryable reports a failure of the login service or of the way to it,
// after which the same login may well succeed: no answer (refused, reset,
// timed out), an answer that broke off or could not be used, a 5xx, 408
// or 429, or the RFC 6749 code temporarily_unavailable or server_error.
// It is false for a refusal, any other 4xx (invalid_client, invalid_grant:
// our identity token, key or registration is wrong), for a TLS handshake
// either side refused (a CA or client certificate to configure), and for
// a failure before the request went out (signing the identity token).
func (e *LoginError) Retryable() bool {
	switch {
	case e.Code == ErrCodeTemporarilyUnavailable || e.Code == ErrCodeServerError:
		return true
	case e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests:
		return true
	case e.Status >= 400:
		return e.Status >= 500
	case e.Status != 0:
		return true
	}
	var ue *url.Error
	return errors.As(e.Err, &ue) && tlsFailure(e.Err) == ""
}

// Timeout reports a login that got no answer in time.
func (e *LoginError) Timeout() bool {
	var ne net.Error
	return errors.Is(e.Err, context.DeadlineExceeded) || errors.As(e.Err, &ne) && ne.Timeout()
}

// maxDescription bounds how much of a partner's error text reaches our logs.
const maxDescription = 300

// sanitizeDescription makes a partner's error text safe for logs: no
// JWT-shaped strings, no control characters, bounded length.
func sanitizeDescription(s string) string {
	s = RedactTokens(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > maxDescription {
		s = strings.ToValidUTF8(s[:maxDescription], "") + "..."
	}
	return s
}
