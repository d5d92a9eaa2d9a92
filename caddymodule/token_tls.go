package caddymodule

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// defaultTLSHandshakeTimeout is net/http's default, which reverse_proxy's
// http transport does not set.
const defaultTLSHandshakeTimeout = 10 * time.Second

// TokenTLS is the TLS of osdm_token's call to the partner's login service:
// a partner CA, a client certificate for mutual TLS, a server name. The
// JSON fields are those of reverse_proxy's http transport "tls" object, and
// the Caddyfile subdirectives those of its transport block (tls_...), so
// that a login service is set up the same way as the partner's OSDM API.
// It applies to an https token_url only.
type TokenTLS struct {
	// RootCAPEMFiles are PEM files of the CA certificates that the login
	// service's certificate must chain to, in place of the system's roots.
	// Caddyfile: tls_trusted_ca_certs, or tls_trust_pool file.
	RootCAPEMFiles []string `json:"root_ca_pem_files,omitempty"`
	// ClientCertificateFile is the PEM certificate (with any intermediate
	// certificates after it) presented to a login service that asks for
	// one (mutual TLS). Caddyfile: tls_client_auth <cert_file> <key_file>.
	ClientCertificateFile string `json:"client_certificate_file,omitempty"`
	// ClientCertificateKeyFile is the PEM private key of
	// ClientCertificateFile. Never logged.
	ClientCertificateKeyFile string `json:"client_certificate_key_file,omitempty"`
	// ServerName is the name the login service's certificate must be valid
	// for, and the SNI sent. Default: the host of token_url. Caddyfile:
	// tls_server_name.
	ServerName string `json:"server_name,omitempty"`
	// InsecureSkipVerify accepts any certificate from the login service.
	// For tests only: anyone on the path could then take the identity
	// token. Caddyfile: tls_insecure_skip_verify.
	InsecureSkipVerify bool `json:"insecure_skip_verify,omitempty"`
	// HandshakeTimeout bounds the TLS handshake. Default 10s. Caddyfile:
	// tls_timeout.
	HandshakeTimeout caddy.Duration `json:"handshake_timeout,omitempty"`
}

// check validates what can be checked without reading the files.
func (c *TokenTLS) check() error {
	if (c.ClientCertificateFile == "") != (c.ClientCertificateKeyFile == "") {
		return errors.New("tls: client_certificate_file and client_certificate_key_file go together")
	}
	if c.HandshakeTimeout < 0 {
		return errors.New("tls: handshake_timeout must not be negative")
	}
	for _, f := range c.RootCAPEMFiles {
		if f == "" {
			return errors.New("tls: root_ca_pem_files has an empty file name")
		}
	}
	return nil
}

// loginTLS is a loaded TokenTLS.
type loginTLS struct {
	config *tls.Config
	// digest covers the content of every file and every setting, so that a
	// renewed certificate or a new CA under the same file name makes a new
	// token client.
	digest string
	// fields describe the set-up for the log: file names, certificate
	// subjects and expiry, never key material.
	fields []zap.Field
	// clientNotAfter is when the client certificate expires, if there is one.
	clientNotAfter time.Time
}

// load reads the files. Errors name the file.
func (c *TokenTLS) load() (*loginTLS, error) {
	if err := c.check(); err != nil {
		return nil, err
	}
	h := sha256.New()
	add := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s", len(p), p)
		}
	}
	cfg := &tls.Config{ServerName: c.ServerName, InsecureSkipVerify: c.InsecureSkipVerify}
	out := &loginTLS{config: cfg}
	add(c.ServerName, fmt.Sprint(c.InsecureSkipVerify), fmt.Sprint(time.Duration(c.HandshakeTimeout)))

	if len(c.RootCAPEMFiles) > 0 {
		cfg.RootCAs = x509.NewCertPool()
		var subjects []string
		for _, file := range c.RootCAPEMFiles {
			data, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("tls: reading CA file: %w", err)
			}
			certs, err := parseCertificatesPEM(data)
			if err != nil {
				return nil, fmt.Errorf("tls: CA file %q: %w", file, err)
			}
			for _, cert := range certs {
				cfg.RootCAs.AddCert(cert)
				subjects = append(subjects, cert.Subject.String())
			}
			add("ca", string(data))
		}
		out.fields = append(out.fields, zap.Strings("tls_ca_files", c.RootCAPEMFiles), zap.Strings("tls_ca_subjects", subjects))
	}

	if c.ClientCertificateFile != "" {
		certPEM, err := os.ReadFile(c.ClientCertificateFile)
		if err != nil {
			return nil, fmt.Errorf("tls: reading client certificate file: %w", err)
		}
		keyPEM, err := os.ReadFile(c.ClientCertificateKeyFile)
		if err != nil {
			// os errors name the file, never its content.
			return nil, fmt.Errorf("tls: reading client certificate key file: %w", err)
		}
		if _, err := parseCertificatesPEM(certPEM); err != nil {
			return nil, fmt.Errorf("tls: client certificate file %q: %w", c.ClientCertificateFile, err)
		}
		// crypto/tls's errors say what is wrong with the pair, never
		// what the key is.
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("tls: client certificate %q with key %q: %w", c.ClientCertificateFile, c.ClientCertificateKeyFile, err)
		}
		if pair.Leaf == nil {
			if pair.Leaf, err = x509.ParseCertificate(pair.Certificate[0]); err != nil {
				return nil, fmt.Errorf("tls: client certificate file %q: %w", c.ClientCertificateFile, err)
			}
		}
		// Always present the configured certificate, as curl does: Go's
		// own choice sends none when the service names CAs that did not
		// issue it, and the service's "certificate required" would hide
		// that the certificate is the wrong one.
		out.clientNotAfter = pair.Leaf.NotAfter
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &pair, nil }
		add("cert", string(certPEM), "key", string(keyPEM))
		out.fields = append(out.fields,
			zap.String("tls_client_certificate", c.ClientCertificateFile),
			zap.String("tls_client_subject", pair.Leaf.Subject.String()),
			zap.String("tls_client_issuer", pair.Leaf.Issuer.String()),
			zap.Time("tls_client_not_after", pair.Leaf.NotAfter))
	}
	if c.ServerName != "" {
		out.fields = append(out.fields, zap.String("tls_server_name", c.ServerName))
	}
	out.digest = hex.EncodeToString(h.Sum(nil))
	return out, nil
}

// parseCertificatesPEM returns the CERTIFICATE blocks of data: at least
// one, all of them valid X.509.
func parseCertificatesPEM(data []byte) ([]*x509.Certificate, error) {
	var certs []*x509.Certificate
	for n := 1; ; n++ {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: %w", n, err)
		}
		certs = append(certs, cert)
	}
	if len(certs) == 0 {
		return nil, errors.New("no PEM CERTIFICATE block")
	}
	return certs, nil
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
