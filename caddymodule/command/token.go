package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "osdm-token",
		Usage: "--token-url <url> --key-file <pem> --kid <kid> --subject <sub> [--issuer <iss>] [--audience <aud>] [--scope <scope>] [--grant jwt_bearer|client_assertion] [--alg <alg>]",
		Short: "Logs in at an OSDM login service and prints the access token",
		Long: `
Signs an identity token with the given private key, posts it to the login
service at --token-url (the same request osdm_token makes) and prints the
access token it answers on stdout, and nothing else, so that an OSDM
client can use it:

	token="$(caddy osdm-token --token-url ... --key-file ... ...)"
	curl -H "Authenticate: Bearer $token" ...

Errors go to stderr with exit status 1. The private key and the identity
token are never printed. It also checks a partner's login set-up.

--issuer is required with grant jwt_bearer (the default); with grant
client_assertion it defaults to --subject. --audience defaults to
--token-url, --scope to uic_osdm, --alg to the key's usual algorithm.`,
		CobraFunc: func(cmd *cobra.Command) {
			var o TokenOptions
			f := cmd.Flags()
			f.StringVar(&o.TokenURL, "token-url", "", "the login service's token endpoint")
			f.StringVar(&o.KeyFile, "key-file", "", "PEM file of the private key the identity token is signed with")
			f.StringVar(&o.Kid, "kid", "", "key id (kid header) agreed with the provider")
			f.StringVar(&o.Issuer, "issuer", "", "iss claim of the identity token")
			f.StringVar(&o.Subject, "subject", "", "sub claim: the user name the provider gave")
			f.StringVar(&o.Audience, "audience", "", "aud claim (default: --token-url)")
			f.StringVar(&o.Scope, "scope", "", "scope asked for (default: uic_osdm)")
			f.StringVar(&o.Grant, "grant", "", "token request form: jwt_bearer (default) or client_assertion")
			f.StringVar(&o.Alg, "alg", "", "JWS algorithm (default: the key's usual one)")
			f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "how long the login may take")
			cmd.RunE = runE(func() error { return RunToken(context.Background(), o, os.Stdout) })
		},
	})
}

// TokenOptions are the flags of caddy osdm-token: --token-url,
// --key-file, --kid, --issuer, --subject, --audience, --scope, --grant,
// --alg and --timeout.
type TokenOptions struct {
	TokenURL, KeyFile, Kid, Issuer, Subject, Audience, Scope, Grant, Alg string
	Timeout                                                              time.Duration
}

// RunToken logs in as o says and writes the access token and a newline
// to w. Its errors never hold the key, the identity token or the access
// token.
func RunToken(ctx context.Context, o TokenOptions, w io.Writer) error {
	if o.TokenURL == "" || o.KeyFile == "" || o.Kid == "" || o.Subject == "" {
		return errors.New("--token-url, --key-file, --kid and --subject are required")
	}
	login, err := tokenauth.PartnerLogin{
		TokenURL: o.TokenURL, Grant: tokenauth.Grant(o.Grant),
		Issuer: o.Issuer, Subject: o.Subject, Audience: o.Audience,
	}.Resolve()
	if err != nil {
		return flagError(err)
	}
	key, err := tokenauth.LoadPrivateKeyFile(o.KeyFile)
	if err != nil {
		return fmt.Errorf("--key-file: %w", err)
	}
	signer, err := tokenauth.NewIdentitySigner(tokenauth.IdentityConfig{
		Issuer: login.Issuer, Subject: login.Subject, Audience: login.Audience,
		KeyID: o.Kid, Alg: o.Alg, Scope: o.Scope,
	}, key, nil)
	if err != nil {
		return err
	}
	client, err := tokenauth.NewTokenClient(tokenauth.TokenClientConfig{
		Partner: login.Partner, TokenURL: login.TokenURL, Grant: login.Grant, Signer: signer,
		Warn: func(msg string) { fmt.Fprintln(os.Stderr, "warning:", msg) },
	})
	if err != nil {
		return err
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	tok, err := client.Token(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, tok.AccessToken)
	return err
}

// flagError is err with a refused setting called by its flag: --grant,
// --issuer.
func flagError(err error) error {
	var le *tokenauth.PartnerLoginError
	if errors.As(err, &le) {
		return errors.New(le.Named("--" + le.Field))
	}
	return err
}
