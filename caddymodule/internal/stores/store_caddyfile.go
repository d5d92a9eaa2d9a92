package stores

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// Unmarshal reads the arguments of a store subdirective (named sub,
// for errors), the engine first:
//
//	store bolt [<path>]
//	store redis <address> [<key prefix>]
//
// Every module that keeps state takes it with this syntax; osdm_login's
// replay_store accepts it too, besides memory.
func Unmarshal(d *caddyfile.Dispenser, sub string) (*Config, error) {
	return UnmarshalArgs(d, sub, d.RemainingArgs())
}

// UnmarshalArgs is unmarshalStore on arguments already read.
func UnmarshalArgs(d *caddyfile.Dispenser, sub string, args []string) (*Config, error) {
	if len(args) == 0 {
		return nil, d.Errf("%s takes bolt [<path>] or redis <address> [<key prefix>]", sub)
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
	default:
		return nil, d.Errf("%s %q is unknown (want bolt or redis)", sub, args[0])
	}
	return cfg, nil
}
