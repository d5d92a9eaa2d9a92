package legacyprovider

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

func init() {
	modulekit.RegisterHandler[OSDMLegacy]("osdm_legacy")
}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	osdm_legacy {
//		partner         <label>                          # required
//		timetable       <gtfs.zip|folder> [stop_code|stop_id]
//		search          availability|information_only    # default: availability
//		max_trains      <n>                              # default: 8
//		window          <duration>                       # default: 4h
//		max_changes     <0..2>                           # default: 1
//		min_transfer    <duration>                       # default: 10m
//		max_trips       <n>                              # default: 6
//		concurrency     <n>                              # default: 4
//		tariff          <TYPE> <min age> <max age> <code> # repeatable; replaces the defaults
//		reason          <OVERRULE_CODE> <code>           # repeatable; merged over the defaults
//		refund_fee      <n>% | <amount> <currency>       # default: none
//		exchange_fee    <n>% | <amount> <currency>       # default: none; else refund_fee's value
//		offer_ttl       <duration>                       # default: 15m
//		hold            <duration>                       # default: 20m
//		store           <store name> | bolt [<path>] | redis <address> [<key prefix>]
//		timeout         <duration>                       # default: 20s
//		max_body        <size>                           # default: 256KiB, at most 1MiB
//		services        seat|couchette|berth ...         # default: seat
//		legacy_format   xml|json                         # default: xml
//		legacy_path     <path>                           # default: /
//		time_zone       <IANA zone>                      # default: Europe/Paris
//		settle_interval <duration>                       # default: the osdm app's (30s)
//		documents       pdf|none                         # default: pdf
//	}
func (m *OSDMLegacy) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	// The whole block is checked too; Provision checks the same for JSON.
	return m.caddyfileTable().Unmarshal(d, func() error {
		if _, err := m.facadeConfig(); err != nil {
			return err
		}
		if m.Store != nil {
			return m.Store.Validate()
		}
		return nil
	})
}

// caddyfileTable is osdm_legacy's subdirectives, read into m.
func (m *OSDMLegacy) caddyfileTable() modulekit.Table {
	return modulekit.Table{Subs: []modulekit.Sub{
		modulekit.String("partner", &m.Partner), modulekit.Timetable(&m.Timetable, &m.TimetableStationCode),
		modulekit.OneOf("search", &m.Search, string(osdmlegacy.SearchAvailability), string(osdmlegacy.SearchInformationOnly)),
		modulekit.Positive("max_trains", &m.MaxTrains), modulekit.Duration("window", &m.Window),
		modulekit.MaxChanges(&m.MaxChanges, osdmlegacy.MaxMaxChanges),
		modulekit.Duration("min_transfer", &m.MinTransfer), modulekit.Positive("max_trips", &m.MaxTrips),
		modulekit.Duration("booking_horizon", &m.BookingHorizon), modulekit.Positive("concurrency", &m.Concurrency),
		modulekit.Entry("tariff", 4, 4, m.parseTariff),
		modulekit.Entry("reason", 2, 2, func(d *caddyfile.Dispenser, args []string) error {
			code, err := strconv.Atoi(args[1])
			if err != nil {
				return d.Errf("reason %s: code %q is not a number", args[0], args[1])
			}
			if err := modulekit.PutOnce(&m.Reasons, "reason", args[0], code); err != nil {
				return d.WrapErr(err)
			}
			return nil
		}),
		legacyFee("refund_fee", &m.RefundFee), legacyFee("exchange_fee", &m.ExchangeFee),
		modulekit.Duration("offer_ttl", &m.OfferTTL), modulekit.Duration("hold", &m.Hold), modulekit.Duration("timeout", &m.Timeout),
		modulekit.Size("max_body", &m.MaxBody, osdmlegacy.MaxMaxBody, "1MiB"),
		modulekit.Func("services", 1, 3, func(d *caddyfile.Dispenser, args []string) error {
			m.Services = nil
			for _, a := range args {
				code := map[string]int{"seat": 1, "couchette": 2, "berth": 3}[a]
				if code == 0 {
					return d.Errf("services: %q is not seat, couchette or berth", a)
				}
				m.Services = append(m.Services, code)
			}
			return nil
		}),
		modulekit.OneOf("legacy_format", &m.LegacyFormat, "xml", "json"), modulekit.Func("legacy_path", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			m.LegacyPath = args[0]
			if err := checkLegacyPath(args[0]); err != nil {
				return d.WrapErr(err)
			}
			return nil
		}),
		modulekit.String("time_zone", &m.TimeZone), modulekit.Duration("settle_interval", &m.SettleInterval),
		storeconfig.Sub(&m.Store),
		modulekit.OneOf("documents", &m.Documents, string(osdmlegacy.DocumentsPDF), string(osdmlegacy.DocumentsNone)),
	}}
}

// parseTariff reads a tariff line: <TYPE> <min age> <max age> <code>.
func (m *OSDMLegacy) parseTariff(d *caddyfile.Dispenser, args []string) error {
	var ages [3]int
	for i, a := range args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil {
			return d.Errf("tariff %s: %q is not a number (want <TYPE> <min age> <max age> <code>)", args[0], a)
		}
		ages[i] = n
	}
	if ages[0] < 0 || ages[0] > ages[1] || ages[1] > 150 || ages[2] < 0 || ages[2] > 9999 {
		return d.Errf("tariff %s: want an age range within 0..150 and a code 0..9999", args[0])
	}
	m.Tariffs = append(m.Tariffs, LegacyTariff{Type: args[0], MinAge: ages[0], MaxAge: ages[1], Code: ages[2]})
	return nil
}

// legacyFee is a fee subdirective: <n>% or <amount> <currency>.
func legacyFee(name string, dst *string) modulekit.Sub {
	return modulekit.Func(name, 1, 2, func(d *caddyfile.Dispenser, args []string) error {
		fee := strings.Join(args, " ")
		if _, err := osdmlegacy.ParseFee(fee); err != nil {
			return d.Errf("%s %v", name, err)
		}
		*dst = fee
		return nil
	})
}
