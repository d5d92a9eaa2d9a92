package command

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func TestKeygenWritesPairAndSnippets(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	err := runOSDMKeygen(keygenOptions{alg: "ES384", kid: "legacy-2026-01", out: dir, subject: "example-railway"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	priv, err := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "legacy-2026-01.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := priv.(*ecdsa.PrivateKey); !ok || k.Curve != elliptic.P384() {
		t.Fatalf("key %T", priv)
	}
	pubPEM, _ := os.ReadFile(filepath.Join(dir, "legacy-2026-01.pub"))
	text := out.String()
	for _, want := range []string{
		string(pubPEM),
		"client example-railway {\n\t\talg ES384\n\t\tkey legacy-2026-01 /etc/osdm/clients/legacy-2026-01.pub\n\t}",
		"key_file " + filepath.Join(dir, "legacy-2026-01.pem"),
		"kid      legacy-2026-01",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "PRIVATE KEY") {
		t.Fatal("the private key was printed")
	}
	// Never overwrites.
	before, _ := os.ReadFile(filepath.Join(dir, "legacy-2026-01.pem"))
	if err := runOSDMKeygen(keygenOptions{alg: "EdDSA", kid: "legacy-2026-01", out: dir}, &out); err == nil {
		t.Fatal("overwrote an existing key")
	}
	after, _ := os.ReadFile(filepath.Join(dir, "legacy-2026-01.pem"))
	if !bytes.Equal(before, after) {
		t.Fatal("existing key changed")
	}
	// --name, RSA 3072.
	if err := runOSDMKeygen(keygenOptions{alg: "PS256", kid: "k2", out: dir, name: "rsa"}, &out); err != nil {
		t.Fatal(err)
	}
	if k, _ := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "rsa.pem")); k.(*rsa.PrivateKey).N.BitLen() != 3072 {
		t.Fatal("RSA key is not 3072 bits")
	}
}

func TestKeygenRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	for name, o := range map[string]keygenOptions{
		"no alg":         {kid: "k", out: dir},
		"no kid":         {alg: "ES256", out: dir},
		"no out":         {alg: "ES256", kid: "k"},
		"HMAC":           {alg: "HS256", kid: "k", out: dir},
		"kid with space": {alg: "ES256", kid: "a b", out: dir},
		"name with path": {alg: "ES256", kid: "k", out: dir, name: "../k"},
		"demo and alg":   {demo: dir, alg: "ES256"},
	} {
		if err := runOSDMKeygen(o, &bytes.Buffer{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files written: %v", entries)
	}
}

func TestKeygenDemoSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	if err := runOSDMKeygen(keygenOptions{demo: dir}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"alpine.pem", "alpine.pub", "coastal.pem", "coastal.pub", "hermes.pem", "hermes.pub", "login.pem", "login.pub"}
	if !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v", names, want)
	}
	login, _ := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "login.pem"))
	alpine, _ := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "alpine.pem"))
	coastal, _ := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "coastal.pem"))
	if k, ok := login.(*ecdsa.PrivateKey); !ok || k.Curve != elliptic.P256() {
		t.Fatalf("login key %T", login)
	}
	if k, ok := alpine.(*rsa.PrivateKey); !ok || k.N.BitLen() != 2048 {
		t.Fatalf("alpine key %T", alpine)
	}
	if _, ok := coastal.(ed25519.PrivateKey); !ok {
		t.Fatalf("coastal key %T", coastal)
	}
	hermes, _ := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "hermes.pem"))
	if k, ok := hermes.(*ecdsa.PrivateKey); !ok || k.Curve != elliptic.P256() {
		t.Fatalf("hermes key %T", hermes)
	}
	// A second run keeps every file as it is.
	before, _ := os.ReadFile(filepath.Join(dir, "alpine.pem"))
	if err := runOSDMKeygen(keygenOptions{demo: dir}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "alpine.pem")); !bytes.Equal(before, after) {
		t.Fatal("demo key overwritten")
	}
	// A demo set made before the hermes key gains it and keeps the rest.
	for _, f := range []string{"hermes.pem", "hermes.pub"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := runOSDMKeygen(keygenOptions{demo: dir}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "hermes.pem")); err != nil {
		t.Fatalf("hermes key not recreated: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "alpine.pem")); !bytes.Equal(before, after) {
		t.Fatal("demo key overwritten when adding hermes")
	}
	// Half a pair is an error, not a silent regeneration.
	if err := os.Remove(filepath.Join(dir, "coastal.pub")); err != nil {
		t.Fatal(err)
	}
	if err := runOSDMKeygen(keygenOptions{demo: dir}, &bytes.Buffer{}); err == nil {
		t.Fatal("half a pair accepted")
	}
}

// TestKeygenIsACaddySubcommand: `caddy osdm-keygen` is registered with
// caddycmd and runs from its flags.
func TestKeygenIsACaddySubcommand(t *testing.T) {
	c, ok := caddycmd.Commands()["osdm-keygen"]
	if !ok {
		t.Fatal("osdm-keygen is not registered")
	}
	cmd := &cobra.Command{Use: c.Name}
	c.CobraFunc(cmd)
	dir := t.TempDir()
	for flag, val := range map[string]string{"alg": "EdDSA", "kid": "cli-1", "out": dir, "subject": "example-railway"} {
		if err := cmd.Flags().Set(flag, val); err != nil {
			t.Fatalf("--%s: %v", flag, err)
		}
	}
	if err := cmd.RunE(cmd, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tokenauth.LoadPublicKeyFile(filepath.Join(dir, "cli-1.pub")); err != nil {
		t.Fatal(err)
	}
	if k, err := tokenauth.LoadPrivateKeyFile(filepath.Join(dir, "cli-1.pem")); err != nil {
		t.Fatal(err)
	} else if _, ok := k.(ed25519.PrivateKey); !ok {
		t.Fatalf("key %T, want Ed25519", k)
	}
}
