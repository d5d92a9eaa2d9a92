package consumer

import (
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	"github.com/dustin/go-humanize"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

func init() {
	modulekit.RegisterHandlerThen("osdm_token", func(h httpcaddyfile.Helper, t *Token) error {
		h.Reset()
		h.Next() // the directive name, where a missing partner is reported
		routePartnerOf(h).tokenParsed(h.File(), h.Line(), t)
		return nil
	})
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
	return t.caddyfileTable().Unmarshal(d, t.Validate)
}

// tokenTLSSubdirectives are the tls_* subdirectives of reverse_proxy's
// http transport that osdm_token takes for its login call.
var tokenTLSSubdirectives = []string{"tls_trusted_ca_certs", "tls_trust_pool", "tls_client_auth", "tls_server_name", "tls_insecure_skip_verify", "tls_timeout",
	"tls_curves", "tls_renegotiation"}

// caddyfileTable is osdm_token's subdirectives, read into t.
func (t *Token) caddyfileTable() modulekit.Table {
	subs := []modulekit.Sub{
		modulekit.String("token_url", &t.TokenURL), modulekit.String("key_file", &t.KeyFile), modulekit.String("kid", &t.KeyID),
		modulekit.String("issuer", &t.Issuer), modulekit.String("subject", &t.Subject), modulekit.String("audience", &t.Audience),
		modulekit.String("alg", &t.Alg), modulekit.String("scope", &t.Scope), modulekit.String("grant", &t.Grant),
		modulekit.String("header", &t.Header), anyDuration("lifetime", &t.Lifetime),
		anyDuration("refresh_ahead", &t.RefreshAhead), anyDuration("default_expires_in", &t.DefaultExpiresIn),
		modulekit.Func("max_replay_body", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			size, err := humanize.ParseBytes(args[0])
			if err != nil || size > 1<<40 {
				return d.Errf("max_replay_body %q: not a size like 1MiB", args[0])
			}
			t.MaxReplayBody = int64(size)
			return nil
		}),
		modulekit.String("partner", &t.Partner), anyDuration("login_timeout", &t.LoginTimeout),
	}
	tlsOpts := new(reverseproxy.HTTPTransport)
	for _, name := range tokenTLSSubdirectives {
		subs = append(subs, modulekit.Sub{Name: name, Raw: true, Parse: func(d *caddyfile.Dispenser, _ []string) error {
			if err := unmarshalTLSOption(d, tlsOpts); err != nil {
				return err
			}
			t.TLS = tlsOpts.TLS
			return nil
		}})
	}
	return modulekit.Table{Subs: subs}
}

// anyDuration is a subdirective of one duration that Validate checks (0
// is the default, as in JSON).
func anyDuration(name string, dst *caddy.Duration) modulekit.Sub {
	return modulekit.Func(name, 1, 1, func(d *caddyfile.Dispenser, args []string) error {
		dur, err := caddy.ParseDuration(args[0])
		if err != nil {
			return d.Errf("%s %q: %v", name, args[0], err)
		}
		*dst = caddy.Duration(dur)
		return nil
	})
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
