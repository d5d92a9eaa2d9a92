package integration

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// printedBlock returns the tab-indented block that follows the line of
// out starting with heading, up to the first blank line.
func printedBlock(t *testing.T, out, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "\n"+heading)
	if !ok {
		t.Fatalf("caddy osdm-keygen printed no %q:\n%s", heading, out)
	}
	var block []string
	for _, line := range strings.Split(rest, "\n")[1:] {
		if line == "" {
			break
		}
		if strings.HasPrefix(line, "\t") {
			block = append(block, line)
		}
	}
	return strings.Join(block, "\n")
}

// TestKeygenBlocksLogIn follows the partner guide: the consumer runs caddy
// osdm-keygen with its subject, its issuer and the provider's token URL;
// the provider pastes the printed client block into its osdm_login (with
// the public key it was sent), the consumer pastes the printed osdm_token
// block into its route, unchanged; a request through that route then
// logs in and reaches the provider's osdm_access as that client.
func TestKeygenBlocksLogIn(t *testing.T) {
	demo := t.TempDir()
	if err := command.WriteDemoKeys(demo, io.Discard); err != nil {
		t.Fatal(err)
	}
	var printed string
	base := harness.Serve(t, func(port int) string {
		keys := t.TempDir()
		var out bytes.Buffer
		err := command.RunKeygen(command.KeygenOptions{
			Alg: "ES256", Kid: "nordic-2026-01", Out: keys, Subject: "example-railway",
			Issuer:   "https://reservations.example-railway.eu",
			TokenURL: fmt.Sprintf("http://127.0.0.1:%d/oauth/token", port),
		}, &out)
		if err != nil {
			t.Fatal(err)
		}
		printed = out.String()
		client := printedBlock(t, printed, "Provider side")
		// The provider stores the public key it was sent where the block says.
		client = strings.ReplaceAll(client, "/etc/osdm/clients/nordic-2026-01.pub", filepath.Join(keys, "nordic-2026-01.pub"))
		token := printedBlock(t, printed, "Consumer side")
		return harness.Options() + harness.Site(port, fmt.Sprintf(`
	route /oauth/token {
		osdm_login {
			signing_key_file %[1]s
			issuer https://login.nordic.example
			audience http://127.0.0.1:%[2]d/oauth/token
		%[3]s
		}
	}
	route /osdm/* {
		osdm_access {
			key_file %[4]s
			issuer https://login.nordic.example
			audience https://login.nordic.example
		}
		respond "hello {osdm.client}" 200
	}
	route /partners/nordic {
	%[5]s
		rewrite * /osdm/x
		reverse_proxy 127.0.0.1:%[2]d {
			transport osdm
		}
	}
`, filepath.Join(demo, "login.pem"), port, strings.ReplaceAll(client, "\n", "\n\t\t"), filepath.Join(demo, "login.pub"), strings.ReplaceAll(token, "\n", "\n\t")))
	})
	for _, want := range []string{"issuer https://reservations.example-railway.eu", "token_url http://127.0.0.1:", "-----BEGIN PUBLIC KEY-----"} {
		if !strings.Contains(printed, want) {
			t.Errorf("caddy osdm-keygen printed no %q:\n%s", want, printed)
		}
	}
	status, body, _ := harness.Do(t, http.MethodGet, base+"/partners/nordic", "", "", nil)
	if status != http.StatusOK || body != "hello example-railway" {
		t.Fatalf("through the pasted blocks: %d %q, want 200 \"hello example-railway\"", status, body)
	}
}
