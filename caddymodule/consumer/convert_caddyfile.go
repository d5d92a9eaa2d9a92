package consumer

import (
	"slices"
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

func init() {
	modulekit.RegisterHandlerThen("osdm_convert", func(h httpcaddyfile.Helper, c *Convert) error {
		return routePartnerOf(h).convertParsed(h, c.Partner)
	})
}

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
//		store        <store name> | bolt [<path>] | redis <address> [<key prefix>]  # default: bolt in Caddy's data directory
//		settle_interval <duration>           # default: the osdm app's (30s)
//	}
func (c *Convert) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	return c.caddyfileTable().Unmarshal(d, c.Validate)
}

// caddyfileTable is osdm_convert's subdirectives, read into c.
func (c *Convert) caddyfileTable() modulekit.Table {
	return modulekit.Table{Subs: []modulekit.Sub{
		modulekit.String("partner", &c.Partner), modulekit.String("offer_search", &c.OfferSearch),
		modulekit.Entry("tariff", 3, 3, c.parseTariff),
		modulekit.Entry("reason", 2, 2, func(d *caddyfile.Dispenser, args []string) error {
			return placed(d, modulekit.PutOnce(&c.Reasons, "reason", args[0], args[1]))
		}),
		modulekit.Entry("path", 2, 2, func(d *caddyfile.Dispenser, args []string) error {
			if err := converter.CheckPath(converter.Step(args[0]), args[1]); err != nil {
				return d.WrapErr(err)
			}
			return placed(d, modulekit.PutOnce(&c.Paths, "path", args[0], args[1]))
		}),
		modulekit.Func("path_prefix", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			c.PathPrefix = args[0]
			return placed(d, converter.CheckPathPrefix(args[0]))
		}),
		modulekit.String("time_zone", &c.TimeZone), modulekit.Duration("timeout", &c.Timeout),
		modulekit.Size("max_body", &c.MaxBody, legacy.MaxBodyBytes, "1MiB"),
		modulekit.Size("max_document", &c.MaxDocument, converter.MaxMaxDocument, "32MiB"),
		modulekit.Func("reply_cache", 1, 2, c.parseReplyCache),
		storeconfig.Sub(&c.Store),
		modulekit.Duration("settle_interval", &c.SettleInterval),
	}, Renamed: map[string]string{"settle_every": "settle_interval"}}
}

// placed is err at d's line; nil when err is nil.
func placed(d *caddyfile.Dispenser, err error) error {
	if err == nil {
		return nil
	}
	return d.WrapErr(err)
}

// parseTariff reads a tariff line: <code> <TYPE> <age>.
func (c *Convert) parseTariff(d *caddyfile.Dispenser, args []string) error {
	age, err := strconv.Atoi(args[2])
	if err != nil {
		return d.Errf("tariff %s: age %q is not a number", args[0], args[2])
	}
	if !slices.Contains(osdm.PassengerTypes, osdm.PassengerType(args[1])) {
		known := make([]string, len(osdm.PassengerTypes))
		for i, t := range osdm.PassengerTypes {
			known[i] = string(t)
		}
		hint := modulekit.DidYouMean(args[1], known)
		if hint == "" {
			hint = " (known: " + converter.KnownPassengerTypes() + ")"
		}
		return d.Errf("tariff %s: %q is not an OSDM passenger type%s", args[0], args[1], hint)
	}
	return placed(d, modulekit.PutOnce(&c.Tariffs, "tariff", args[0], TariffMapping{Type: args[1], Age: age}))
}

// parseReplyCache reads a reply_cache line: <size> [<ttl>].
func (c *Convert) parseReplyCache(d *caddyfile.Dispenser, args []string) error {
	size, err := strconv.Atoi(args[0])
	if err != nil || size <= 0 {
		return d.Errf("reply_cache size %q: not a positive number", args[0])
	}
	c.ReplyCacheSize = size
	if len(args) == 2 {
		ttl, err := modulekit.ParseDuration(d, "reply_cache ttl", args[1])
		if err != nil {
			return err
		}
		c.ReplyCacheTTL = ttl
	}
	return nil
}
