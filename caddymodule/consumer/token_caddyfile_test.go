package consumer

import (
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

func TestTokenUnmarshalCaddyfile(t *testing.T) {
	src := `osdm_token {
		token_url          https://login.sncf.example/oauth/token
		key_file           /etc/osdm/sncf.pem
		kid                legacy-2026-01
		issuer             https://reservations.example-railway.eu
		subject            example-railway
		audience           https://login.sncf.example/aud
		alg                PS256
		scope              "uic_osdm extra"
		grant              client_assertion
		header             Authorization
		lifetime           300s
		refresh_ahead      30s
		default_expires_in 10m
		max_replay_body    2MiB
		partner            sncf
	}`
	harness.CheckUnmarshal(t, src, new(Token), &Token{
		Partner: "sncf", TokenURL: "https://login.sncf.example/oauth/token", KeyFile: "/etc/osdm/sncf.pem",
		KeyID: "legacy-2026-01", Issuer: "https://reservations.example-railway.eu", Subject: "example-railway",
		Audience: "https://login.sncf.example/aud", Alg: "PS256", Scope: "uic_osdm extra", Grant: "client_assertion",
		Header: "Authorization", Lifetime: caddy.Duration(300 * time.Second), RefreshAhead: caddy.Duration(30 * time.Second),
		DefaultExpiresIn: caddy.Duration(10 * time.Minute), MaxReplayBody: 2 << 20,
	})
}

func TestTokenUnmarshalCaddyfileErrors(t *testing.T) {
	const base = `
		token_url https://login.example/oauth/token
		key_file  /k.pem
		kid       k1
		subject   me
`
	for _, tc := range []struct {
		name, block, want string
	}{
		{"missing token_url", "key_file /k.pem\nkid k\nsubject s\nissuer i", "osdm_token: token_url is required"},
		{"missing subject", "token_url https://l/t\nkey_file /k.pem\nkid k\nissuer i", "osdm_token: subject is required"},
		{"missing issuer with jwt_bearer", base, "issuer is required with grant jwt_bearer"},
		{"unknown", base + "issuer i\nclient_secret x", `unrecognized subdirective "client_secret"`},
		{"repeated", base + "issuer i\nkid k2", "kid already specified"},
		{"no value", base + "issuer i\nscope", "wrong argument count"},
		{"two values", base + "issuer i\nscope a b", "wrong argument count"},
		{"short lifetime", base + "issuer i\nlifetime 60s", "lifetime 1m0s is below the minimum of 2m0s"},
		{"bad duration", base + "issuer i\nlifetime soon", `lifetime "soon"`},
		{"scope with an empty token", base + "issuer i\nscope \"uic_osdm  extra\"", `osdm_token: scope "uic_osdm  extra": want scope tokens of printable ASCII (no " or \) separated by single spaces (RFC 6749 section 3.3), at Testfile:1`},
		{"scope with a tab", base + "issuer i\nscope \"uic_osdm\textra\"", `scope "uic_osdm\textra": want scope tokens`},
		{"negative refresh_ahead", base + "issuer i\nrefresh_ahead -5s", "osdm_token: refresh_ahead -5s must not be negative, at Testfile:1"},
		{"negative default_expires_in", base + "issuer i\ndefault_expires_in -1m", "osdm_token: default_expires_in -1m0s must not be negative, at Testfile:1"},
		{"bad grant", base + "grant password", `grant "password": want jwt_bearer or client_assertion`},
		{"bad alg", base + "issuer i\nalg HS256", `unsupported alg "HS256"`},
		{"bad header", base + "issuer i\nheader \"Bad Header\"", `header "Bad Header" is not a valid HTTP header name`},
		{"relative token_url", "token_url /oauth/token\nkey_file /k\nkid k\nsubject s\nissuer i", "is not an absolute http(s) URL"},
		{"token_url with a password", "token_url https://rail:s3cret@login.example/t\nkey_file /k\nkid k\nsubject s\nissuer i", `osdm_token: token_url "https://rail:xxxxx@login.example/t" must not carry a user or password`},
		{"bad size", base + "issuer i\nmax_replay_body lots", `max_replay_body "lots"`},
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
	// client_assertion needs no issuer: it defaults to subject.
	if err := harness.TryUnmarshal(new(Token), harness.Block("osdm_token", base+"grant client_assertion")); err != nil {
		t.Fatalf("client_assertion without issuer: %v", err)
	}
}

// A whole Caddyfile with a bad osdm_token block fails to adapt, naming the
// file and the line.
func TestTokenCaddyfileAdaptErrorNamesFileAndLine(t *testing.T) {
	for _, tc := range []struct{ name, block, want string }{
		{"bad", "lifetime 30s", "lifetime 30s is below the minimum of 2m0s, at Caddyfile:3"},
		{"missing", "", "Caddyfile:3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cf := `:8080 {
	route /partners/sncf {
		osdm_token {
			token_url https://login.sncf.example/oauth/token
			key_file  /etc/osdm/sncf.pem
			kid       legacy-2026-01
			issuer    https://reservations.example-railway.eu
			` + map[bool]string{true: "", false: "subject   example-railway"}[tc.name == "missing"] + `
			` + tc.block + `
		}
		reverse_proxy https://osdm.sncf.example {
			transport osdm
		}
	}
}
`
			err := harness.TryAdapt("Caddyfile", cf)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// sncfTokenCaddyfile is a Caddyfile whose route goes to the SNCF partner
// through osdm_token (the key legacy-2026-01 of example-railway, grant
// client_assertion) with more of its subdirectives, one an element.
func sncfTokenCaddyfile(more ...string) string {
	return `:8080 {
	route {
		osdm_token {
			token_url https://login.sncf.example/oauth/token
			key_file /etc/osdm/sncf.pem
			kid legacy-2026-01
			subject example-railway
			grant client_assertion
			` + strings.Join(more, "\n\t\t\t") + `
		}
		reverse_proxy https://osdm.sncf.example {
			transport osdm
		}
	}
}
`
}

// The adapted JSON carries exactly what was written, not filled-in
// defaults, so `caddy adapt` output round-trips.
func TestTokenCaddyfileAdaptJSON(t *testing.T) {
	harness.CheckAdaptedJSON(t, sncfTokenCaddyfile("lifetime 5m"),
		`{"grant":"client_assertion","handler":"osdm_token","key_file":"/etc/osdm/sncf.pem","kid":"legacy-2026-01","lifetime":300000000000,"subject":"example-railway","token_url":"https://login.sncf.example/oauth/token"}`)
}
