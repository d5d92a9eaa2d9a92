package providerauth

import (
	"fmt"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	modulekit.RegisterHandler[Login]("osdm_login")
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	osdm_login {
//		signing_key_file       <private key PEM>
//		signing_alg            <alg>
//		signing_kid            <kid>
//		issuer                 <issuer>
//		audience               <aud> [<aud>...]
//		access_audience        <aud> [<aud>...]
//		token_lifetime         <duration>
//		clock_skew             <duration>
//		max_assertion_lifetime <duration>
//		replay_store           memory [max_entries <n>] | <store name> | bolt [<path>] | redis <address> [<key prefix>]
//		client <sub> {
//			alg   <alg> [<alg>...]
//			key   <kid> <public key PEM> [not_before <RFC 3339>] [not_after <RFC 3339>]
//			scope  <scope> [<scope>...]
//			issuer <iss>    # the only iss accepted; default: any (client_assertion: iss = sub or the issuer URL)
//		}
//	}
//
// client may be repeated, once per subject; key once per kid.
// replay_store <store name> keeps spent jti values in a store of the
// osdm global option; bolt keeps them across restarts in a file
// (default: osdm/store.db in Caddy's data directory) that other modules
// naming the same file share; redis shares them between instances.
// signing_key_file, issuer and at least one client are required.
func (l *Login) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	subs := modulekit.Table{Subs: []modulekit.Sub{
		modulekit.String("signing_key_file", &l.SigningKeyFile),
		modulekit.Func("signing_alg", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			if _, err := tokenauth.SigningMethod(args[0]); err != nil {
				return d.Errf("signing_alg: %v", err)
			}
			l.SigningAlg = args[0]
			return nil
		}),
		modulekit.String("signing_kid", &l.SigningKeyID), modulekit.String("issuer", &l.Issuer),
		modulekit.Values("audience", &l.Audience), modulekit.Values("access_audience", &l.AccessAudience),
		modulekit.Duration("token_lifetime", &l.TokenLifetime), modulekit.Duration("clock_skew", &l.ClockSkew),
		modulekit.Duration("max_assertion_lifetime", &l.MaxAssertionLifetime),
		modulekit.Func("replay_store", 1, modulekit.Many, l.parseReplayStore), modulekit.Entry("client", 1, 1, l.parseClient),
	}}
	return subs.Unmarshal(d, l.Validate)
}

// parseReplayStore reads replay_store's arguments: memory [max_entries
// <n>], or a store as every module's store subdirective takes it.
func (l *Login) parseReplayStore(d *caddyfile.Dispenser, args []string) error {
	if args[0] != ReplayMemory {
		cfg, err := storeconfig.UnmarshalArgs(d, "replay_store", args)
		if err != nil {
			return err
		}
		l.ReplayStore = &LoginReplayStore{Config: *cfg}
		return nil
	}
	store := &LoginReplayStore{Config: storeconfig.Config{Engine: ReplayMemory}}
	switch {
	case len(args) == 1:
	case len(args) == 3 && args[1] == "max_entries":
		n, err := strconv.Atoi(args[2])
		if err != nil || n <= 0 {
			return d.Errf("replay_store memory max_entries %q must be a positive integer", args[2])
		}
		store.MaxEntries = n
	default:
		return d.Errf("replay_store memory takes only max_entries <n>")
	}
	l.ReplayStore = store
	return nil
}

// parseClient reads a client line, <sub>, and its block.
func (l *Login) parseClient(d *caddyfile.Dispenser, args []string) error {
	c := RegisteredConsumer{Subject: args[0]}
	if c.Subject == "" {
		return d.Err(`client "": the subject (the sub of the client's tokens) must not be empty`)
	}
	for _, have := range l.Clients {
		if have.Subject == c.Subject {
			return d.Errf("client %q already specified", c.Subject)
		}
	}
	subs := modulekit.Table{What: "client subdirective", Subs: []modulekit.Sub{
		modulekit.Func("alg", 1, modulekit.Many, func(d *caddyfile.Dispenser, args []string) error {
			for _, alg := range args {
				if _, err := tokenauth.SigningMethod(alg); err != nil {
					return d.Errf("client %q: %v", c.Subject, err)
				}
			}
			c.Algs = args
			return nil
		}),
		modulekit.Entry("key", 0, modulekit.Many, func(d *caddyfile.Dispenser, args []string) error {
			k, err := unmarshalClientKey(d, c.Subject, args)
			if err != nil {
				return err
			}
			for _, have := range c.Keys {
				if have.ID == k.ID {
					return d.Errf("client %q: key %q already specified", c.Subject, k.ID)
				}
			}
			c.Keys = append(c.Keys, k)
			return nil
		}),
		modulekit.Func("scope", 1, modulekit.Many, func(d *caddyfile.Dispenser, args []string) error {
			if err := modulekit.Values("scope", &c.Scopes).Parse(d, args); err != nil {
				return fmt.Errorf("client %q: %w", c.Subject, err)
			}
			return nil
		}),
		modulekit.String("issuer", &c.Issuer),
	}}
	if err := subs.Block(d, fmt.Sprintf("client %q", c.Subject)); err != nil {
		return err
	}
	if len(c.Keys) == 0 {
		return d.Errf("client %q has no key", c.Subject)
	}
	l.Clients = append(l.Clients, c)
	return nil
}

// unmarshalClientKey reads a client's key line: <kid> <public key PEM>
// [not_before <time>] [not_after <time>].
func unmarshalClientKey(d *caddyfile.Dispenser, sub string, args []string) (ConsumerKey, error) {
	if len(args) < 2 || len(args)%2 != 0 {
		return ConsumerKey{}, d.Errf("client %q: key takes <kid> <public key file> [not_before <time>] [not_after <time>]", sub)
	}
	k := ConsumerKey{ID: args[0], File: args[1]}
	if k.ID == "" {
		return k, d.Errf(`client %q: key "": the kid must not be empty`, sub)
	}
	var notBefore, notAfter time.Time
	for i := 2; i < len(args); i += 2 {
		at, err := time.Parse(time.RFC3339, args[i+1])
		if err != nil {
			return k, d.Errf("client %q key %q: %s %q is not an RFC 3339 time such as 2026-02-01T00:00:00Z", sub, k.ID, args[i], args[i+1])
		}
		switch {
		case args[i] == "not_before" && k.NotBefore == "":
			k.NotBefore, notBefore = args[i+1], at
		case args[i] == "not_after" && k.NotAfter == "":
			k.NotAfter, notAfter = args[i+1], at
		default:
			return k, d.Errf("client %q key %q: unexpected or repeated %q (want not_before or not_after)", sub, k.ID, args[i])
		}
	}
	if k.NotBefore != "" && k.NotAfter != "" && !notAfter.After(notBefore) {
		return k, d.Errf("client %q key %q: not_after %s is not after not_before %s: the key would never be valid", sub, k.ID, k.NotAfter, k.NotBefore)
	}
	return k, nil
}
