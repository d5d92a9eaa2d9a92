package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// The route after a handler, as background work gets it, on a server
// whose routes are Caddy's groups (the JSON a Caddyfile's handle
// siblings adapt to, the probe two subroutes deep): the fallback of the
// groups on the way to the probe is skipped, the route after them runs,
// and the request comes from the server's listen address, as the
// remote_ip matcher in front of reverse_proxy and the upstream see it.
func TestRouteAfterHandlerSkipsMatchedGroupsAndComesFromListener(t *testing.T) {
	seen := make(chan string, 100)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case seen <- r.Method + " " + r.URL.Path + " from " + r.Header.Get("X-Remote"):
		default:
		}
		fmt.Fprint(w, "upstream")
	}))
	t.Cleanup(up.Close)
	port := harness.FreePort(t)
	listen := fmt.Sprintf("127.0.0.2:%d", port)
	respond := func(body string) map[string]any {
		return map[string]any{"handler": "static_response", "status_code": 404, "body": body}
	}
	subroute := func(routes ...any) map[string]any { return map[string]any{"handler": "subroute", "routes": routes} }
	cfg := map[string]any{
		"admin":   map[string]any{"disabled": true},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "ERROR"}}},
		"apps": map[string]any{
			"osdm": map[string]any{"stores": map[string]any{"main": map[string]any{"engine": "bolt", "path": filepath.Join(t.TempDir(), "s.db")}}, "settle_interval": "100ms"},
			"http": map[string]any{"servers": map[string]any{"s": map[string]any{
				"listen":          []string{listen},
				"automatic_https": map[string]any{"disable": true},
				"routes": []any{
					map[string]any{"group": "outer", "handle": []any{subroute(
						map[string]any{"group": "inner", "handle": []any{map[string]any{"handler": "osdm_app_probe", "store": map[string]any{"name": "main"}}}},
						map[string]any{"group": "inner", "handle": []any{respond("inner fallback")}},
					)}},
					map[string]any{"group": "outer", "handle": []any{respond("outer fallback")}},
					map[string]any{"group": "inner", "handle": []any{respond("inner group, outer level")}},
					map[string]any{
						"match": []any{map[string]any{"remote_ip": map[string]any{"ranges": []string{"127.0.0.2/32"}}}},
						"handle": []any{map[string]any{
							"handler":   "reverse_proxy",
							"upstreams": []any{map[string]any{"dial": strings.TrimPrefix(up.URL, "http://")}},
							"headers":   map[string]any{"request": map[string]any{"set": map[string]any{"X-Remote": []string{"{http.request.remote}"}}}},
						}},
					},
					map[string]any{"handle": []any{respond("not from the listener: {http.request.remote}")}},
				},
			}}},
		},
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	load(t, b)
	select {
	case line := <-seen:
		if want := "GET /background from " + listen; line != want {
			t.Fatalf("the upstream saw %q, want %q", line, want)
		}
	case <-time.After(10 * time.Second):
		// The probe answers a client with what its last pass got.
		resp, err := http.Get("http://" + listen + "/")
		if err != nil {
			t.Fatalf("no background request reached the upstream; asking the probe: %v", err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		t.Fatalf("no background request reached the upstream; the probe's last pass got %q", got)
	}
}
