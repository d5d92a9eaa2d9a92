package consumer

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/dustin/go-humanize"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/stores"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

func init() {
	glue.RegisterHandlerThen("osdm_convert", func(h httpcaddyfile.Helper, c *Convert) error {
		return routePartnerOf(h).convertParsed(h, c.Partner)
	})
}

// convertSubdirectives are the subdirectives of osdm_convert, offered when a
// name is mistyped.
var convertSubdirectives = []string{"partner", "offer_search", "tariff", "reason", "path", "path_prefix", "time_zone", "timeout", "max_body", "max_document", "reply_cache",
	"store", "settle_interval"}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	osdm_convert {
//		partner      <label>                 # required
//		offer_search offers|trip-offers      # default: offers
//		tariff       <code> <TYPE> <age>     # repeatable, merged over the defaults
//		reason       <code> <OVERRULE_CODE>  # repeatable, merged over the defaults
//		path         <step> <template>       # repeatable, e.g. refund_offers /bookings/{bookingId}/refundOffers
//		path_prefix  <path>                  # before every step's path, e.g. /osdm
//		time_zone    <IANA zone>             # default: Europe/Paris
//		timeout      <duration>              # default: 20s
//		max_body     <size>                  # default: 64KiB, at most 1MiB
//		max_document <size>                  # largest ticket document answered; default: 4MiB, at most 32MiB
//		reply_cache  <size> [<ttl>]          # default: 10000 10m
//		store        bolt [<path>] | redis <address> [<key prefix>]  # default: bolt in Caddy's data directory
//		settle_interval <duration>           # default: the osdm app's (30s)
//	}
func (c *Convert) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	at, err := glue.Directive(d, []string{"tariff", "reason", "path"}, func(name string) error {
		args := d.RemainingArgs()
		if name == "store" {
			cfg, err := stores.UnmarshalArgs(d, "store", args)
			if err != nil {
				return err
			}
			c.Store = cfg
			return nil
		}
		if err := c.unmarshalOption(name, args); err != nil {
			return d.Err(err.Error())
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Validate now, so that the error names the Caddyfile and the
	// directive's line.
	return at.Err(c.Validate())
}

// unmarshalOption sets one subdirective.
func (c *Convert) unmarshalOption(name string, args []string) error {
	want := map[string][2]int{ // min and max number of arguments
		"partner": {1, 1}, "offer_search": {1, 1}, "tariff": {3, 3}, "reason": {2, 2},
		"path": {2, 2}, "path_prefix": {1, 1}, "time_zone": {1, 1}, "timeout": {1, 1}, "max_body": {1, 1}, "max_document": {1, 1}, "reply_cache": {1, 2},
		"settle_interval": {1, 1}, "settle_every": {1, 1},
	}
	n, ok := want[name]
	if !ok {
		return errors.New(glue.UnknownSubdirective("subdirective", name, convertSubdirectives))
	}
	if len(args) < n[0] || len(args) > n[1] {
		return fmt.Errorf("%s: wrong number of arguments (%d)", name, len(args))
	}
	switch name {
	case "partner":
		c.Partner = args[0]
	case "offer_search":
		c.OfferSearch = args[0]
	case "time_zone":
		c.TimeZone = args[0]
	case "tariff":
		age, err := strconv.Atoi(args[2])
		if err != nil {
			return fmt.Errorf("tariff %s: age %q is not a number", args[0], args[2])
		}
		if !slices.Contains(osdm.PassengerTypes, osdm.PassengerType(args[1])) {
			known := make([]string, len(osdm.PassengerTypes))
			for i, t := range osdm.PassengerTypes {
				known[i] = string(t)
			}
			hint := glue.DidYouMean(args[1], known)
			if hint == "" {
				hint = " (known: " + converter.KnownPassengerTypes() + ")"
			}
			return fmt.Errorf("tariff %s: %q is not an OSDM passenger type%s", args[0], args[1], hint)
		}
		return glue.PutOnce(&c.Tariffs, name, args[0], TariffMapping{Type: args[1], Age: age})
	case "reason":
		return glue.PutOnce(&c.Reasons, name, args[0], args[1])
	case "path":
		if err := converter.CheckPath(converter.Step(args[0]), args[1]); err != nil {
			return err
		}
		return glue.PutOnce(&c.Paths, name, args[0], args[1])
	case "path_prefix":
		if err := converter.CheckPathPrefix(args[0]); err != nil {
			return err
		}
		c.PathPrefix = args[0]
	case "timeout":
		dur, err := caddy.ParseDuration(args[0])
		if err != nil || dur <= 0 {
			return fmt.Errorf("timeout %q: not a positive duration", args[0])
		}
		c.Timeout = caddy.Duration(dur)
	case "max_body":
		size, err := humanize.ParseBytes(args[0])
		if err != nil || size == 0 || size > legacy.MaxBodyBytes {
			return fmt.Errorf("max_body %q: not a size from 1B to 1MiB", args[0])
		}
		c.MaxBody = int64(size)
	case "max_document":
		size, err := humanize.ParseBytes(args[0])
		if err != nil || size == 0 || size > converter.MaxMaxDocument {
			return fmt.Errorf("max_document %q: not a size from 1B to 32MiB", args[0])
		}
		c.MaxDocument = int64(size)
	case "settle_interval", "settle_every": // settle_every: the older name
		dur, err := caddy.ParseDuration(args[0])
		if err != nil || dur <= 0 {
			return fmt.Errorf("%s %q: not a positive duration", name, args[0])
		}
		c.SettleInterval = caddy.Duration(dur)
	case "reply_cache":
		size, err := strconv.Atoi(args[0])
		if err != nil || size <= 0 {
			return fmt.Errorf("reply_cache size %q: not a positive number", args[0])
		}
		c.ReplyCacheSize = size
		if len(args) == 2 {
			ttl, err := caddy.ParseDuration(args[1])
			if err != nil || ttl <= 0 {
				return fmt.Errorf("reply_cache ttl %q: not a positive duration", args[1])
			}
			c.ReplyCacheTTL = caddy.Duration(ttl)
		}
	}
	return nil
}
