package consumer

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// tlsLogin is a partner's login service over TLS that wants a client
// certificate of the partner's client CA: it counts the logins of each
// client certificate.
type tlsLogin struct {
	srv *httptest.Server

	mu     sync.Mutex
	logins map[string]int // by client certificate subject
}

func newTLSLogin(t *testing.T, serverCert, serverKey string, clientCA *harness.CA) *tlsLogin {
	t.Helper()
	l := &tlsLogin{logins: map[string]int{}}
	pair, err := tls.LoadX509KeyPair(serverCert, serverKey)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(clientCA.Cert)
	l.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		subject := r.TLS.PeerCertificates[0].Subject.CommonName
		l.mu.Lock()
		l.logins[subject]++
		n := l.logins[subject]
		l.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("at-%s-%d", subject, n), "token_type": "Bearer", "expires_in": 600})
	}))
	l.srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	// The refused handshakes are what the test is about, not news.
	l.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	l.srv.StartTLS()
	t.Cleanup(l.srv.Close)
	return l
}

func (l *tlsLogin) snapshot() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.logins)
}

// TestTokenTLSIntegration runs osdm_token in a real Caddy against a login
// service that requires a client certificate, one route per TLS set-up:
// only the route with the partner's CA, a client certificate of its
// client CA and the name on its certificate gets a token; every other
// route answers a 502 naming the partner and what went wrong, and the
// login service saw no request from them.
func TestTokenTLSIntegration(t *testing.T) {
	dir := t.TempDir()
	serverCA, clientCA, strangerCA := harness.NewCA(t, dir, "partner-server-ca"), harness.NewCA(t, dir, "partner-client-ca"), harness.NewCA(t, dir, "stranger-ca")
	// The login service's certificate is for its name only, not its IP.
	serverCert, serverKey := serverCA.Issue(t, "login.partner.test", false, "login.partner.test")
	clientCert, clientKey := clientCA.Issue(t, "example-railway", true)
	strangerCert, strangerKey := strangerCA.Issue(t, "stranger", true)
	expiredCert, expiredKey := clientCA.IssueUntil(t, "expired", true, time.Now().Add(-time.Hour))
	login := newTLSLogin(t, serverCert, serverKey, clientCA)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "upstream got "+r.Header.Get("Authenticate"))
	}))
	t.Cleanup(upstream.Close)
	idKey := harness.ECKey(t)
	keyFile := filepath.Join(dir, "identity.pem")
	harness.WriteKey(t, keyFile, idKey)
	logFile := filepath.Join(dir, "caddy.log")

	routes := []struct {
		name, tls string
		status    int
		want      string
		alert     string // the end of a refused connection's message, after Go's varying wording
	}{
		{"good", fmt.Sprintf("tls_trusted_ca_certs %s\n\t\t\ttls_client_auth %s %s\n\t\t\ttls_server_name login.partner.test", serverCA.File, clientCert, clientKey),
			200, "upstream got Bearer at-example-railway-1", ""},
		{"trust-pool", fmt.Sprintf("tls_trust_pool file %s\n\t\t\ttls_client_auth %s %s\n\t\t\ttls_server_name login.partner.test", serverCA.File, clientCert, clientKey),
			200, "upstream got Bearer at-example-railway-2", ""},
		{"wrong-ca", fmt.Sprintf("tls_trusted_ca_certs %s\n\t\t\ttls_client_auth %s %s\n\t\t\ttls_server_name login.partner.test", strangerCA.File, clientCert, clientKey),
			502, `login at partner "wrong-ca" failed: the login service's TLS certificate was not accepted: ` +
				`Post "` + login.srv.URL + `/oauth/token": tls: failed to verify certificate: x509: certificate signed by unknown authority`, ""},
		{"system-roots", fmt.Sprintf("tls_client_auth %s %s\n\t\t\ttls_server_name login.partner.test", clientCert, clientKey),
			502, `login at partner "system-roots" failed: the login service's TLS certificate was not accepted`, ""},
		{"wrong-name", fmt.Sprintf("tls_trusted_ca_certs %s\n\t\t\ttls_client_auth %s %s", serverCA.File, clientCert, clientKey),
			502, `login at partner "wrong-name" failed: the login service's TLS certificate was not accepted: ` +
				`Post "` + login.srv.URL + `/oauth/token": tls: failed to verify certificate: x509: cannot validate certificate for 127.0.0.1 because it doesn't contain any IP SANs`, ""},
		{"no-client-cert", fmt.Sprintf("tls_trusted_ca_certs %s\n\t\t\ttls_server_name login.partner.test", serverCA.File),
			502, `login at partner "no-client-cert" failed: the login service refused the TLS connection: ` +
				`Post "` + login.srv.URL + `/oauth/token": `, "remote error: tls: certificate required"},
		{"stranger-cert", fmt.Sprintf("tls_trusted_ca_certs %s\n\t\t\ttls_client_auth %s %s\n\t\t\ttls_server_name login.partner.test", serverCA.File, strangerCert, strangerKey),
			502, `login at partner "stranger-cert" failed: the login service refused the TLS connection: ` +
				`Post "` + login.srv.URL + `/oauth/token": `, "remote error: tls: unknown certificate authority"},
		{"expired-cert", fmt.Sprintf("tls_trusted_ca_certs %s\n\t\t\ttls_client_auth %s %s\n\t\t\ttls_server_name login.partner.test", serverCA.File, expiredCert, expiredKey),
			502, `login at partner "expired-cert" failed: the login service refused the TLS connection: ` +
				`Post "` + login.srv.URL + `/oauth/token": `, "remote error: tls: expired certificate"},
	}
	var blocks strings.Builder
	for _, r := range routes {
		fmt.Fprintf(&blocks, `
	route /%s/* {
		osdm_token {
			token_url %s/oauth/token
			key_file %s
			kid k1
			issuer https://reservations.example-railway.eu
			subject example-railway
			partner %s
			login_timeout 5s
			%s
		}
		reverse_proxy %s {
			transport osdm
		}
	}
`, r.name, login.srv.URL, keyFile, r.name, r.tls, upstream.Listener.Addr())
	}
	port := harness.FreePort(t)
	harness.Load(t, harness.Options(harness.LogOption(logFile, "DEBUG"))+harness.Site(port, fmt.Sprintf(`
	handle_errors {
		respond "{err.message}" {err.status_code}
	}
%s`, blocks.String())))

	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			code, body, _ := harness.PostJSON(t, fmt.Sprintf("http://127.0.0.1:%d/%s/x", port, r.name), "{}")
			if code != r.status || !strings.Contains(body, r.want) || !strings.HasSuffix(body, r.alert) {
				t.Fatalf("got %d %q\nwant %d with %q ... %q", code, body, r.status, r.want, r.alert)
			}
		})
	}
	if logins := login.snapshot(); len(logins) != 1 || logins["example-railway"] != 2 {
		t.Errorf("logins by client certificate %v, want 2 of example-railway (one per good route)", logins)
	}

	// The log says which CA and client certificate a route uses, and never
	// holds key material or a token.
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	logs := harness.ReadFiles(t, logFile)
	if !bytes.Contains(logs, []byte(`"msg":"the tls_client_auth certificate has expired; the login service will refuse it","partner":"expired-cert"`)) {
		t.Errorf("no warning about the expired client certificate in the log:\n%s", logs)
	}
	if !bytes.Contains(logs, []byte(`"tls_client_subject":"CN=example-railway"`)) || !bytes.Contains(logs, []byte(`"tls_ca_files":["`+serverCA.File+`"]`)) {
		t.Errorf("the ready log does not describe the TLS set-up:\n%s", logs)
	}
	harness.AssertNoSecrets(t, logs, nil, clientKey, strangerKey, expiredKey, keyFile)
	if bytes.Contains(logs, []byte("at-example-railway-")) {
		t.Fatal("an access token is in the log")
	}
}
