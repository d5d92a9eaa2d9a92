package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// ErrNotAReply wraps the error of an answer that is not a legacy reply.
var ErrNotAReply = errors.New("the answer is not a legacy reply")

// LegacyClient sends legacy messages to one URL, as a legacy reservation
// system does, and decodes the replies.
type LegacyClient struct {
	// URL receives the messages.
	URL string
	// Format is the messages' form; zero is XML.
	Format legacy.Format
	// HTTP sends them; nil is http.DefaultClient.
	HTTP *http.Client
	// Header is added to every request (a traceparent, say).
	Header http.Header
	// CheckContentType makes a reply whose Content-Type is not the
	// Format's an error.
	CheckContentType bool
}

// LegacyAnswer is the HTTP answer to a legacy message.
type LegacyAnswer struct {
	Status int
	Header http.Header
	Body   []byte
	// Reply is Body decoded (by Try and Send).
	Reply legacy.Reply
}

// format is c.Format, XML if unset.
func (c LegacyClient) format() legacy.Format {
	if c.Format == 0 {
		return legacy.XML
	}
	return c.Format
}

// Post sends body as contentType; the error is a transport failure.
func (c LegacyClient) Post(contentType string, body []byte) (LegacyAnswer, error) {
	req, err := http.NewRequest(http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return LegacyAnswer{}, err
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return LegacyAnswer{}, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return LegacyAnswer{}, err
	}
	return LegacyAnswer{Status: resp.StatusCode, Header: resp.Header, Body: out}, nil
}

// Try sends msg and decodes the reply. The error is a transport failure,
// or wraps ErrNotAReply.
func (c LegacyClient) Try(msg legacy.Message) (LegacyAnswer, error) {
	f := c.format()
	body, err := legacy.Encode(f, msg)
	if err != nil {
		return LegacyAnswer{}, err
	}
	a, err := c.Post(f.ContentType(), body)
	if err != nil {
		return a, err
	}
	if ct := a.Header.Get("Content-Type"); c.CheckContentType && ct != f.ContentType() {
		return a, fmt.Errorf("%w: reply Content-Type %q to %v: %s", ErrNotAReply, ct, f, a.Body)
	}
	if a.Reply, err = legacy.DecodeReply(f, a.Body); err != nil {
		return a, fmt.Errorf("%w: reply %d %s: %v", ErrNotAReply, a.Status, a.Body, err)
	}
	return a, nil
}

// Send is Try that fails the test on any error.
func (c LegacyClient) Send(t testing.TB, msg legacy.Message) (int, legacy.Reply) {
	t.Helper()
	a, err := c.Try(msg)
	if err != nil {
		t.Fatal(err)
	}
	return a.Status, a.Reply
}

// MsgID is a legacy messageId unique to the test, the format and step.
func MsgID(t testing.TB, f legacy.Format, step string) string {
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	id := fmt.Sprintf("%s-%s-%s-%d", name, f, step, time.Now().UnixNano()%1e9)
	if len(id) > 64 {
		id = id[len(id)-64:]
	}
	return strings.TrimLeft(id, "-")
}
