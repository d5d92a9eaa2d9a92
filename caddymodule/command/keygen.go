package command

import (
	"crypto"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/caddyserver/caddy/v2"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "osdm-keygen",
		Usage: "--alg <alg> --kid <kid> --out <dir> [--name <name>] [--subject <sub>] | --demo <dir>",
		Short: "Generates a key pair for OSDM token authentication",
		Long: `
Generates the key pair a consumer railway signs its identity tokens with
(or a login service signs its access tokens with), for the bilateral set-up
of OSDM token authentication.

--alg is RS256/384/512 or PS256/384/512 (RSA 3072), ES256/384/512 (EC
P-256/384/521) or EdDSA (Ed25519). NAME.pem (PKCS#8, mode 0600) and
NAME.pub (PKIX) are written in --out; NAME defaults to the kid. Existing
files are never overwritten. The command prints the public key and the
lines to configure on the provider side (osdm_login client block) and on
the consumer side (osdm_token).

--demo DIR creates the keys Caddyfile.example uses, those missing only:
login.pem/.pub (ES256, kid demo-login), alpine.pem/.pub (RS256, RSA 2048,
kid alpine-demo-1), coastal.pem/.pub (EdDSA, kid coastal-demo-1),
hermes.pem/.pub (ES256, kid hermes-demo-1: the OSDM client of the reverse
chain, osdm-token and the /partners/hermes route).`,
		CobraFunc: func(cmd *cobra.Command) {
			cmd.Flags().String("alg", "", "JWS algorithm the key signs with")
			cmd.Flags().String("kid", "", "key id (kid header) agreed with the provider")
			cmd.Flags().String("out", "", "directory to write the key files to")
			cmd.Flags().String("name", "", "file name without extension (default: the kid)")
			cmd.Flags().String("subject", "", "the consumer's subject (username with the provider), for the printed snippets")
			cmd.Flags().String("demo", "", "create the demo key set in this directory")
			cmd.RunE = caddycmd.WrapCommandFuncForCobra(cmdOSDMKeygen)
		},
	})
}

// keygenOptions are the flags of caddy osdm-keygen.
type keygenOptions struct {
	alg, kid, out, name, subject, demo string
}

func cmdOSDMKeygen(fl caddycmd.Flags) (int, error) {
	opts := keygenOptions{
		alg: fl.String("alg"), kid: fl.String("kid"), out: fl.String("out"),
		name: fl.String("name"), subject: fl.String("subject"), demo: fl.String("demo"),
	}
	if err := runOSDMKeygen(opts, os.Stdout); err != nil {
		return caddy.ExitCodeFailedStartup, err
	}
	return 0, nil
}

func runOSDMKeygen(o keygenOptions, w io.Writer) error {
	if o.demo != "" {
		if o.alg != "" || o.kid != "" || o.out != "" || o.name != "" || o.subject != "" {
			return errors.New("--demo takes no other flag")
		}
		return WriteDemoKeys(o.demo, w)
	}
	if o.alg == "" || o.kid == "" || o.out == "" {
		return errors.New("--alg, --kid and --out are required (or --demo DIR)")
	}
	if !keygenPlainWord(o.kid) {
		return fmt.Errorf("--kid %q: use letters, digits and . _ - only, so that it fits a Caddyfile unquoted", o.kid)
	}
	if o.name == "" {
		o.name = o.kid
	}
	if !keygenPlainWord(o.name) {
		return fmt.Errorf("--name %q: a file name without directory, of letters, digits and . _ -", o.name)
	}
	if o.subject == "" {
		o.subject = "<subject>"
	}
	key, err := tokenauth.GenerateKey(o.alg)
	if err != nil {
		return fmt.Errorf("--alg: %w", err)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	priv, pub, err := tokenauth.WriteKeyPair(o.out, o.name, key)
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(priv); err == nil {
		priv = abs
	}
	pubPEM, err := tokenauth.MarshalPublicKeyPEM(key.Public())
	if err != nil {
		return err
	}
	fmt.Fprintf(w, `Wrote %s (private key: keep it secret, mode 0600)
  and %s (public key).

kid: %s
alg: %s
key: %s

Public key, to send to the provider with the kid and alg:
%s
Provider side, in osdm_login (with the public key stored as /etc/osdm/clients/%s.pub):
	client %s {
		alg %s
		key %s /etc/osdm/clients/%s.pub
	}

Consumer side, in osdm_token:
	key_file %s
	kid      %s
	alg      %s
	subject  %s
`, priv, pub, o.kid, o.alg, tokenauth.KeyDescription(key.Public()), pubPEM,
		o.name, o.subject, o.alg, o.kid, o.name, priv, o.kid, o.alg, o.subject)
	return nil
}

// keygenPlainWord reports whether s is safe as a Caddyfile word and a file
// name.
func keygenPlainWord(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-", c)) {
			return false
		}
	}
	return true
}

// demoKeys is the key set of Caddyfile.example.
var demoKeys = []struct {
	name, kid, alg string
	rsaBits        int
}{
	{"login", "demo-login", "ES256", 0},
	{"alpine", "alpine-demo-1", "RS256", 2048},
	{"coastal", "coastal-demo-1", "EdDSA", 0},
	{"hermes", "hermes-demo-1", "ES256", 0},
}

// WriteDemoKeys creates the demo keys that are missing and keeps the rest.
func WriteDemoKeys(dir string, w io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, k := range demoKeys {
		priv, pub := filepath.Join(dir, k.name+".pem"), filepath.Join(dir, k.name+".pub")
		havePriv, havePub := keygenExists(priv), keygenExists(pub)
		if havePriv && havePub {
			fmt.Fprintf(w, "kept %s and %s\n", priv, pub)
			continue
		}
		if havePriv || havePub {
			return fmt.Errorf("only one of %s and %s exists; remove it or restore the other", priv, pub)
		}
		var key crypto.Signer
		var err error
		if k.rsaBits != 0 {
			key, err = tokenauth.GenerateRSAKey(k.rsaBits)
		} else {
			key, err = tokenauth.GenerateKey(k.alg)
		}
		if err != nil {
			return err
		}
		if _, _, err := tokenauth.WriteKeyPair(dir, k.name, key); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s and %s (%s, kid %s)\n", priv, pub, k.alg, k.kid)
	}
	return nil
}

func keygenExists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
