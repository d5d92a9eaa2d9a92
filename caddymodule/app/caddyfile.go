package app

import (
	"encoding/json"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
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
	err := glue.Block(d, []string{"store"}, func(opt string) error {
		switch opt {
		case "settle_interval":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(v)
			if err != nil || dur <= 0 {
				return d.Errf("settle_interval %q: not a positive duration", v)
			}
			a.SettleInterval = caddy.Duration(dur)
		case "store":
			if !d.NextArg() {
				return d.Err("store takes a name and an engine: store <name> bolt [<path>] or store <name> redis [<address>...]")
			}
			name := d.Val()
			if name == engineBolt || name == engineRedis {
				return d.Errf("store %s: %s is an engine, not a store name (store <name> %s ...)", name, name, name)
			}
			if !d.NextArg() {
				return d.Errf("store %s: which engine? (bolt or redis)", name)
			}
			if _, dup := a.Stores[name]; dup {
				return d.Errf("store %s is defined twice", name)
			}
			var engine any
			var err error
			kind := d.Val()
			switch kind {
			case engineBolt:
				engine, err = parseBolt(d, name)
			case engineRedis:
				engine, err = parseRedis(d, name)
			default:
				return d.Errf("store %s: engine %q is unknown (want bolt or redis)", name, kind)
			}
			if err != nil {
				return err
			}
			if a.Stores == nil {
				a.Stores = map[string]json.RawMessage{}
			}
			a.Stores[name] = caddyconfig.JSONModuleObject(engine, "engine", kind, nil)
		default:
			return d.Err(glue.UnknownSubdirective("osdm option", opt, globalOptions))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return httpcaddyfile.App{Name: "osdm", Value: caddyconfig.JSON(a, nil)}, nil
}

// The names each block of the osdm global option takes, for the "did you
// mean" of an unknown one.
var (
	globalOptions   = []string{"store", "settle_interval"}
	boltOptions     = []string{"timeout"}
	redisOptions    = []string{"addresses", "master", "prefix", "username", "password", "sentinel_password", "db", "tls", "accept_volatile", "timeout"}
	redisTLSOptions = []string{"ca", "server_name", "certificate", "key"}
)

// parseBolt reads the rest of a bolt store.
func parseBolt(d *caddyfile.Dispenser, name string) (*Bolt, error) {
	b := new(Bolt)
	args := d.RemainingArgs()
	switch len(args) {
	case 0:
	case 1:
		b.Path = args[0]
	default:
		return nil, d.Errf("store %s bolt takes at most one path, got %d arguments", name, len(args))
	}
	err := glue.BlockOf(d, "store "+name+" bolt", nil, func(opt string) error {
		if opt != "timeout" {
			return d.Errf("store %s bolt: %s", name, glue.UnknownSubdirective("option", opt, boltOptions))
		}
		return durationArg(d, &b.Timeout)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// parseRedis reads the rest of a redis store.
func parseRedis(d *caddyfile.Dispenser, name string) (*Redis, error) {
	r := &Redis{Addresses: d.RemainingArgs()}
	err := glue.BlockOf(d, "store "+name+" redis", []string{"addresses"}, func(opt string) error {
		switch opt {
		case "addresses":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			r.Addresses = append(r.Addresses, args...)
		case "master", "prefix", "username", "password", "sentinel_password":
			var v string
			if !d.AllArgs(&v) {
				return d.Errf("store %s redis: %s takes one value", name, opt)
			}
			switch opt {
			case "master":
				r.Master = v
			case "prefix":
				r.Prefix = v
			case "username":
				r.Username = v
			case "password":
				r.Password = v
			default:
				r.SentinelPassword = v
			}
		case "db":
			var v string
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return d.Errf("store %s redis: db %q is not a database number", name, v)
			}
			r.DB = n
		case "accept_volatile":
			if d.NextArg() {
				return d.ArgErr()
			}
			r.AcceptVolatile = true
		case "timeout":
			return durationArg(d, &r.Timeout)
		case "tls":
			if d.NextArg() {
				return d.ArgErr()
			}
			r.TLS = new(RedisTLS)
			return glue.BlockOf(d, "store "+name+" redis tls", nil, func(sub string) error {
				var v string
				if !d.AllArgs(&v) {
					return d.Errf("store %s redis tls: %s takes one value", name, sub)
				}
				switch sub {
				case "ca":
					r.TLS.CA = v
				case "server_name":
					r.TLS.ServerName = v
				case "certificate":
					r.TLS.Certificate = v
				case "key":
					r.TLS.Key = v
				default:
					return d.Errf("store %s redis tls: %s", name, glue.UnknownSubdirective("option", sub, redisTLSOptions))
				}
				return nil
			})
		default:
			return d.Errf("store %s redis: %s", name, glue.UnknownSubdirective("option", opt, redisOptions))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(r.Addresses) == 0 {
		return nil, d.Errf("store %s redis needs an address (after redis, or in addresses)", name)
	}
	return r, nil
}

// durationArg reads one positive duration.
func durationArg(d *caddyfile.Dispenser, dst *caddy.Duration) error {
	name := d.Val()
	var v string
	if !d.AllArgs(&v) {
		return d.ArgErr()
	}
	dur, err := caddy.ParseDuration(v)
	if err != nil || dur <= 0 {
		return d.Errf("%s %q: not a positive duration", name, v)
	}
	*dst = caddy.Duration(dur)
	return nil
}
