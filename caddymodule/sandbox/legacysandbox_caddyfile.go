package sandbox

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

func init() {
	modulekit.RegisterHandler[LegacySandbox]("legacy_sandbox")
}

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
//     "fare 2 1 12.00", in the currency (as many decimals as its minor
//     unit has at most: "fare 2 1 1200" in JPY).
//   - currency: of every price; default EUR.
//   - cancel_fee: kept when a CancelRequest has no reason code; default 10%.
//   - offer_ttl: how long an OfferRef can be booked; default 15m.
//   - retention: how long replies are kept for resent messageIds, and
//     bookings after their train left; default 24h.
//   - max_entries: cap on replies kept and bookings held (each); default
//     10000.
//   - max_body: longest request body; default 64KiB, at most 1MiB.
func (s *LegacySandbox) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	var amounts []fareAmount
	if _, err := s.caddyfileTable(&amounts).Directive(d); err != nil {
		return err
	}
	// A fare is written in the currency, which may come after it: read
	// now, in the currency's minor units (1200 yen, 12.345 dinars), and
	// refused at the fare's own line.
	currency := s.Currency
	if currency == "" {
		currency = legacysandbox.DefaultCurrency
	}
	for i, a := range amounts {
		minor, err := legacysandbox.ParseAmountIn(a.text, legacy.MinorUnit(currency))
		if err != nil {
			return a.at.Errf("fare %d %d in %s: %v", s.Fares[i].TravelClass, s.Fares[i].ServiceCode, currency, err)
		}
		s.Fares[i].Cents = minor
	}
	return nil
}

// fareAmount is a fare's amount as written, with a dispenser at its line
// for an error that names that line.
type fareAmount struct {
	text string
	at   *caddyfile.Dispenser
}

// atLine is a dispenser on d's current token alone, at the line it is on.
func atLine(d *caddyfile.Dispenser) *caddyfile.Dispenser {
	line := caddyfile.NewDispenser([]caddyfile.Token{d.Token()})
	line.Next()
	return line
}

// caddyfileTable is legacy_sandbox's subdirectives, read into s; each
// fare's amount as written goes to amounts too.
func (s *LegacySandbox) caddyfileTable(amounts *[]fareAmount) modulekit.Table {
	foreign := map[string]bool{}
	tariffs := map[int]bool{}
	fares := map[[2]int]bool{}
	return modulekit.Table{Subs: []modulekit.Sub{
		modulekit.Int("system", &s.System, 1, 9999), modulekit.Int("capacity", &s.Capacity, 1, legacysandbox.MaxCapacity),
		modulekit.Int("max_entries", &s.MaxEntries, 1, legacysandbox.MaxMaxEntries),
		modulekit.Func("latency", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			dur, err := modulekit.ParseDuration(d, "latency", args[0])
			if err == nil && dur > legacysandboxMaxLatency {
				return d.Errf("latency %s must be at most %s", args[0], legacysandbox.MaxLatency)
			}
			s.Latency = dur
			return err
		}),
		modulekit.Duration("offer_ttl", &s.OfferTTL), modulekit.Duration("retention", &s.Retention),
		modulekit.Timetable(&s.Timetable, &s.StationCode),
		modulekit.Entry("foreign", 3, 3, func(d *caddyfile.Dispenser, args []string) error {
			system, err := strconv.Atoi(args[1])
			if err != nil {
				return d.Errf("foreign %s: reservation system %q must be a number 1..9999", args[0], args[1])
			}
			f := legacysandbox.Foreign{Train: args[0], System: system, Operator: args[2]}
			if err := checkEntry(d, f, foreign, "foreign train", f.Train); err != nil {
				return err
			}
			s.Foreign = append(s.Foreign, f)
			return nil
		}),
		modulekit.Entry("tariff", 2, 2, func(d *caddyfile.Dispenser, args []string) error {
			code, err := strconv.Atoi(args[0])
			if err != nil || code < 0 || code > 9999 {
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
			return nil
		}),
		modulekit.Entry("fare", 3, 3, func(d *caddyfile.Dispenser, args []string) error {
			class, err := strconv.Atoi(args[0])
			if err != nil || class != legacy.FirstClass && class != legacy.SecondClass {
				return d.Errf("fare: travel class %q must be 1 or 2", args[0])
			}
			service, err := strconv.Atoi(args[1])
			if err != nil || service < legacy.ServiceSeat || service > legacy.ServiceBerth {
				return d.Errf("fare: service code %q must be 1, 2 or 3", args[1])
			}
			cents, err := legacysandbox.ParseAmountIn(args[2], 4)
			if err != nil {
				return d.Errf("fare %d %d: %v", class, service, err)
			}
			*amounts = append(*amounts, fareAmount{text: args[2], at: atLine(d)})
			if fares[[2]int{class, service}] {
				return d.Errf("fare %d %d already specified", class, service)
			}
			fares[[2]int{class, service}] = true
			s.Fares = append(s.Fares, legacysandbox.Fare{TravelClass: class, ServiceCode: service, Cents: cents})
			return nil
		}),
		modulekit.Func("currency", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			if len(args[0]) != 3 || strings.Trim(args[0], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
				return d.Errf("currency %q must be an ISO 4217 code of 3 capital letters", args[0])
			}
			s.Currency = args[0]
			return nil
		}),
		modulekit.Func("cancel_fee", 1, 1, func(d *caddyfile.Dispenser, args []string) error {
			pct, ok := parsePercent(args[0], 100)
			if !ok {
				return d.Errf("cancel_fee %q must be a percentage 0%%..100%%", args[0])
			}
			s.CancelFeePercent = &pct
			return nil
		}),
		modulekit.Size("max_body", &s.MaxBody, legacy.MaxBodyBytes, "1MiB"),
	}}
}

// legacysandboxMaxLatency bounds latency as legacysandbox.New does.
const legacysandboxMaxLatency = caddy.Duration(legacysandbox.MaxLatency)

// parsePercent reads "50%" or "50" as 0..max: digits only (no sign, as
// strconv.Atoi would take).
func parsePercent(s string, max int) (int, bool) {
	digits := strings.TrimSuffix(s, "%")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n >= 0 && n <= max
}
