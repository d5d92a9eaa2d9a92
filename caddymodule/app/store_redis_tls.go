package app

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// RedisTLS configures TLS to Redis; empty, the system's roots verify
// Redis's certificate.
type RedisTLS struct {
	// CA is a PEM file of the roots Redis's certificate must chain to.
	CA string `json:"ca,omitempty"`
	// ServerName is the name the certificate must have. Default: the
	// address's host.
	ServerName string `json:"server_name,omitempty"`
	// Certificate and Key are PEM files of a client certificate, for a
	// Redis that asks for one.
	Certificate string `json:"certificate,omitempty"`
	Key         string `json:"key,omitempty"`
}

// config builds the tls.Config.
func (t *RedisTLS) config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if t.CA != "" {
		pem, err := os.ReadFile(t.CA)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca %s holds no PEM certificate", t.CA)
		}
	}
	if (t.Certificate == "") != (t.Key == "") {
		return nil, errors.New("certificate and key go together")
	}
	if t.Certificate != "" {
		c, err := tls.LoadX509KeyPair(t.Certificate, t.Key)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	return cfg, nil
}
