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

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "osdm-keygen",
		Usage: "--alg <alg> --kid <kid> --out <dir> [--name <name>] [--subject <sub>] [--issuer <iss>] [--token-url <url>] | --demo <dir>",
		Short: "Generates a key pair for OSDM token authentication",
		Long: `
Generates the key pair a consumer railway signs its identity tokens with
(or a login service signs its access tokens with), for the bilateral set-up
of OSDM token authentication.

--alg is RS256/384/512 or PS256/384/512 (RSA 3072), ES256/384/512 (EC
P-256/384/521) or EdDSA (Ed25519). NAME.pem (PKCS#8, mode 0600) and
NAME.pub (PKIX) are written in --out; NAME defaults to the kid. Existing
files are never overwritten. The command prints the public key to send
to the provider and the blocks to configure on the provider side (the
client block of osdm_login) and on the consumer side (osdm_token, with
the provider's --token-url and the consumer's --issuer; each left out is
printed as a <placeholder> to fill in).

--demo DIR creates the keys Caddyfile.example uses, those missing only:
login.pem/.pub (ES256, kid demo-login), alpine.pem/.pub (RS256, RSA 2048,
kid alpine-demo-1), coastal.pem/.pub (EdDSA, kid coastal-demo-1),
hermes.pem/.pub (ES256, kid hermes-demo-1: the OSDM client of the reverse
chain, osdm-token and the /partners/hermes route).`,
		CobraFunc: func(cmd *cobra.Command) {
			var o KeygenOptions
			f := cmd.Flags()
			f.StringVar(&o.Alg, "alg", "", "JWS algorithm the key signs with")
			f.StringVar(&o.Kid, "kid", "", "key id (kid header) agreed with the provider")
			f.StringVar(&o.Out, "out", "", "directory to write the key files to")
			f.StringVar(&o.Name, "name", "", "file name without extension (default: the kid)")
			f.StringVar(&o.Subject, "subject", "", "the consumer's subject (username with the provider), for the printed snippets")
			f.StringVar(&o.Issuer, "issuer", "", "the consumer's issuer (iss of its identity tokens), for the printed snippets")
			f.StringVar(&o.TokenURL, "token-url", "", "the provider's token endpoint, for the printed osdm_token block")
			f.StringVar(&o.Demo, "demo", "", "create the demo key set in this directory")
			cmd.RunE = runE(func() error { return RunKeygen(o, os.Stdout) })
		},
	})
}

// KeygenOptions are the flags of caddy osdm-keygen.
type KeygenOptions struct {
	Alg, Kid, Out, Name string
	// Subject, Issuer and TokenURL only fill in the printed blocks.
	Subject, Issuer, TokenURL string
	// Demo is a directory for the demo key set; it takes no other field.
	Demo string
}

// RunKeygen is caddy osdm-keygen: it writes the key pair and prints what
// to send to the provider and the blocks of both sides to w.
func RunKeygen(o KeygenOptions, w io.Writer) error {
	if o.Demo != "" {
		if o.Alg != "" || o.Kid != "" || o.Out != "" || o.Name != "" || o.Subject != "" || o.Issuer != "" || o.TokenURL != "" {
			return errors.New("--demo takes no other flag")
		}
		return WriteDemoKeys(o.Demo, w)
	}
	if o.Alg == "" || o.Kid == "" || o.Out == "" {
		return errors.New("--alg, --kid and --out are required (or --demo DIR)")
	}
	if !keygenPlainWord(o.Kid) {
		return fmt.Errorf("--kid %q: use letters, digits and . _ - only, so that it fits a Caddyfile unquoted", o.Kid)
	}
	if o.Name == "" {
		o.Name = o.Kid
	}
	if !keygenPlainWord(o.Name) {
		return fmt.Errorf("--name %q: a file name without directory, of letters, digits and . _ -", o.Name)
	}
	if o.Subject == "" {
		o.Subject = "<subject>"
	}
	key, err := tokenauth.GenerateKey(o.Alg)
	if err != nil {
		return fmt.Errorf("--alg: %w", err)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	priv, pub, err := tokenauth.WriteKeyPair(o.Out, o.Name, key)
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
	issuer, tokenURL, providerIssuer := o.Issuer, o.TokenURL, ""
	if issuer == "" {
		issuer = "<issuer>"
	} else {
		providerIssuer = "\n\t\tissuer " + o.Issuer
	}
	if tokenURL == "" {
		tokenURL = "<token URL>"
	}
	fmt.Fprintf(w, `Wrote %s (private key: keep it secret, mode 0600)
  and %s (public key).

kid: %s
alg: %s
key: %s

Send the provider the public key below with the kid, the alg, your subject
(%s) and your issuer (%s); the private key stays here:
%s
Provider side, the client block of osdm_login (with the public key stored
as /etc/osdm/clients/%s.pub):
	client %s {
		alg %s
		key %s /etc/osdm/clients/%s.pub%s
	}

Consumer side, osdm_token in the route to the provider (token_url: the
provider's token endpoint):
	osdm_token {
		token_url %s
		key_file %s
		kid %s
		alg %s
		issuer %s
		subject %s
	}
`, priv, pub, o.Kid, o.Alg, tokenauth.KeyDescription(key.Public()), o.Subject, issuer, pubPEM,
		o.Name, o.Subject, o.Alg, o.Kid, o.Name, providerIssuer,
		tokenURL, priv, o.Kid, o.Alg, issuer, o.Subject)
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
