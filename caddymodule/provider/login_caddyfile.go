package provider

import (
	"fmt"
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/stores"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func init() {
	glue.RegisterHandler[Login]("osdm_login")
}

// loginSubdirectives are the subdirectives of osdm_login, offered when a
// name is mistyped.
var loginSubdirectives = []string{"signing_key_file", "signing_alg", "signing_kid", "issuer", "audience", "access_audience",
	"token_lifetime", "clock_skew", "max_assertion_lifetime", "replay_store", "client"}

// loginClientSubdirectives are the subdirectives of osdm_login's client
// block, offered when a name is mistyped.
var loginClientSubdirectives = []string{"alg", "key", "scope", "issuer"}

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
//		replay_store           memory [max_entries <n>] | bolt [<path>] | redis <address> [<key prefix>]
//		client <sub> {
//			alg   <alg> [<alg>...]
//			key   <kid> <public key PEM> [not_before <RFC 3339>] [not_after <RFC 3339>]
//			scope  <scope> [<scope>...]
//			issuer <iss>    # the only iss accepted; default: any (client_assertion: iss = sub or the issuer URL)
//		}
//	}
//
// client may be repeated, once per subject; key once per kid.
// replay_store bolt keeps spent jti values across restarts in a file
// (default: osdm/store.db in Caddy's data directory) that other modules
// naming the same file share; redis shares them between instances.
// signing_key_file, issuer and at least one client are required.
func (l *Login) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	durations := map[string]*caddy.Duration{
		"token_lifetime": &l.TokenLifetime, "clock_skew": &l.ClockSkew, "max_assertion_lifetime": &l.MaxAssertionLifetime,
	}
	at, err := glue.Directive(d, []string{"client"}, func(name string) error {
		if field, ok := durations[name]; ok {
			return glue.PositiveDurationArg(d, name, field)
		}
		var err error
		switch name {
		case "signing_key_file":
			err = glue.OneArg(d, &l.SigningKeyFile)
		case "signing_alg":
			if err = glue.OneArg(d, &l.SigningAlg); err == nil {
				if _, algErr := tokenauth.SigningMethod(l.SigningAlg); algErr != nil {
					return d.Errf("signing_alg: %v", algErr)
				}
			}
		case "signing_kid":
			err = glue.OneArg(d, &l.SigningKeyID)
		case "issuer":
			err = glue.OneArg(d, &l.Issuer)
		case "audience":
			if l.Audience = d.RemainingArgs(); len(l.Audience) == 0 {
				return d.ArgErr()
			}
		case "access_audience":
			if l.AccessAudience = d.RemainingArgs(); len(l.AccessAudience) == 0 {
				return d.ArgErr()
			}
		case "replay_store":
			err = l.unmarshalReplayStore(d)
		case "client":
			err = l.unmarshalClient(d)
		default:
			return d.Err(glue.UnknownSubdirective("subdirective", name, loginSubdirectives))
		}
		return err
	})
	if err != nil {
		return err
	}
	// Checked here as well as in Provision, so that the error names the
	// Caddyfile and the directive's line.
	for _, req := range []struct {
		name string
		set  bool
	}{{"signing_key_file", l.SigningKeyFile != ""}, {"issuer", l.Issuer != ""}, {"client", len(l.Clients) > 0}} {
		if !req.set {
			return at.Err(fmt.Errorf("%s is required", req.name))
		}
	}
	return nil
}

func (l *Login) unmarshalReplayStore(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return d.ArgErr()
	}
	store := &LoginReplayStore{Engine: args[0]}
	switch args[0] {
	case "memory":
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
	case stores.EngineBolt, stores.EngineRedis:
		cfg, err := stores.UnmarshalArgs(d, "replay_store", args)
		if err != nil {
			return err
		}
		store.Path, store.Address, store.Prefix = cfg.Path, cfg.Address, cfg.Prefix
	default:
		if len(args) > 1 {
			return d.Errf("replay_store %s: a store name takes no more arguments (or: memory, bolt, redis)", args[0])
		}
		store = &LoginReplayStore{Engine: "store", Name: args[0]}
	}
	l.ReplayStore = store
	return nil
}

func (l *Login) unmarshalClient(d *caddyfile.Dispenser) error {
	var c RegisteredConsumer
	if err := glue.OneArg(d, &c.Subject); err != nil {
		return err
	}
	for _, have := range l.Clients {
		if have.Subject == c.Subject {
			return d.Errf("client %q already specified", c.Subject)
		}
	}
	err := glue.BlockOf(d, fmt.Sprintf("client %q", c.Subject), []string{"key"}, func(name string) error {
		switch name {
		case "alg":
			if c.Algs = d.RemainingArgs(); len(c.Algs) == 0 {
				return d.ArgErr()
			}
			for _, alg := range c.Algs {
				if _, err := tokenauth.SigningMethod(alg); err != nil {
					return d.Errf("client %q: %v", c.Subject, err)
				}
			}
		case "key":
			k, err := unmarshalClientKey(d, c.Subject)
			if err != nil {
				return err
			}
			for _, have := range c.Keys {
				if have.ID == k.ID {
					return d.Errf("client %q: key %q already specified", c.Subject, k.ID)
				}
			}
			c.Keys = append(c.Keys, k)
		case "scope":
			if c.Scopes = d.RemainingArgs(); len(c.Scopes) == 0 {
				return d.ArgErr()
			}
		case "issuer":
			if err := glue.OneArg(d, &c.Issuer); err != nil {
				return err
			}
		default:
			return d.Err(glue.UnknownSubdirective("client subdirective", name, loginClientSubdirectives))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(c.Keys) == 0 {
		return d.Errf("client %q has no key", c.Subject)
	}
	l.Clients = append(l.Clients, c)
	return nil
}

func unmarshalClientKey(d *caddyfile.Dispenser, sub string) (ConsumerKey, error) {
	args := d.RemainingArgs()
	if len(args) < 2 || len(args)%2 != 0 {
		return ConsumerKey{}, d.Errf("client %q: key takes <kid> <public key file> [not_before <time>] [not_after <time>]", sub)
	}
	k := ConsumerKey{ID: args[0], File: args[1]}
	for i := 2; i < len(args); i += 2 {
		if _, err := time.Parse(time.RFC3339, args[i+1]); err != nil {
			return k, d.Errf("client %q key %q: %s %q is not an RFC 3339 time such as 2026-02-01T00:00:00Z", sub, k.ID, args[i], args[i+1])
		}
		switch {
		case args[i] == "not_before" && k.NotBefore == "":
			k.NotBefore = args[i+1]
		case args[i] == "not_after" && k.NotAfter == "":
			k.NotAfter = args[i+1]
		default:
			return k, d.Errf("client %q key %q: unexpected or repeated %q (want not_before or not_after)", sub, k.ID, args[i])
		}
	}
	return k, nil
}
