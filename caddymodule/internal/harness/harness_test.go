package harness

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestFreePort: every port is below the ephemeral range (that each is
// handed out once and bindable is testrig.FreePort's, tested there).
func TestFreePort(t *testing.T) {
	for range 200 {
		if p := FreePort(t); p < 20000 || p >= 32768 {
			t.Fatalf("port %d outside 20000-32767", p)
		}
	}
}

// TestLegacyClient: a legacy reply is decoded; an answer that is none, or
// (when asked) one of another Content-Type, is ErrNotAReply; a dead
// server is a transport error.
func TestLegacyClient(t *testing.T) {
	reply := &legacy.NegativeReply{Header: legacy.ReplyHeader{CorrelationID: "m-1"}, Code: legacy.CodeInvalidMessage, Text: "no"}
	good, err := legacy.Encode(legacy.XML, reply)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good":
			w.Header().Set("Content-Type", legacy.XML.ContentType())
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write(good)
		case "/text":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = w.Write(good)
		default:
			_, _ = w.Write([]byte("<html>not a reply"))
		}
	}))
	defer srv.Close()
	msg := &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "m-1"}}
	status, r := LegacyClient{URL: srv.URL + "/good"}.Send(t, msg)
	if nr, ok := r.(*legacy.NegativeReply); status != http.StatusBadRequest || !ok || nr.Code != legacy.CodeInvalidMessage {
		t.Errorf("good: %d %#v", status, r)
	}
	if _, err := (LegacyClient{URL: srv.URL + "/garbage"}).Try(msg); !errors.Is(err, ErrNotAReply) {
		t.Errorf("garbage: %v", err)
	}
	if _, err := (LegacyClient{URL: srv.URL + "/text"}).Try(msg); err != nil {
		t.Errorf("another Content-Type, not checked: %v", err)
	}
	if _, err := (LegacyClient{URL: srv.URL + "/text", CheckContentType: true}).Try(msg); !errors.Is(err, ErrNotAReply) {
		t.Errorf("another Content-Type, checked: %v", err)
	}
	dead := fmt.Sprintf("http://127.0.0.1:%d/", FreePort(t))
	if _, err := (LegacyClient{URL: dead}).Try(msg); err == nil || errors.Is(err, ErrNotAReply) {
		t.Errorf("dead server: %v", err)
	}
}
