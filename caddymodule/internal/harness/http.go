package harness

import (
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

func do(t testing.TB, client *http.Client, method, url, contentType, body string, header http.Header) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
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
