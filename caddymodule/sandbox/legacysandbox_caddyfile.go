package sandbox

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/dustin/go-humanize"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

func init() {
	glue.RegisterHandler[LegacySandbox]("legacy_sandbox")
}

// legacySandboxSubdirectives are the subdirectives of legacy_sandbox, offered when a
// name is mistyped.
var legacySandboxSubdirectives = []string{"system", "capacity", "max_entries", "latency", "offer_ttl", "retention", "timetable",
	"foreign", "tariff", "fare", "currency", "cancel_fee", "max_body"}

// UnmarshalCaddyfile sets up the handler from Caddyfile tokens. Syntax:
//
//	legacy_sandbox {
//		system      <918-1 reservation system code>
//		capacity    <places>
//		timetable   <GTFS .zip or folder> [stop_code|stop_id]
//		foreign     <train> <reservation system code> <operator RICS code>
//		latency     <duration>
//		tariff      <tariff code> <percent>%
//		fare        <travel class> <service code> <amount>
//		currency    <ISO 4217 code>
//		cancel_fee  <percent>%
//		offer_ttl   <duration>
//		retention   <duration>
//		max_entries <n>
//		max_body    <size>
//	}
//
// Every subdirective is optional:
//   - system: the sandbox's own 918-1 code, 1..9999; default 9999.
//   - capacity: places per train run, travel class and service code;
//     default 100.
//   - timetable: a GTFS static feed; the UIC codes are in stop_code unless
//     stop_id is given. Without it every train number of 1..5 letters or
//     digits runs every day at times derived from its number (numbers
//     starting with 4 are night trains with couchettes and berths).
//   - foreign (repeatable): a request for that train is answered with a
//     ReplacementProposal naming that system and operator.
//   - latency: added to every answer.
//   - tariff (repeatable): the tariff table (replaces the default 1 100%,
//     2 50%, 3 70%, 4 75%); a code not in it is INVALID_MESSAGE.
//   - fare (repeatable): the full-tariff price of one place, e.g.
//     "fare 2 1 12.00".
//   - currency: of every price; default EUR.
//   - cancel_fee: kept when a CancelRequest has no reason code; default 10%.
//   - offer_ttl: how long an OfferRef can be booked; default 15m.
//   - retention: how long replies are kept for resent messageIds, and
//     bookings after their train left; default 24h.
//   - max_entries: cap on replies kept and bookings held (each); default
//     10000.
//   - max_body: longest request body; default 64KiB, at most 1MiB.
func (s *LegacySandbox) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	foreign := map[string]bool{}
	tariffs := map[int]bool{}
	fares := map[[2]int]bool{}
	_, err := glue.Directive(d, []string{"foreign", "tariff", "fare"}, func(name string) error {
		var err error
		switch name {
		case "system":
			err = glue.IntArgInRange(d, name, &s.System, 1, 9999)
		case "capacity":
			err = glue.IntArgInRange(d, name, &s.Capacity, 1, legacysandbox.MaxCapacity)
		case "max_entries":
			err = glue.IntArgInRange(d, name, &s.MaxEntries, 1, legacysandbox.MaxMaxEntries)
		case "latency":
			if err = glue.PositiveDurationArg(d, name, &s.Latency); err == nil && s.Latency > legacysandboxMaxLatency {
				return d.Errf("latency %s must be at most %s", d.Val(), legacysandbox.MaxLatency)
			}
		case "offer_ttl":
			err = glue.PositiveDurationArg(d, name, &s.OfferTTL)
		case "retention":
			err = glue.PositiveDurationArg(d, name, &s.Retention)
		case "timetable":
			args := d.RemainingArgs()
			if len(args) < 1 || len(args) > 2 {
				return d.ArgErr()
			}
			s.Timetable = args[0]
			if len(args) == 2 {
				if args[1] != "stop_code" && args[1] != "stop_id" {
					return d.Errf("timetable: station code column %q must be stop_code or stop_id", args[1])
				}
				s.StationCode = args[1]
			}
		case "foreign":
			args := d.RemainingArgs()
			if len(args) != 3 {
				return d.ArgErr()
			}
			system, aerr := strconv.Atoi(args[1])
			if aerr != nil {
				return d.Errf("foreign %s: reservation system %q must be a number 1..9999", args[0], args[1])
			}
			f := legacysandbox.Foreign{Train: args[0], System: system, Operator: args[2]}
			if err := checkEntry(d, f, foreign, "foreign train", f.Train); err != nil {
				return err
			}
			s.Foreign = append(s.Foreign, f)
		case "tariff":
			args := d.RemainingArgs()
			if len(args) != 2 {
				return d.ArgErr()
			}
			code, cerr := strconv.Atoi(args[0])
			if cerr != nil || code < 0 || code > 9999 {
				return d.Errf("tariff code %q must be a number 0..9999", args[0])
			}
			pct, ok := parsePercent(args[1], 1000)
			if !ok {
				return d.Errf("tariff %d: %q must be a percentage 0%%..1000%%", code, args[1])
			}
			if tariffs[code] {
				return d.Errf("tariff %d already specified", code)
			}
			tariffs[code] = true
			s.Tariffs = append(s.Tariffs, LegacySandboxTariff{Code: code, Percent: pct})
		case "fare":
			args := d.RemainingArgs()
			if len(args) != 3 {
				return d.ArgErr()
			}
			class, cerr := strconv.Atoi(args[0])
			if cerr != nil || class != legacy.FirstClass && class != legacy.SecondClass {
				return d.Errf("fare: travel class %q must be 1 or 2", args[0])
			}
			service, serr := strconv.Atoi(args[1])
			if serr != nil || service < legacy.ServiceSeat || service > legacy.ServiceBerth {
				return d.Errf("fare: service code %q must be 1, 2 or 3", args[1])
			}
			cents, perr := legacysandbox.ParseAmount(args[2])
			if perr != nil {
				return d.Errf("fare %d %d: %v", class, service, perr)
			}
			if fares[[2]int{class, service}] {
				return d.Errf("fare %d %d already specified", class, service)
			}
			fares[[2]int{class, service}] = true
			s.Fares = append(s.Fares, legacysandbox.Fare{TravelClass: class, ServiceCode: service, Cents: cents})
		case "currency":
			if err = glue.OneArg(d, &s.Currency); err == nil {
				if len(s.Currency) != 3 || strings.Trim(s.Currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
					return d.Errf("currency %q must be an ISO 4217 code of 3 capital letters", s.Currency)
				}
			}
		case "cancel_fee":
			var v string
			if err = glue.OneArg(d, &v); err == nil {
				pct, ok := parsePercent(v, 100)
				if !ok {
					return d.Errf("cancel_fee %q must be a percentage 0%%..100%%", v)
				}
				s.CancelFeePercent = &pct
			}
		case "max_body":
			var v string
			if err = glue.OneArg(d, &v); err == nil {
				size, perr := humanize.ParseBytes(v)
				if perr != nil || size == 0 || size > legacy.MaxBodyBytes {
					return d.Errf("max_body %q: not a size from 1B to 1MiB", v)
				}
				s.MaxBody = int64(size)
			}
		default:
			return d.Err(glue.UnknownSubdirective("subdirective", name, legacySandboxSubdirectives))
		}
		return err
	})
	return err
}

// legacysandboxMaxLatency bounds latency as legacysandbox.New does.
const legacysandboxMaxLatency = caddy.Duration(legacysandbox.MaxLatency)

// parsePercent reads "50%" or "50" as 0..max.
func parsePercent(s string, max int) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(s, "%"))
	return n, err == nil && n >= 0 && n <= max
}
