package command

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/golang-jwt/jwt/v5"
	"github.com/spf13/cobra"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// TestTokenIsACaddySubcommand: `caddy osdm-token` is registered with
// caddycmd, and each of its flags reaches the login it makes.
func TestTokenIsACaddySubcommand(t *testing.T) {
	c, ok := caddycmd.Commands()["osdm-token"]
	if !ok {
		t.Fatal("osdm-token is not registered")
	}
	keyFile := writeKey(t, "ES384")
	var form map[string][]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		form = r.PostForm
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"access_token":"access-1","token_type":"Bearer","expires_in":300}`)
	}))
	defer srv.Close()

	cmd := &cobra.Command{Use: c.Name}
	c.CobraFunc(cmd)
	if got := cmd.Flags().Lookup("timeout").DefValue; got != "30s" {
		t.Errorf("--timeout defaults to %s, want 30s", got)
	}
	for flag, val := range map[string]string{
		"token-url": srv.URL + "/token", "key-file": keyFile, "kid": "cli-1", "issuer": "iss-1", "subject": "sub-1",
		"audience": "aud-1", "scope": "scope-1", "grant": "client_assertion", "alg": "ES384", "timeout": "5s",
	} {
		if err := cmd.Flags().Set(flag, val); err != nil {
			t.Fatalf("--%s: %v", flag, err)
		}
	}
	var runErr error
	out := captureStdout(t, func() { runErr = cmd.RunE(cmd, nil) })
	if runErr != nil {
		t.Fatal(runErr)
	}
	if out != "access-1\n" {
		t.Errorf("printed %q, want the access token and a newline", out)
	}
	if got := form["grant_type"]; len(got) != 1 || got[0] != "client_credentials" {
		t.Errorf("grant_type %q, want client_credentials (--grant client_assertion)", got)
	}
	if got := form["scope"]; len(got) != 1 || got[0] != "scope-1" {
		t.Errorf("scope %q, want --scope's", got)
	}
	assertion := form["client_assertion"]
	if len(assertion) != 1 {
		t.Fatalf("client_assertion %q", assertion)
	}
	tok, _, err := jwt.NewParser().ParseUnverified(assertion[0], jwt.MapClaims{})
	if err != nil {
		t.Fatal(err)
	}
	claims := tok.Claims.(jwt.MapClaims)
	aud, _ := claims.GetAudience()
	for _, c := range []struct {
		name string
		got  any
		want string
	}{
		{"kid", tok.Header["kid"], "cli-1"}, {"alg", tok.Header["alg"], "ES384"}, {"iss", claims["iss"], "iss-1"},
		{"sub", claims["sub"], "sub-1"}, {"aud", strings.Join(aud, " "), "aud-1"}, {"scope", claims["scope"], "scope-1"},
	} {
		if c.got != c.want {
			t.Errorf("identity token %s %v, want %s (its flag)", c.name, c.got, c.want)
		}
	}
}

// TestTokenCommandFails: a failing osdm-token returns its error from RunE.
func TestTokenCommandFails(t *testing.T) {
	c := caddycmd.Commands()["osdm-token"]
	cmd := &cobra.Command{Use: c.Name}
	c.CobraFunc(cmd)
	if err := cmd.Flags().Set("kid", "cli-1"); err != nil {
		t.Fatal(err)
	}
	err := cmd.RunE(cmd, nil)
	if err == nil || !strings.Contains(err.Error(), "--token-url, --key-file, --kid and --subject are required") {
		t.Fatalf("err %v, want the required flags named", err)
	}
}

// TestTokenLoginRulesSpeakOfFlags: osdm-token refuses a grant or a
// missing issuer by its flag, and labels the partner in a login error by
// the token URL's host name, as osdm_token does.
func TestTokenLoginRulesSpeakOfFlags(t *testing.T) {
	keyFile := writeKey(t, "ES256")
	var assertion string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assertion = r.PostFormValue("client_assertion")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"invalid_grant","error_description":"unknown kid"}`)
	}))
	defer srv.Close()
	base := TokenOptions{TokenURL: srv.URL + "/token", KeyFile: keyFile, Kid: "cli-1", Subject: "sub-1", Issuer: "iss-1"}
	for _, tc := range []struct {
		name string
		edit func(*TokenOptions)
		want string
	}{
		{"no issuer", func(o *TokenOptions) { o.Issuer = "" }, "--issuer is required with grant jwt_bearer"},
		{"unknown grant", func(o *TokenOptions) { o.Grant = "password" }, `--grant "password": want jwt_bearer or client_assertion`},
		{"refused", func(*TokenOptions) {}, `login at partner "127.0.0.1" failed: HTTP 400 invalid_grant: unknown kid`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.edit(&o)
			var out strings.Builder
			err := RunToken(t.Context(), o, &out)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if out.Len() != 0 {
				t.Fatalf("printed %q with an error", out.String())
			}
		})
	}
	// With client_assertion the issuer is the subject.
	o := base
	o.Grant, o.Issuer = "client_assertion", ""
	if err := RunToken(t.Context(), o, io.Discard); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
		t.Fatalf("client_assertion without --issuer: %v, want the login service's refusal", err)
	}
	tok, _, err := jwt.NewParser().ParseUnverified(assertion, jwt.MapClaims{})
	if err != nil {
		t.Fatal(err)
	}
	if iss := tok.Claims.(jwt.MapClaims)["iss"]; iss != "sub-1" {
		t.Fatalf("client_assertion without --issuer: iss %v, want --subject's sub-1", iss)
	}
}

// writeKey is the PEM file of a new alg key.
func writeKey(t *testing.T, alg string) string {
	t.Helper()
	key, err := tokenauth.GenerateKey(alg)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, _, err := tokenauth.WriteKeyPair(t.TempDir(), "cli", key)
	if err != nil {
		t.Fatal(err)
	}
	return keyFile
}

// captureStdout is what f writes to os.Stdout.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = stdout }()
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	f()
	w.Close()
	return string(<-done)
}
