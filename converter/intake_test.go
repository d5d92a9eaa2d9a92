package converter

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

func TestIntakeRules(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	_, mtErr := legacy.FormatOf("text/plain")
	for _, tc := range []struct {
		name      string
		res       *Result
		status    int
		outcome   string
		text      string
		retryable bool
	}{
		{"GET", RefuseMethod(http.MethodGet, now), http.StatusMethodNotAllowed, "invalid_message", "body of a POST, not a GET", false},
		{"too large", RefuseTooLarge(65536, now), http.StatusRequestEntityTooLarge, "invalid_message", "longer than 65536 bytes", false},
		{"slow body", RefuseBodyTimeout(errors.New("i/o timeout"), 20*time.Second, now), http.StatusRequestTimeout, OutcomeBodyTimeout, "within the route's timeout of 20s", true},
		{"media type", Refuse(mtErr, now), http.StatusUnsupportedMediaType, "invalid_message", "text/plain", false},
		{"broken body", Refuse(errors.New("unexpected EOF"), now), http.StatusBadRequest, "invalid_message", "could not be read: unexpected EOF", false},
	} {
		nr, ok := tc.res.Reply.(*legacy.NegativeReply)
		if !ok || tc.res.Status != tc.status || tc.res.Outcome != tc.outcome || !strings.Contains(nr.Text, tc.text) ||
			nr.Retryable != tc.retryable || nr.Code != legacy.CodeInvalidMessage {
			t.Errorf("%s: %d %s %+v", tc.name, tc.res.Status, tc.res.Outcome, tc.res.Reply)
		}
	}
	if RefuseMethod(http.MethodPost, now) != nil {
		t.Error("a POST was refused")
	}
	for accept, want := range map[string]legacy.Format{
		"": legacy.XML, "application/json": legacy.JSON, "application/xml, application/json": legacy.XML, "text/xml": legacy.XML,
	} {
		if got := ReplyFormat(accept); got != want {
			t.Errorf("Accept %q: reply in %v, want %v", accept, got, want)
		}
	}
}
