package consumer

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"go.uber.org/zap"
)

// defaultTLSHandshakeTimeout is net/http's default, which reverse_proxy's
// http transport does not set.
const defaultTLSHandshakeTimeout = 10 * time.Second

// loginTLS is osdm_token's TLS towards the partner's login service, made
// by reverse_proxy's own TLSConfig.MakeTLSClientConfig from the token's
// "tls" object.
type loginTLS struct {
	config *tls.Config
	// digest covers every setting and the content of every file they name,
	// so that a renewed certificate or a new CA under the same file name
	// makes a new token client.
	digest string
	// fields describe the set-up for the log: file names, certificate
	// subjects and expiry, never key material.
	fields []zap.Field
	// clientNotAfter is when the client certificate expires, if there is one.
	clientNotAfter time.Time
}

// loadLoginTLS builds the TLS client configuration of c.
func loadLoginTLS(ctx caddy.Context, c *reverseproxy.TLSConfig) (*loginTLS, error) {
	caFiles := loginTLSCAFiles(c)
	cfg, err := c.MakeTLSClientConfig(ctx)
	if err != nil {
		// Caddy's errors do not always say which file is wrong.
		return nil, fmt.Errorf("tls (client certificate %q, key %q, CA files %q): %w",
			c.ClientCertificateFile, c.ClientCertificateKeyFile, caFiles, err)
	}
	digest, err := loginTLSDigest(c, caFiles)
	if err != nil {
		return nil, err
	}
	out := &loginTLS{config: cfg, digest: digest}
	if len(caFiles) > 0 {
		out.fields = append(out.fields, zap.Strings("tls_ca_files", caFiles))
	}
	if len(cfg.Certificates) == 1 && cfg.GetClientCertificate == nil {
		pair := &cfg.Certificates[0]
		// Always present the configured certificate, as curl does: Go's
		// own choice sends none when the service names CAs that did not
		// issue it, and the service's "certificate required" would hide
		// that the certificate is the wrong one.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return pair, nil }
		if leaf := pair.Leaf; leaf != nil {
			out.clientNotAfter = leaf.NotAfter
			out.fields = append(out.fields,
				zap.String("tls_client_certificate", c.ClientCertificateFile),
				zap.String("tls_client_subject", leaf.Subject.String()),
				zap.String("tls_client_issuer", leaf.Issuer.String()),
				zap.Time("tls_client_not_after", leaf.NotAfter))
		}
	}
	if c.ServerName != "" {
		out.fields = append(out.fields, zap.String("tls_server_name", c.ServerName))
	}
	return out, nil
}

// loginTLSCAFiles are the CA files of c: root_ca_pem_files, or the PEM
// files of a "file" trust pool.
func loginTLSCAFiles(c *reverseproxy.TLSConfig) []string {
	var pool struct {
		Provider string   `json:"provider"`
		PEMFiles []string `json:"pem_files"`
	}
	if len(c.CARaw) > 0 && json.Unmarshal(c.CARaw, &pool) == nil && pool.Provider == "file" {
		return append(c.RootCAPEMFiles[:len(c.RootCAPEMFiles):len(c.RootCAPEMFiles)], pool.PEMFiles...)
	}
	return c.RootCAPEMFiles
}

// loginTLSDigest hashes the settings of c and the content of the files
// they name: the CA files, client certificate and key.
func loginTLSDigest(c *reverseproxy.TLSConfig, caFiles []string) (string, error) {
	settings, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	files := caFiles
	if c.ClientCertificateFile != "" {
		files = append(files[:len(files):len(files)], c.ClientCertificateFile, c.ClientCertificateKeyFile)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s", len(settings), settings)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			// os errors name the file, never its content.
			return "", fmt.Errorf("tls: %w", err)
		}
		fmt.Fprintf(h, "%d:%s", len(data), data)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// loginTransport is the HTTP transport of the login calls: net/http's
// default one (proxy from the environment, dial and idle timeouts) with
// the partner's TLS settings. Each token client has its own, so that
// different TLS settings never share a connection.
func loginTransport(lt *loginTLS, handshake time.Duration) *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSHandshakeTimeout = defaultTLSHandshakeTimeout
	if handshake > 0 {
		tr.TLSHandshakeTimeout = handshake
	}
	if lt != nil {
		tr.TLSClientConfig = lt.config
	}
	return tr
}
