package integration

import (
	"bytes"
	"context"
	"fmt"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestOSDMTokenCommand runs caddy osdm-token's body against a real
// osdm_login in a test Caddy: the printed access token (the only output)
// passes osdm_access, in both grant forms; a refused login and bad flags
// print nothing on stdout and an error that holds no token.
func TestOSDMTokenCommand(t *testing.T) {
	keys := t.TempDir()
	if err := command.WriteDemoKeys(keys, io.Discard); err != nil {
		t.Fatal(err)
	}
	key := func(name string) string { return filepath.Join(keys, name) }
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return fmt.Sprintf(`
	route /oauth/token {
		osdm_login {
			signing_key_file %s
			issuer https://login.hermes.example
			audience http://127.0.0.1:%d/oauth/token
			client example-railway {
				alg ES256
				key hermes-demo-1 %s
				scope uic_osdm
			}
			client coastal-railway {
				key coastal-demo-1 %s
			}
		}
	}
	route /osdm/* {
		osdm_access {
			key_file %s
			issuer https://login.hermes.example
			audience https://login.hermes.example
			scope uic_osdm
		}
		respond "hello {osdm.client}" 200
	}
`, key("login.pem"), port, key("hermes.pub"), key("coastal.pub"), key("login.pub"))
	})
	tokenURL := base + "/oauth/token"
	hermes := command.TokenOptions{
		TokenURL: tokenURL, KeyFile: key("hermes.pem"), Kid: "hermes-demo-1",
		Issuer: "https://reservations.example-railway.eu", Subject: "example-railway",
	}
	coastal := command.TokenOptions{
		TokenURL: tokenURL, KeyFile: key("coastal.pem"), Kid: "coastal-demo-1",
		Subject: "coastal-railway", Grant: "client_assertion", Alg: "EdDSA",
	}
	for name, o := range map[string]command.TokenOptions{"jwt_bearer": hermes, "client_assertion": coastal} {
		var out bytes.Buffer
		if err := command.RunToken(context.Background(), o, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		token, rest, _ := strings.Cut(out.String(), "\n")
		if rest != "" || strings.Count(token, ".") != 2 {
			t.Fatalf("%s: stdout must be the access token and a newline, got %q", name, out.String())
		}
		status, body, _ := harness.Do(t, http.MethodGet, base+"/osdm/x", "", "",
			http.Header{"Authenticate": {"Bearer " + token}})
		if status != http.StatusOK || body != "hello "+o.Subject {
			t.Fatalf("%s: the printed token at osdm_access: %d %q", name, status, body)
		}
	}

	refused := map[string]func(o *command.TokenOptions){
		"unknown kid":      func(o *command.TokenOptions) { o.Kid = "nobody-1" },
		"wrong key":        func(o *command.TokenOptions) { o.KeyFile = key("alpine.pem") },
		"other audience":   func(o *command.TokenOptions) { o.Audience = "https://elsewhere.example/token" },
		"no issuer":        func(o *command.TokenOptions) { o.Issuer = "" },
		"no subject":       func(o *command.TokenOptions) { o.Subject = "" },
		"unknown grant":    func(o *command.TokenOptions) { o.Grant = "password" },
		"missing key file": func(o *command.TokenOptions) { o.KeyFile = key("none.pem") },
		"alg of other key": func(o *command.TokenOptions) { o.Alg = "RS256" },
		"nobody listening": func(o *command.TokenOptions) { o.TokenURL = "http://127.0.0.1:1/oauth/token" },
	}
	for name, change := range refused {
		o := hermes
		change(&o)
		var out bytes.Buffer
		err := command.RunToken(context.Background(), o, &out)
		if err == nil {
			t.Fatalf("%s: accepted, printed %q", name, out.String())
		}
		if out.Len() != 0 {
			t.Fatalf("%s: printed %q on stdout with an error", name, out.String())
		}
		if name == "unknown kid" && !strings.Contains(err.Error(), `kid "nobody-1" is not registered`) {
			t.Fatalf("unknown kid: the login service's reason is lost: %v", err)
		}
		if strings.Contains(err.Error(), "eyJ") || strings.Contains(err.Error(), "PRIVATE KEY") {
			t.Fatalf("%s: the error holds a token or key: %v", name, err)
		}
	}
}
