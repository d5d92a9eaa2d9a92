package reverse

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/stores"
	"github.com/caddy-osdm/caddy-osdm/osdmlegacy"
)

func init() {
	glue.RegisterHandler[OSDMLegacy]("osdm_legacy")
}

// osdmLegacySubdirectives are the subdirectives of osdm_legacy, offered when a
// name is mistyped.
var osdmLegacySubdirectives = []string{"partner", "timetable", "search", "max_trains", "window", "max_changes", "min_transfer", "max_trips", "booking_horizon", "concurrency", "tariff", "reason",
	"refund_fee", "exchange_fee", "offer_ttl", "hold", "timeout", "max_body", "services", "legacy_format", "legacy_path", "time_zone",
	"settle_interval", "store", "documents"}

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
//		store           bolt [<path>] | redis <address> [<key prefix>]
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
	at, err := glue.Directive(d, []string{"tariff", "reason"}, func(name string) error {
		if name == "store" {
			cfg, err := stores.Unmarshal(d, "store")
			if err != nil {
				return err
			}
			m.Store = cfg
			return nil
		}
		if err := m.unmarshalOption(name, d.RemainingArgs()); err != nil {
			return d.Err(err.Error())
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Check the whole block now, so that the error names the Caddyfile and
	// the directive's line; Provision checks the same for JSON.
	if _, err := m.facadeConfig(); err != nil {
		return at.Err(err)
	}
	if m.Store != nil {
		return at.Err(m.Store.Validate())
	}
	return nil
}

// unmarshalOption sets one subdirective.
func (m *OSDMLegacy) unmarshalOption(name string, args []string) error {
	want := map[string][2]int{ // min and max number of arguments
		"partner": {1, 1}, "timetable": {1, 2}, "search": {1, 1}, "max_trains": {1, 1}, "window": {1, 1},
		"max_changes": {1, 1}, "min_transfer": {1, 1}, "max_trips": {1, 1},
		"concurrency": {1, 1}, "tariff": {4, 4}, "reason": {2, 2}, "refund_fee": {1, 2}, "exchange_fee": {1, 2}, "offer_ttl": {1, 1},
		"hold": {1, 1}, "timeout": {1, 1}, "max_body": {1, 1}, "services": {1, 3}, "legacy_format": {1, 1},
		"legacy_path": {1, 1}, "time_zone": {1, 1}, "settle_interval": {1, 1}, "booking_horizon": {1, 1},
		"documents": {1, 1},
	}
	n, ok := want[name]
	if !ok {
		return errors.New(glue.UnknownSubdirective("subdirective", name, osdmLegacySubdirectives))
	}
	if len(args) < n[0] || len(args) > n[1] {
		return fmt.Errorf("%s: wrong number of arguments (%d)", name, len(args))
	}
	var err error
	switch name {
	case "partner":
		m.Partner = args[0]
	case "timetable":
		m.Timetable = args[0]
		if len(args) == 2 {
			m.TimetableStationCode = args[1]
		}
	case "search":
		if args[0] != string(osdmlegacy.SearchAvailability) && args[0] != string(osdmlegacy.SearchInformationOnly) {
			return fmt.Errorf("search %q: want availability or information_only", args[0])
		}
		m.Search = args[0]
	case "max_trains":
		m.MaxTrains, err = legacyPositive(name, args[0])
	case "max_changes":
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 0 || n > osdmlegacy.MaxMaxChanges {
			return fmt.Errorf("max_changes %q: want 0 (direct trains only) to %d", args[0], osdmlegacy.MaxMaxChanges)
		}
		m.MaxChanges = &n
	case "min_transfer":
		m.MinTransfer, err = legacyDuration(name, args[0])
	case "max_trips":
		m.MaxTrips, err = legacyPositive(name, args[0])
	case "concurrency":
		m.Concurrency, err = legacyPositive(name, args[0])
	case "window":
		m.Window, err = legacyDuration(name, args[0])
	case "booking_horizon":
		m.BookingHorizon, err = legacyDuration(name, args[0])
	case "offer_ttl":
		m.OfferTTL, err = legacyDuration(name, args[0])
	case "hold":
		m.Hold, err = legacyDuration(name, args[0])
	case "timeout":
		m.Timeout, err = legacyDuration(name, args[0])
	case "settle_interval":
		m.SettleInterval, err = legacyDuration(name, args[0])
	case "tariff":
		var ages [3]int
		for i, a := range args[1:] {
			if ages[i], err = strconv.Atoi(a); err != nil {
				return fmt.Errorf("tariff %s: %q is not a number (want <TYPE> <min age> <max age> <code>)", args[0], a)
			}
		}
		if ages[0] < 0 || ages[0] > ages[1] || ages[1] > 150 || ages[2] < 0 || ages[2] > 9999 {
			return fmt.Errorf("tariff %s: want an age range within 0..150 and a code 0..9999", args[0])
		}
		m.Tariffs = append(m.Tariffs, LegacyTariff{Type: args[0], MinAge: ages[0], MaxAge: ages[1], Code: ages[2]})
	case "reason":
		code, err := strconv.Atoi(args[1])
		if err != nil {
			return fmt.Errorf("reason %s: code %q is not a number", args[0], args[1])
		}
		return glue.PutOnce(&m.Reasons, name, args[0], code)
	case "refund_fee":
		fee := strings.Join(args, " ")
		if _, err := osdmlegacy.ParseFee(fee); err != nil {
			return fmt.Errorf("refund_fee %w", err)
		}
		m.RefundFee = fee
	case "exchange_fee":
		fee := strings.Join(args, " ")
		if _, err := osdmlegacy.ParseFee(fee); err != nil {
			return fmt.Errorf("exchange_fee %w", err)
		}
		m.ExchangeFee = fee
	case "max_body":
		size, err := humanize.ParseBytes(args[0])
		if err != nil || size == 0 || size > osdmlegacy.MaxMaxBody {
			return fmt.Errorf("max_body %q: not a size from 1B to 1MiB", args[0])
		}
		m.MaxBody = int64(size)
	case "services":
		m.Services = nil
		for _, a := range args {
			code := map[string]int{"seat": 1, "couchette": 2, "berth": 3}[a]
			if code == 0 {
				return fmt.Errorf("services: %q is not seat, couchette or berth", a)
			}
			m.Services = append(m.Services, code)
		}
	case "documents":
		if args[0] != string(osdmlegacy.DocumentsPDF) && args[0] != string(osdmlegacy.DocumentsNone) {
			return fmt.Errorf("documents %q: want pdf or none", args[0])
		}
		m.Documents = args[0]
	case "legacy_format":
		if args[0] != "xml" && args[0] != "json" {
			return fmt.Errorf("legacy_format %q: want xml or json", args[0])
		}
		m.LegacyFormat = args[0]
	case "legacy_path":
		m.LegacyPath = args[0]
	case "time_zone":
		m.TimeZone = args[0]
	}
	return err
}

// legacyPositive parses a positive integer option.
func legacyPositive(name, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s %q: not a positive number", name, s)
	}
	return n, nil
}

// legacyDuration parses a positive duration option.
func legacyDuration(name, s string) (caddy.Duration, error) {
	d, err := caddy.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s %q: not a positive duration", name, s)
	}
	return caddy.Duration(d), nil
}
