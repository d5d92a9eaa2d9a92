package consumer

import (
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"github.com/dustin/go-humanize"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
)

func init() {
	glue.RegisterHandlerThen("osdm_token", func(h httpcaddyfile.Helper, t *Token) error {
		h.Reset()
		h.Next() // the directive name, where a missing partner is reported
		routePartnerOf(h).tokenParsed(h.File(), h.Line(), t)
		return nil
	})
}

// tokenSubdirectives are the subdirectives of osdm_token, offered when a
// name is mistyped.
var tokenSubdirectives = []string{"token_url", "key_file", "kid", "issuer", "subject", "audience", "alg", "scope", "grant", "header",
	"lifetime", "refresh_ahead", "default_expires_in", "max_replay_body", "partner", "login_timeout",
	"tls_trusted_ca_certs", "tls_trust_pool", "tls_client_auth", "tls_server_name", "tls_insecure_skip_verify", "tls_timeout",
	"tls_curves", "tls_renegotiation"}

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
//		# TLS of the login call (https token_url only): the tls_*
//		# subdirectives of reverse_proxy's http transport, read by its
//		# own parser, e.g.:
//		tls_trust_pool       <module> ...   # e.g. tls_trust_pool file <pem_file>...
//		tls_trusted_ca_certs <pem_file> [<pem_file>...]
//		tls_client_auth      <cert_file> <key_file> | <automate_name>
//		tls_server_name      <name>
//		tls_insecure_skip_verify
//		tls_timeout          <duration>     # handshake; default: 10s
//		tls_curves           <curves...>
//		tls_renegotiation    never|once|freely
//	}
//
// token_url, key_file, kid and subject are required.
func (t *Token) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	stringOpts := map[string]*string{
		"token_url": &t.TokenURL, "key_file": &t.KeyFile, "kid": &t.KeyID, "issuer": &t.Issuer,
		"subject": &t.Subject, "audience": &t.Audience, "alg": &t.Alg, "scope": &t.Scope,
		"grant": &t.Grant, "header": &t.Header, "partner": &t.Partner,
	}
	durations := map[string]*caddy.Duration{
		"lifetime": &t.Lifetime, "refresh_ahead": &t.RefreshAhead, "default_expires_in": &t.DefaultExpiresIn,
		"login_timeout": &t.LoginTimeout,
	}
	tlsOpts := new(reverseproxy.HTTPTransport)
	at, err := glue.Directive(d, nil, func(name string) error {
		if strings.HasPrefix(name, "tls_") && slices.Contains(tokenSubdirectives, name) {
			if err := unmarshalTLSOption(d, tlsOpts); err != nil {
				return err
			}
			t.TLS = tlsOpts.TLS
			return nil
		}
		_, isString := stringOpts[name]
		_, isDuration := durations[name]
		if !isString && !isDuration && name != "max_replay_body" {
			return d.Err(glue.UnknownSubdirective("subdirective", name, tokenSubdirectives))
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
			*stringOpts[name] = arg
		case isDuration:
			dur, err := caddy.ParseDuration(arg)
			if err != nil {
				return d.Errf("%s %q: %v", name, arg, err)
			}
			*durations[name] = caddy.Duration(dur)
		default: // max_replay_body
			size, err := humanize.ParseBytes(arg)
			if err != nil || size > 1<<40 {
				return d.Errf("max_replay_body %q: not a size like 1MiB", arg)
			}
			t.MaxReplayBody = int64(size)
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Validate now, so that the error names the Caddyfile and the
	// directive's line.
	return at.Err(t.Validate())
}

// unmarshalTLSOption reads the tls_* subdirective at d (with its block,
// if any) into opts.TLS with reverse_proxy's own parser of its http
// transport, so that the login service's TLS is written as the partner
// API's is.
func unmarshalTLSOption(d *caddyfile.Dispenser, opts *reverseproxy.HTTPTransport) error {
	toks := d.NextSegment()
	// The http transport's parser reads a block: wrap the subdirective's
	// tokens in one, on lines of their own around it.
	first, last := toks[0], toks[len(toks)-1]
	open := caddyfile.Token{File: first.File, Line: first.Line - 1, Text: "http"}
	brace := open
	brace.Text = "{"
	closing := caddyfile.Token{File: last.File, Line: last.Line + 1, Text: "}"}
	block := append(append([]caddyfile.Token{open, brace}, toks...), closing)
	return opts.UnmarshalCaddyfile(caddyfile.NewDispenser(block))
}
