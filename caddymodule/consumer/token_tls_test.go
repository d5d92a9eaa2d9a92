package consumer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

func TestTokenTLSUnmarshalCaddyfile(t *testing.T) {
	const base = "token_url https://login.sncf.example/oauth/token\nkey_file /k.pem\nkid k1\nsubject me\nissuer i\n"
	for _, tc := range []struct {
		name, block string
		want        string // the tls object's JSON
		timeout     caddy.Duration
	}{
		{"all", `tls_trusted_ca_certs /etc/osdm/sncf-ca.pem /etc/osdm/sncf-ca-next.pem
			tls_client_auth /etc/osdm/client.crt /etc/osdm/client.key
			tls_server_name login.sncf.example
			tls_timeout 3s
			login_timeout 12s`,
			`{"root_ca_pem_files":["/etc/osdm/sncf-ca.pem","/etc/osdm/sncf-ca-next.pem"],` +
				`"client_certificate_file":"/etc/osdm/client.crt","client_certificate_key_file":"/etc/osdm/client.key",` +
				`"handshake_timeout":3000000000,"server_name":"login.sncf.example"}`, caddy.Duration(12 * time.Second)},
		{"trust pool", "tls_trust_pool file /ca.pem", `{"ca":{"pem_files":["/ca.pem"],"provider":"file"}}`, 0},
		{"trust pool block", "tls_trust_pool file {\n\t\t\t\tpem_file /ca.pem\n\t\t\t}", `{"ca":{"pem_files":["/ca.pem"],"provider":"file"}}`, 0},
		{"automated client certificate", "tls_client_auth client.example", `{"client_certificate_automate":"client.example"}`, 0},
		{"insecure", "tls_insecure_skip_verify", `{"insecure_skip_verify":true}`, 0},
		{"none", "", "null", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got Token
			harness.Unmarshal(t, &got, harness.Block("osdm_token", base+tc.block))
			tlsJSON, err := json.Marshal(got.TLS)
			if err != nil {
				t.Fatal(err)
			}
			if string(tlsJSON) != tc.want || got.LoginTimeout != tc.timeout {
				t.Fatalf("got TLS %s, login_timeout %v\nwant %s, %v", tlsJSON, got.LoginTimeout, tc.want, tc.timeout)
			}
		})
	}
}

func TestTokenTLSUnmarshalCaddyfileErrors(t *testing.T) {
	const base = "token_url https://login.example/oauth/token\nkey_file /k.pem\nkid k1\nsubject me\nissuer i\n"
	for _, tc := range []struct{ name, block, want string }{
		{"http token_url", "token_url http://login.example/t\nkey_file /k\nkid k\nsubject s\nissuer i\ntls_server_name x",
			`tls settings need an https token_url, not "http://login.example/t"`},
		{"client auth three files", base + "tls_client_auth /c.crt /c.key /x", "wrong argument count"},
		{"no CA file", base + "tls_trusted_ca_certs", "wrong argument count"},
		{"unknown trust pool", base + "tls_trust_pool nowhere", "tls.ca_pool.source.nowhere"},
		{"both CA forms", base + "tls_trusted_ca_certs /a.pem\ntls_trust_pool file /b.pem", "cannot specify both"},
		{"repeated", base + "tls_server_name a\ntls_server_name b", "tls_server_name already specified"},
		{"insecure with value", base + "tls_insecure_skip_verify yes", "wrong argument count"},
		{"bad handshake timeout", base + "tls_timeout soon", "bad timeout value 'soon'"},
		{"negative handshake timeout", base + "tls_timeout -1s", "handshake_timeout must not be negative"},
		{"negative login timeout", base + "login_timeout -1s", "osdm_token: login_timeout -1s must not be negative"},
		{"unknown tls option", base + "tls_bogus", `unrecognized subdirective "tls_bogus"`},
		{"port exceptions", base + "tls_except_ports 443", `unrecognized subdirective "tls_except_ports"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := harness.TryUnmarshal(new(Token), harness.Block("osdm_token", tc.block))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "Testfile:") {
				t.Fatalf("error %q does not name the file and line", err)
			}
		})
	}
}

// The adapted JSON has reverse_proxy's tls field names.
func TestTokenTLSCaddyfileAdaptJSON(t *testing.T) {
	cf := sncfTokenCaddyfile("login_timeout 10s", "tls_trusted_ca_certs /etc/osdm/sncf-ca.pem",
		"tls_client_auth /etc/osdm/client.crt /etc/osdm/client.key", "tls_server_name login.sncf.example", "tls_timeout 5s")
	harness.CheckAdaptedJSON(t, cf, `"login_timeout":10000000000,"subject":"example-railway","tls":{`+
		`"client_certificate_file":"/etc/osdm/client.crt","client_certificate_key_file":"/etc/osdm/client.key",`+
		`"handshake_timeout":5000000000,"root_ca_pem_files":["/etc/osdm/sncf-ca.pem"],"server_name":"login.sncf.example"},`+
		`"token_url":"https://login.sncf.example/oauth/token"}`)
}

// tlsProvision provisions an osdm_token with tls towards a login service
// that is never called, and returns it with its cleanup done at the end
// of the test.
func tlsProvision(t *testing.T, keyFile string, tlsCfg *reverseproxy.TLSConfig) (*Token, error) {
	t.Helper()
	h := &Token{TokenURL: "https://login.sncf.example/oauth/token", KeyFile: keyFile, KeyID: "k", Subject: "s", Issuer: "i", TLS: tlsCfg}
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	err := h.Provision(ctx)
	if err == nil {
		t.Cleanup(func() { h.Cleanup() })
	}
	return h, err
}

func TestTokenTLSProvisionErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "id.pem")
	idKey := harness.ECKey(t)
	harness.WriteKey(t, keyFile, idKey)
	ca := harness.NewCA(t, dir, "partner-ca")
	cert, key := ca.Issue(t, "client", true)
	_, otherKey := ca.Issue(t, "other", true)
	notPEM := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	keyPEM, _ := os.ReadFile(key)

	for _, tc := range []struct {
		name string
		cfg  reverseproxy.TLSConfig
		want string
	}{
		{"missing CA file", reverseproxy.TLSConfig{RootCAPEMFiles: []string{ca.File, missing}}, "open " + missing},
		{"key without certificate", reverseproxy.TLSConfig{ClientCertificateKeyFile: key}, "client_certificate_key_file specified without client_certificate_file"},
		{"missing client certificate", reverseproxy.TLSConfig{ClientCertificateFile: missing, ClientCertificateKeyFile: key}, "open " + missing},
		{"missing client key", reverseproxy.TLSConfig{ClientCertificateFile: cert, ClientCertificateKeyFile: missing}, "open " + missing},
		{"client certificate not PEM", reverseproxy.TLSConfig{ClientCertificateFile: notPEM, ClientCertificateKeyFile: key},
			`client certificate "` + notPEM + `", key "` + key + `"`},
		{"key of another certificate", reverseproxy.TLSConfig{ClientCertificateFile: cert, ClientCertificateKeyFile: otherKey},
			`client certificate "` + cert + `", key "` + otherKey + `", CA files []): loading client certificate key pair: tls: private key does not match public key`},
		{"key file is the certificate", reverseproxy.TLSConfig{ClientCertificateFile: cert, ClientCertificateKeyFile: cert}, `key "` + cert + `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tlsProvision(t, keyFile, &tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			for _, line := range strings.Split(string(keyPEM), "\n") {
				if len(line) > 20 && !strings.HasPrefix(line, "-----") && strings.Contains(err.Error(), line) {
					t.Fatal("the error holds key material")
				}
			}
		})
	}
}

// The token cache is shared across reloads only while the TLS settings
// and the content of their files stay the same: a new CA or a renewed
// client certificate under the same file names makes a new client.
func TestTokenTLSPoolKeyFollowsFileContent(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "id.pem")
	idKey := harness.ECKey(t)
	harness.WriteKey(t, keyFile, idKey)
	ca := harness.NewCA(t, dir, "partner-ca")
	cert, key := ca.Issue(t, "client", true)
	cfg := reverseproxy.TLSConfig{RootCAPEMFiles: []string{ca.File}, ClientCertificateFile: cert, ClientCertificateKeyFile: key}
	poolKey := func() string {
		c := cfg
		h, err := tlsProvision(t, keyFile, &c)
		if err != nil {
			t.Fatal(err)
		}
		return h.poolKey
	}
	first := poolKey()
	if again := poolKey(); again != first {
		t.Fatal("the same TLS settings and files gave another pool key")
	}
	harness.NewCA(t, dir, "partner-ca") // a new CA in the same file
	afterCA := poolKey()
	if afterCA == first {
		t.Fatal("a new CA under the same file name kept the pool key")
	}
	ca.Issue(t, "client", true) // a renewed client certificate and key
	if poolKey() == afterCA {
		t.Fatal("a renewed client certificate under the same file names kept the pool key")
	}
	cfg.ServerName = "login.sncf.example"
	if poolKey() == afterCA {
		t.Fatal("a server name kept the pool key")
	}
}
