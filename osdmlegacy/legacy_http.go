package osdmlegacy

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// Poster carries one legacy message as the body of an HTTP POST and
// returns the answer: how caddymodule sends through `next`. An error is a
// failure to get any answer; a *SendError says its kind, any other error
// is taken as the legacy system being down (a deadline as slow).
type Poster interface {
	Post(ctx context.Context, contentType string, body []byte) (status int, contentType_ string, reply []byte, err error)
}

// postFunc adapts a function to Poster.
type postFunc func(ctx context.Context, contentType string, body []byte) (int, string, []byte, error)

// Post implements Poster.
func (f postFunc) Post(ctx context.Context, contentType string, body []byte) (int, string, []byte, error) {
	return f(ctx, contentType, body)
}

// httpSender is a Sender over a Poster in one legacy format.
type httpSender struct {
	post   Poster
	format legacy.Format
}

// HTTPSender returns a Sender that writes each message in format (XML or
// JSON, legacy-protocol.md), posts it, and reads the reply in the form its
// Content-Type names (the request's when it names none). A NegativeReply
// is a reply whatever the HTTP status; a server error without one is the
// legacy system down, an answer that is no legacy reply is garbage.
func HTTPSender(p Poster, format legacy.Format) Sender {
	return &httpSender{post: p, format: format}
}

// Send implements Sender.
func (s *httpSender) Send(ctx context.Context, req legacy.Request) (legacy.Reply, error) {
	body, err := legacy.Encode(s.format, req)
	if err != nil {
		// Our own message failed its rules: a bug, never sent.
		return nil, fmt.Errorf("encoding the %s: %w", req.Kind(), err)
	}
	status, ct, answer, err := s.post.Post(ctx, s.format.ContentType(), body)
	if err != nil {
		var se *SendError
		if errors.As(err, &se) {
			return nil, err
		}
		kind := ErrLegacyDown
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			kind = ErrLegacySlow
		}
		return nil, &SendError{Kind: kind, Err: err}
	}
	format := s.format
	if ct != "" {
		if f, ferr := legacy.FormatOf(ct); ferr == nil {
			format = f
		} else if status < 500 {
			return nil, &SendError{Kind: ErrLegacyGarbage, Status: status, Err: fmt.Errorf("reply Content-Type %q", shorten(ct, 64))}
		}
	}
	reply, derr := legacy.DecodeReply(format, answer)
	switch {
	case derr != nil && status >= 500:
		kind := ErrLegacyDown
		if status == http.StatusGatewayTimeout {
			kind = ErrLegacySlow
		}
		return nil, &SendError{Kind: kind, Status: status, Err: fmt.Errorf("HTTP %d", status)}
	case derr != nil:
		return nil, &SendError{Kind: ErrLegacyGarbage, Status: status, Err: derr}
	}
	if _, negative := reply.(*legacy.NegativeReply); !negative && (status < 200 || status > 299) {
		return nil, &SendError{Kind: ErrLegacyGarbage, Status: status, Err: fmt.Errorf("a %s with HTTP %d", reply.Kind(), status)}
	}
	return reply, nil
}
