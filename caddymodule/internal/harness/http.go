package harness

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// FormType is the Content-Type of a token request.
const FormType = "application/x-www-form-urlencoded"

// noKeepAlive is a client whose every request has a connection of its own.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// Do sends method url with body, as contentType (if not empty) and with
// header, and returns the answer's status, body and header.
func Do(t testing.TB, method, url, contentType, body string, header http.Header) (int, string, http.Header) {
	t.Helper()
	return do(t, http.DefaultClient, method, url, contentType, body, header)
}

// PostJSON posts body as JSON on a connection of its own (a configuration
// reload closes the idle ones).
func PostJSON(t testing.TB, url, body string) (int, string, http.Header) {
	t.Helper()
	return do(t, noKeepAlive, http.MethodPost, url, "application/json", body, nil)
}

// NewRequest is the request method url with body, as contentType (if not
// empty) and with header: what Do sends, for a caller that cannot fail
// its test (a goroutine of the test's).
func NewRequest(method, url, contentType, body string, header http.Header) (*http.Request, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req, nil
}

func do(t testing.TB, client *http.Client, method, url, contentType, body string, header http.Header) (int, string, http.Header) {
	t.Helper()
	req, err := NewRequest(method, url, contentType, body, header)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

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

// Dribbled is the answer to a request whose body came slowly (Dribble).
type Dribbled struct {
	// Status and Body are the answer's.
	Status int
	Body   []byte
	// Took is the time from the end of the headers to the answer.
	Took time.Duration

	conn net.Conn
	r    *bufio.Reader
}

// Dribble posts body, of type contentType, to path of the server at base
// (http://host:port) as a slow client would: on a connection of its own,
// the headers (Content-Length: len(body)) at once, then one byte of body
// every interval, until the answer comes, for up to wait. A request not
// answered by then fails the test. The connection closes when the test
// ends.
func Dribble(t testing.TB, base, path, contentType string, body []byte, interval, wait time.Duration) *Dribbled {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", path, contentType, len(body))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := range body {
			select {
			case <-stop:
				return
			case <-time.After(interval):
			}
			if _, err := conn.Write(body[i : i+1]); err != nil {
				return
			}
		}
	}()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(wait))
	d := &Dribbled{conn: conn, r: bufio.NewReader(conn)}
	resp, err := http.ReadResponse(d.r, nil)
	if err != nil {
		t.Fatalf("no answer to the dribbled body after %s: %v", time.Since(start), err)
	}
	d.Took = time.Since(start)
	d.Status = resp.StatusCode
	d.Body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	return d
}

// ReadAfter is the error of reading one more byte on the connection
// after the answer, waiting up to wait: io.EOF if the server closed it.
func (d *Dribbled) ReadAfter(wait time.Duration) error {
	_ = d.conn.SetReadDeadline(time.Now().Add(wait))
	_, err := d.r.ReadByte()
	return err
}
