package app

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
)

func init() {
	httpcaddyfile.RegisterGlobalOption("osdm", parseGlobalOption)
}

// parseGlobalOption reads the osdm global option:
//
//	osdm {
//		store <name> bolt [<path>] {
//			timeout <duration>
//		}
//		store <name> redis [<address>...] {
//			addresses <address>...
//			master    <name>
//			prefix    <key prefix>
//			username  <user>
//			password  <password>
//			sentinel_password <password>
//			db        <number>
//			tls {
//				ca          <pem file>
//				server_name <name>
//				certificate <pem file>
//				key         <pem file>
//			}
//			accept_volatile
//			timeout   <duration>
//		}
//		settle_interval <duration>
//	}
func parseGlobalOption(d *caddyfile.Dispenser, existing any) (any, error) {
	a := new(App)
	if existing != nil {
		return nil, d.Err("the osdm global option is given twice")
	}
	d.Next() // the option's name
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	options := modulekit.Table{What: "osdm option", Subs: []modulekit.Sub{
		modulekit.Entry("store", 0, modulekit.Many, a.parseStore), modulekit.Duration("settle_interval", &a.SettleInterval),
	}}
	if err := options.Block(d, ""); err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "osdm", Value: caddyconfig.JSON(a, nil)}, nil
}

// parseStore reads a store line, args after store: <name> <engine> ...,
// and the engine's block.
func (a *App) parseStore(d *caddyfile.Dispenser, args []string) error {
	if len(args) == 0 {
		return d.Err("store takes a name and an engine: store <name> bolt [<path>] or store <name> redis [<address>...]")
	}
	name := args[0]
	if name == "" || name[0] == 0 {
		return d.Errf("store %q: a store needs a name, not empty and not starting with a NUL byte (store <name> bolt [<path>] or store <name> redis [<address>...])", name)
	}
	if slices.Contains(storeconfig.Engines, name) {
		return d.Errf("store %s: %s is an engine, not a store name (store <name> %s ...)", name, name, name)
	}
	if len(args) == 1 {
		return d.Errf("store %s: which engine? (%s)", name, strings.Join(storeconfig.Engines, " or "))
	}
	if _, dup := a.Stores[name]; dup {
		return d.Errf("store %s is defined twice", name)
	}
	kind, rest := args[1], args[2:]
	owner := "store " + name + " " + kind
	var engine any
	var err error
	switch kind {
	case storeconfig.EngineBolt:
		engine, err = parseBolt(d, owner, rest)
	case storeconfig.EngineRedis:
		engine, err = parseRedis(d, owner, rest)
	default:
		return d.WrapErr(storeconfig.UnknownEngine("store "+name, kind))
	}
	if err != nil {
		return err
	}
	if a.Stores == nil {
		a.Stores = map[string]json.RawMessage{}
	}
	a.Stores[name] = caddyconfig.JSONModuleObject(engine, "engine", kind, nil)
	return nil
}

// parseBolt reads the rest of a bolt store: args after bolt, then its
// block.
func parseBolt(d *caddyfile.Dispenser, owner string, args []string) (*Bolt, error) {
	b := new(Bolt)
	switch len(args) {
	case 0:
	case 1:
		b.Path = args[0]
	default:
		return nil, d.Errf("%s takes at most one path, got %d arguments", owner, len(args))
	}
	opts := modulekit.Table{What: "option", Subs: []modulekit.Sub{
		modulekit.Duration("timeout", &b.Timeout),
	}}
	return b, opts.Block(d, owner)
}

// parseRedis reads the rest of a redis store: args after redis, then
// its block.
func parseRedis(d *caddyfile.Dispenser, owner string, args []string) (*Redis, error) {
	r := &Redis{Addresses: args}
	opts := modulekit.Table{What: "option", Subs: []modulekit.Sub{
		modulekit.Entry("addresses", 1, modulekit.Many, func(_ *caddyfile.Dispenser, args []string) error {
			r.Addresses = append(r.Addresses, args...)
			return nil
		}),
		modulekit.String("master", &r.Master), modulekit.String("prefix", &r.Prefix), modulekit.String("username", &r.Username),
		modulekit.String("password", &r.Password), modulekit.String("sentinel_password", &r.SentinelPassword),
		modulekit.Func("db", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			n, err := strconv.Atoi(args[0])
			if err != nil || n < 0 {
				return d.Errf("%s: db %q is not a database number", owner, args[0])
			}
			r.DB = n
			return nil
		}),
		modulekit.Func("tls", 0, 0, func(d *caddyfile.Dispenser, _ []string) error {
			r.TLS = new(RedisTLS)
			tls := modulekit.Table{What: "option", Subs: []modulekit.Sub{
				modulekit.String("ca", &r.TLS.CA), modulekit.String("server_name", &r.TLS.ServerName),
				modulekit.String("certificate", &r.TLS.Certificate), modulekit.String("key", &r.TLS.Key),
			}}
			return tls.Block(d, owner+" tls")
		}),
		modulekit.Flag("accept_volatile", &r.AcceptVolatile), modulekit.Duration("timeout", &r.Timeout),
	}}
	if err := opts.Block(d, owner); err != nil {
		return nil, err
	}
	if len(r.Addresses) == 0 {
		return nil, d.Errf("%s needs an address (after redis, or in addresses)", owner)
	}
	return r, nil
}
