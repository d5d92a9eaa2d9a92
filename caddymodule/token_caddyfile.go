package caddymodule

import (
	"fmt"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/dustin/go-humanize"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	httpcaddyfile.RegisterHandlerDirective("osdm_token", parseTokenCaddyfile)
}

func parseTokenCaddyfile(h httpcaddyfile.Helper) (caddyhttp.MiddlewareHandler, error) {
	t := new(Token)
	h.Reset()
	h.Next()
	file, line := h.File(), h.Line()
	h.Reset()
	if err := t.UnmarshalCaddyfile(h.Dispenser); err != nil {
		return nil, err
	}
	routePartnerOf(h).tokenParsed(file, line, t)
	return t, nil
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	osdm_token {
//		token_url          <url>
//		key_file           <path>
//		kid                <key id>
//		issuer             <iss>            # required with grant jwt_bearer
//		subject            <sub>
//		audience           <aud>            # default: token_url
//		alg                <RS256|RS384|RS512|PS256|PS384|PS512|ES256|ES384|ES512|EdDSA>
//		scope              <scope>          # default: uic_osdm
//		grant              <jwt_bearer|client_assertion>
//		header             <name>           # default: Authenticate
//		lifetime           <duration>       # default: 300s, at least 120s
//		refresh_ahead      <duration>       # default: 10% of the token lifetime, at least 5s
//		default_expires_in <duration>       # default: 5m
//		max_replay_body    <size>           # default: 1MiB
//		partner            <label>          # default: the partner of the osdm_convert in the same route, else the host of token_url
//		login_timeout      <duration>       # default: 30s
//
//		# TLS of the login call (https token_url only), named as in
//		# reverse_proxy's http transport:
//		tls_trusted_ca_certs <pem_file> [<pem_file>...]  # or: tls_trust_pool file <pem_file>...
//		tls_client_auth      <cert_file> <key_file>
//		tls_server_name      <name>
//		tls_insecure_skip_verify
//		tls_timeout          <duration>     # handshake; default: 10s
//	}
//
// token_url, key_file, kid and subject are required.
func (t *Token) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the directive name
	file, line := d.File(), d.Line()
	if d.NextArg() {
		return d.ArgErr()
	}
	stringOpts := map[string]*string{
		"token_url": &t.TokenURL, "key_file": &t.KeyFile, "kid": &t.KeyID, "issuer": &t.Issuer,
		"subject": &t.Subject, "audience": &t.Audience, "alg": &t.Alg, "scope": &t.Scope,
		"grant": &t.Grant, "header": &t.Header, "partner": &t.Partner,
	}
	durations := map[string]*caddy.Duration{
		"lifetime": &t.Lifetime, "refresh_ahead": &t.RefreshAhead, "default_expires_in": &t.DefaultExpiresIn,
		"login_timeout": &t.LoginTimeout,
	}
	seen := map[string]bool{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		name := d.Val()
		if seen[name] {
			return d.Errf("%s already specified", name)
		}
		seen[name] = true
		if strings.HasPrefix(name, "tls_") {
			if err := t.unmarshalTLSOption(d, seen); err != nil {
				return err
			}
			continue
		}
		_, isString := stringOpts[name]
		_, isDuration := durations[name]
		if !isString && !isDuration && name != "max_replay_body" {
			return d.Err(unknownSubdirective("subdirective", name, tokenSubdirectives))
		}
		var arg string
		if !d.Args(&arg) {
			return d.ArgErr()
		}
		if d.NextArg() {
			return d.ArgErr()
		}
		switch {
		case isString:
			if err := checkTokenValue(name, arg); err != nil {
				return d.Err(err.Error())
			}
			*stringOpts[name] = arg
		case isDuration:
			dur, err := caddy.ParseDuration(arg)
			if err != nil {
				return d.Errf("%s %q: %v", name, arg, err)
			}
			if dur < 0 {
				return d.Errf("%s must not be negative", name)
			}
			if name == "lifetime" && dur < tokenauth.MinIdentityLifetime {
				return d.Errf("lifetime %s is below the minimum of %s", dur, tokenauth.MinIdentityLifetime)
			}
			*durations[name] = caddy.Duration(dur)
		default: // max_replay_body
			size, err := humanize.ParseBytes(arg)
			if err != nil || size > 1<<40 {
				return d.Errf("max_replay_body %q: not a size like 1MiB", arg)
			}
			t.MaxReplayBody = int64(size)
		}
	}
	// Check the whole block now, so that the error names the Caddyfile and
	// the directive's line; Provision checks the same for JSON configurations.
	if err := t.checkConfig(); err != nil {
		return fmt.Errorf("osdm_token: %v, at %s:%d", err, file, line)
	}
	return nil
}

// unmarshalTLSOption reads one tls_* subdirective into t.TLS.
func (t *Token) unmarshalTLSOption(d *caddyfile.Dispenser, seen map[string]bool) error {
	if t.TLS == nil {
		t.TLS = new(TokenTLS)
	}
	name, args := d.Val(), d.RemainingArgs()
	switch name {
	case "tls_trusted_ca_certs", "tls_trust_pool":
		if seen["tls_trusted_ca_certs"] && seen["tls_trust_pool"] {
			return d.Err("tls_trusted_ca_certs and tls_trust_pool both name the trusted CAs: use one")
		}
		if name == "tls_trust_pool" {
			if len(args) == 0 || args[0] != "file" {
				return d.Err("tls_trust_pool: osdm_token takes only the file source: tls_trust_pool file <pem_file>...")
			}
			if d.NextBlock(d.Nesting()) {
				return d.Err("tls_trust_pool file: give the PEM files as arguments, not in a block")
			}
			args = args[1:]
		}
		if len(args) == 0 {
			return d.Errf("%s needs at least one PEM file", name)
		}
		t.TLS.RootCAPEMFiles = args
	case "tls_client_auth":
		if len(args) != 2 {
			return d.Err("tls_client_auth takes <cert_file> <key_file> (the automated certificate form of reverse_proxy is not supported)")
		}
		t.TLS.ClientCertificateFile, t.TLS.ClientCertificateKeyFile = args[0], args[1]
	case "tls_server_name":
		if len(args) != 1 {
			return d.ArgErr()
		}
		t.TLS.ServerName = args[0]
	case "tls_insecure_skip_verify":
		if len(args) != 0 {
			return d.ArgErr()
		}
		t.TLS.InsecureSkipVerify = true
	case "tls_timeout":
		if len(args) != 1 {
			return d.ArgErr()
		}
		dur, err := caddy.ParseDuration(args[0])
		if err != nil {
			return d.Errf("tls_timeout %q: %v", args[0], err)
		}
		if dur <= 0 {
			return d.Err("tls_timeout must be positive")
		}
		t.TLS.HandshakeTimeout = caddy.Duration(dur)
	default:
		return d.Err(unknownSubdirective("subdirective", name, tokenSubdirectives))
	}
	return nil
}

// checkTokenValue rejects subdirective values that cannot be right
// whatever the rest of the block says.
func checkTokenValue(name, val string) error {
	switch name {
	case "grant":
		if val != "jwt_bearer" && val != "client_assertion" {
			return fmt.Errorf("grant %q: want jwt_bearer or client_assertion", val)
		}
	case "header":
		if !validHeaderName(val) {
			return fmt.Errorf("header %q is not a valid HTTP header name", val)
		}
	case "alg":
		if _, err := tokenauth.SigningMethod(val); err != nil {
			return err
		}
	}
	return nil
}

// checkConfig runs the configuration checks of Provision on a copy, which
// keeps the JSON that `caddy adapt` prints free of filled-in defaults.
func (t *Token) checkConfig() error {
	c := *t
	return c.applyDefaults()
}

// Interface guard
var _ caddyfile.Unmarshaler = (*Token)(nil)
