package caddymodule

import (
	"bytes"
	"context"
	"fmt"
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
	if err := writeDemoKeys(keys, io.Discard); err != nil {
		t.Fatal(err)
	}
	key := func(name string) string { return filepath.Join(keys, name) }
	base := provCaddy(t, func(port int) string {
		return fmt.Sprintf(`{
	admin off
	persist_config off
	auto_https off
}

http://127.0.0.1:%d {
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
}
`, port, key("login.pem"), port, key("hermes.pub"), key("coastal.pub"), key("login.pub"))
	})
	tokenURL := base + "/oauth/token"
	hermes := tokenCmdOptions{
		tokenURL: tokenURL, keyFile: key("hermes.pem"), kid: "hermes-demo-1",
		issuer: "https://reservations.example-railway.eu", subject: "example-railway",
	}
	coastal := tokenCmdOptions{
		tokenURL: tokenURL, keyFile: key("coastal.pem"), kid: "coastal-demo-1",
		subject: "coastal-railway", grant: "client_assertion", alg: "EdDSA",
	}
	for name, o := range map[string]tokenCmdOptions{"jwt_bearer": hermes, "client_assertion": coastal} {
		var out bytes.Buffer
		if err := runOSDMToken(context.Background(), o, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		token, rest, _ := strings.Cut(out.String(), "\n")
		if rest != "" || strings.Count(token, ".") != 2 {
			t.Fatalf("%s: stdout must be the access token and a newline, got %q", name, out.String())
		}
		status, body, _ := provDo(t, http.MethodGet, base+"/osdm/x", "", "",
			http.Header{"Authenticate": {"Bearer " + token}})
		if status != http.StatusOK || body != "hello "+o.subject {
			t.Fatalf("%s: the printed token at osdm_access: %d %q", name, status, body)
		}
	}

	refused := map[string]func(o *tokenCmdOptions){
		"unknown kid":      func(o *tokenCmdOptions) { o.kid = "nobody-1" },
		"wrong key":        func(o *tokenCmdOptions) { o.keyFile = key("alpine.pem") },
		"other audience":   func(o *tokenCmdOptions) { o.audience = "https://elsewhere.example/token" },
		"no issuer":        func(o *tokenCmdOptions) { o.issuer = "" },
		"no subject":       func(o *tokenCmdOptions) { o.subject = "" },
		"unknown grant":    func(o *tokenCmdOptions) { o.grant = "password" },
		"missing key file": func(o *tokenCmdOptions) { o.keyFile = key("none.pem") },
		"alg of other key": func(o *tokenCmdOptions) { o.alg = "RS256" },
		"nobody listening": func(o *tokenCmdOptions) { o.tokenURL = "http://127.0.0.1:1/oauth/token" },
	}
	for name, change := range refused {
		o := hermes
		change(&o)
		var out bytes.Buffer
		err := runOSDMToken(context.Background(), o, &out)
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
