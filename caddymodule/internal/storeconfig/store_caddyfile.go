package storeconfig

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

// Sub is the store subdirective of a module that keeps state, read by
// UnmarshalArgs into *dst.
func Sub(dst **Config) modulekit.Sub {
	return modulekit.Func("store", 0, modulekit.Many, func(d *caddyfile.Dispenser, args []string) error {
		cfg, err := UnmarshalArgs(d, "store", args)
		*dst = cfg
		return err
	})
}

// UnmarshalArgs reads args, the arguments of a store subdirective (named
// sub, for errors), the engine first:
//
//	store <name>                          # a store of the osdm app
//	store bolt [<path>]
//	store redis <address> [<key prefix>]
//
// Every module that keeps state takes it with this syntax (Sub);
// osdm_login's replay_store accepts it too, besides memory.
func UnmarshalArgs(d *caddyfile.Dispenser, sub string, args []string) (*Config, error) {
	if len(args) == 0 {
		return nil, d.Errf("%s takes a store name, bolt [<path>] or redis <address> [<key prefix>]", sub)
	}
	if args[0] == "" {
		return nil, d.Errf(`%s "": a store name must not be empty (a store name, bolt [<path>] or redis <address> [<key prefix>])`, sub)
	}
	if args[0] != EngineBolt && args[0] != EngineRedis {
		if len(args) > 1 {
			return nil, d.Errf("%s %s: a store name takes no more arguments (engines: bolt, redis)", sub, args[0])
		}
		return &Config{Name: args[0]}, nil
	}
	cfg := &Config{Engine: args[0]}
	switch args[0] {
	case EngineBolt:
		switch len(args) {
		case 1:
		case 2:
			cfg.Path = args[1]
		default:
			return nil, d.Errf("%s bolt takes at most one path, got %d arguments", sub, len(args)-1)
		}
	case EngineRedis:
		switch len(args) {
		case 2:
			cfg.Address = args[1]
		case 3:
			cfg.Address, cfg.Prefix = args[1], args[2]
		default:
			return nil, d.Errf("%s redis takes <address> [<key prefix>]", sub)
		}
	}
	return cfg, nil
}
